import Foundation
import SoarCore

/// How one notification ended.
public enum APNsOutcome: Sendable, Equatable {
    /// APNs accepted it; `uniqueID` is `apns-unique-id` when the host sends one (sandbox).
    case delivered(apnsID: String, uniqueID: String?)
    case failed(APNsFailure)

    public var isDelivered: Bool { if case .delivered = self { true } else { false } }
    public var failure: APNsFailure? { if case .failed(let f) = self { f } else { nil } }
}

/// Why a notification was not delivered, with what APNs said.
public struct APNsFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// How the sender should react.
    public enum Class: String, Sendable {
        /// The token is dead or wrong: delete it (BadDeviceToken, Unregistered, ExpiredToken, DeviceTokenNotForTopic).
        case invalidToken
        /// Try again later (429, 500, 503, lost connection); already retried as configured.
        case retryable
        /// Fix the request or the configuration; retrying will not help.
        case permanent
    }

    /// Why nothing came back, when the failure is the connection's rather than an answer from APNs.
    public let transportError: TransportError?
    /// The notification left at least once and its answer never came: it may have been delivered.
    /// A provider cannot know; it must not report such a notification as simply failed.
    public let mayHaveBeenDelivered: Bool

    /// The HTTP status; 0 when nothing came back (not sent, or the connection failed).
    public let status: Int
    public let reason: APNsReason
    /// For 410: when APNs learned the token was no longer valid.
    public let timestamp: Date?
    public let apnsID: String?
    /// A local explanation when APNs gave no reason: a rule broken before sending, a transport error.
    public let detail: String?
    public let attempts: Int

    public init(
        status: Int, reason: APNsReason, timestamp: Date? = nil, apnsID: String? = nil, detail: String? = nil, attempts: Int = 1,
        transportError: TransportError? = nil, mayHaveBeenDelivered: Bool = false
    ) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.detail = detail
        self.attempts = attempts
        self.transportError = transportError
        self.mayHaveBeenDelivered = mayHaveBeenDelivered || transportError?.mayHaveBeenDelivered == true
    }

    public static let invalidTokenReasons: Set<APNsReason> = [.badDeviceToken, .unregistered, .expiredToken, .deviceTokenNotForTopic]

    public var classification: Class {
        if Self.invalidTokenReasons.contains(reason) { return .invalidToken }
        if status == 429 || status == 500 || status == 503 || transportError?.isRetryable == true { return .retryable }
        return .permanent
    }

    /// Whether the token should be removed from the store.
    public var isInvalidToken: Bool { classification == .invalidToken }

    /// Soar's reasons for failures APNs did not answer: nothing reached it, or the answer was lost.
    public static let connectionFailed = APNsReason(rawValue: "ConnectionFailed")
    public static let deliveryUnknown = APNsReason(rawValue: "DeliveryUnknown")
    static let invalidRequestReason = APNsReason(rawValue: "InvalidRequest")

    /// A rule broken before sending.
    static func invalidRequest(_ error: APNsRequestError) -> APNsFailure {
        .init(status: 0, reason: invalidRequestReason, detail: error.description, attempts: 0)
    }

    /// - Parameter lostBefore: an earlier attempt's answer was lost, so even a later refusal
    ///   leaves the notification possibly delivered.
    static func transport(_ error: TransportError, apnsID: String, attempts: Int, lostBefore: Bool = false) -> APNsFailure {
        let unknown = lostBefore || error.mayHaveBeenDelivered
        return .init(status: 0, reason: unknown ? deliveryUnknown : connectionFailed, apnsID: apnsID, detail: error.message, attempts: attempts,
                     transportError: error, mayHaveBeenDelivered: unknown)
    }

    public var description: String {
        var text = status == 0 ? reason.rawValue : "\(status) \(reason.rawValue)"
        if let detail { text += ": \(detail)" }
        if let timestamp { text += " (since \(Timestamp.format(timestamp)))" }
        if mayHaveBeenDelivered && transportError?.mayHaveBeenDelivered != true { text += " (an earlier attempt's answer was lost: it may have been delivered)" }
        return text
    }
}
