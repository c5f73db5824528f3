import Foundation
import SoarCore

/// One notification to one device, with the APNs headers that shape its delivery.
public struct APNsNotification: Sendable {
    /// The device token as lowercase hex.
    public var token: String
    public var payload: Payload {
        get { storedPayload }
        set {
            storedPayload = newValue
            encodedPayload = newValue.encoded()
        }
    }
    private var storedPayload: Payload
    /// The payload's JSON, encoded once however often the notification is copied (a bulk send of
    /// one message to many tokens encodes it once).
    public private(set) var encodedPayload: Data
    public var pushType: PushType
    /// The `apns-topic`; nil derives it from the client's bundle id and the push type.
    public var topic: String?
    public var priority: APNsPriority?
    /// When APNs may stop trying: nil stores it once (Apple's default), `.distantPast`-like 0 means "now or never".
    public var expiration: Date?
    public var collapseID: String?
    /// The `apns-id`; generated when nil, kept across retries.
    public var apnsID: UUID?

    /// Sets the payload with its JSON already written (a send to many devices that differ by one
    /// top-level key writes it by splicing, not by encoding each copy). `encoded` must be `payload`'s JSON.
    public mutating func setPayload(_ payload: Payload, encoded: Data) {
        storedPayload = payload
        encodedPayload = encoded
    }

    public init(
        token: String, payload: Payload, pushType: PushType = .alert, topic: String? = nil, priority: APNsPriority? = nil,
        expiration: Date? = nil, collapseID: String? = nil, apnsID: UUID? = nil
    ) {
        self.token = token
        self.storedPayload = payload
        self.encodedPayload = payload.encoded()
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
    }
}

/// `apns-priority`: 10 sends now, 5 saves power, 1 lowest.
public struct APNsPriority: Hashable, Sendable, RawRepresentable {
    public let rawValue: Int
    public init?(rawValue: Int) {
        guard [10, 5, 1].contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    private init(_ value: Int) { rawValue = value }

    public static let immediate = APNsPriority(10)
    public static let considerPower = APNsPriority(5)
    public static let low = APNsPriority(1)
}
