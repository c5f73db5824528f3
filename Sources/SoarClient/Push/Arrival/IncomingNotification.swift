import Foundation
import SoarCore

/// A notification as the app receives it: the system's identifier, the payload, and when.
public struct IncomingNotification: Sendable, Hashable {
    /// The notification request's identifier (the apns-id for a remote notification).
    public var identifier: String
    public var payload: Payload
    public var date: Date

    public init(identifier: String = UUID().uuidString.lowercased(), payload: Payload, date: Date = Date()) {
        self.identifier = identifier
        self.payload = payload
        self.date = date
    }

    /// From a delivered notification's `userInfo`, which is the payload's JSON object.
    ///
    /// - Throws: ``PayloadError`` when it is not a payload (a local notification's `userInfo` may
    ///   hold values JSON cannot carry, such as dates).
    public init(identifier: String, userInfo: [AnyHashable: Any], date: Date = Date()) throws {
        let object = Dictionary(userInfo.map { ("\($0.key)", $0.value) }, uniquingKeysWith: { first, _ in first })
        // JSONSerialization raises an exception `try` cannot catch for such values: check first.
        guard JSONSerialization.isValidJSONObject(object) else { throw PayloadError.notJSON("userInfo holds values JSON cannot carry") }
        let data = try JSONSerialization.data(withJSONObject: object)
        self.init(identifier: identifier, payload: try Payload(json: data), date: date)
    }

    public var title: String? {
        if case .content(let content) = payload.aps.alert { return content.title }
        return nil
    }

    public var body: String? {
        switch payload.aps.alert {
        case .text(let text): text
        case .content(let content): content.body
        case nil: nil
        }
    }

    /// False for a background notification (no alert, sound or badge): the system shows nothing
    /// and never asks the app how to present it.
    public var isVisible: Bool { payload.aps.alert != nil || payload.aps.sound != nil || payload.aps.badge != nil }

    /// The server-side inbox row this notification is, from the payload's `soar_id`.
    public var serverID: String? { payload.custom[Payload.inboxIDKey]?.stringValue }

    /// The screen a tap opens: the first of the table's payload keys naming a known route.
    public func route(in routes: RouteTable) -> AppRoute? { routes.route(for: payload) }

    /// The link text a tap follows, known route or not.
    public func link(in routes: RouteTable) -> String? { routes.link(in: payload) }
}
