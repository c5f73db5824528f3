import Foundation
import SoarCore

/// A notification checked against Apple's rules and laid out as the HTTP/2 request APNs expects.
public struct APNsRequest: Sendable, Equatable {
    public let path: String
    public let headers: [(String, String)]
    public let body: Data
    public let apnsID: String

    public static func == (lhs: APNsRequest, rhs: APNsRequest) -> Bool {
        lhs.path == rhs.path && lhs.body == rhs.body && lhs.apnsID == rhs.apnsID
            && lhs.headers.map { "\($0.0):\($0.1)" } == rhs.headers.map { "\($0.0):\($0.1)" }
    }

    /// Builds the request, or says which rule the notification breaks; nothing goes on the wire then.
    ///
    /// - Parameter bundleID: the app's bundle id, from which the topic is derived when the
    ///   notification names none.
    /// - Throws: ``APNsRequestError``.
    public init(_ notification: APNsNotification, bundleID: String?) throws(APNsRequestError) {
        let token: String
        do {
            token = try PushToken.normalizedHex(notification.token)
        } catch {
            throw .init("bad device token: \(error.description)")
        }
        guard notification.pushType.isKnown else { throw .init("unknown push type \(notification.pushType)") }
        if notification.pushType == .background, notification.priority == .immediate {
            throw .init("background notifications cannot use priority 10; use 5")
        }
        if let collapse = notification.collapseID, collapse.utf8.count > 64 {
            throw .init("apns-collapse-id is \(collapse.utf8.count) bytes; the limit is 64")
        }
        guard let topic = notification.topic ?? bundleID.map(notification.pushType.topic(forBundleID:)), !topic.isEmpty else {
            throw .init("no topic: set the bundle id (APNS_BUNDLE_ID) or the notification's topic")
        }
        guard topic.utf8.count <= 255, topic.utf8.allSatisfy({ (33...126).contains($0) }) else {
            throw .init("apns-topic must be a bundle id (at most 255 printable ASCII characters), not \(topic.utf8.count) bytes of \(topic.prefix(40).debugDescription)")
        }
        body = notification.encodedPayload
        do {
            try Payload.checkSize(body.count, for: notification.pushType)
        } catch {
            throw .init(error.description)
        }
        apnsID = notification.apnsID.map(RandomUUID.text) ?? RandomUUID.lowercase()
        path = "/3/device/" + token
        var headers = [("apns-id", apnsID), ("apns-topic", topic), ("apns-push-type", notification.pushType.rawValue)]
        let priority = notification.priority ?? (notification.pushType == .background ? .considerPower : nil)
        if let priority { headers.append(("apns-priority", String(priority.rawValue))) }
        if let expiration = notification.expiration {
            // Clamped to what the header can say: a Double past Int's range would trap in Int(_:).
            let seconds = min(max(0, expiration.timeIntervalSince1970.rounded(.down)), Double(UInt32.max))
            headers.append(("apns-expiration", String(Int(seconds.isNaN ? 0 : seconds))))
        }
        if let collapse = notification.collapseID { headers.append(("apns-collapse-id", collapse)) }
        self.headers = headers
    }
}

/// Why a notification was not sent: it breaks one of Apple's rules.
public struct APNsRequestError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
