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

    /// The HTTP status; 0 when nothing came back (not sent, or the connection failed).
    public let status: Int
    public let reason: APNsReason
    /// For 410: when APNs learned the token was no longer valid.
    public let timestamp: Date?
    public let apnsID: String?
    /// A local explanation when APNs gave no reason: a rule broken before sending, a transport error.
    public let detail: String?
    public let attempts: Int

    public init(status: Int, reason: APNsReason, timestamp: Date? = nil, apnsID: String? = nil, detail: String? = nil, attempts: Int = 1) {
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsID = apnsID
        self.detail = detail
        self.attempts = attempts
    }

    public static let invalidTokenReasons: Set<APNsReason> = [.badDeviceToken, .unregistered, .expiredToken, .deviceTokenNotForTopic]

    public var classification: Class {
        if Self.invalidTokenReasons.contains(reason) { return .invalidToken }
        if status == 429 || status == 500 || status == 503 || isTransport { return .retryable }
        return .permanent
    }

    /// Whether the token should be removed from the store.
    public var isInvalidToken: Bool { classification == .invalidToken }

    var isTransport: Bool { status == 0 && reason == Self.transportReason }

    static let transportReason = APNsReason(rawValue: "ConnectionFailed")
    static let invalidRequestReason = APNsReason(rawValue: "InvalidRequest")

    /// A rule broken before sending.
    static func invalidRequest(_ error: APNsRequestError) -> APNsFailure {
        .init(status: 0, reason: invalidRequestReason, detail: error.description, attempts: 0)
    }

    static func transport(_ message: String, apnsID: String, attempts: Int) -> APNsFailure {
        .init(status: 0, reason: transportReason, apnsID: apnsID, detail: message, attempts: attempts)
    }

    public var description: String {
        var text = status == 0 ? reason.rawValue : "\(status) \(reason.rawValue)"
        if let detail { text += ": \(detail)" }
        if let timestamp { text += " (since \(Timestamp.format(timestamp)))" }
        return text
    }
}
