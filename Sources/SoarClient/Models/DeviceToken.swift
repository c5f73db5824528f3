import Foundation
import SoarCore

/// A row of `device_tokens`: one device of one user, keyed by `(user_id, token)`. What the
/// registrar writes, and what a read of the table gives back.
public struct DeviceToken: Codable, Hashable, Identifiable, Sendable {
    public var userId: UUID
    /// Lowercase hex, as ``PushToken/hex`` writes it.
    public var token: String
    public var platform: String
    /// `sandbox` (a debug build) or `production` (TestFlight, App Store); nil when unknown.
    public var environment: String?
    /// The app's bundle id, the `apns-topic`; nil means the server's `APNS_BUNDLE_ID`.
    public var bundleId: String?
    /// What segments filter on (the starter's `device_tokens` has these columns); nil is left out
    /// of a write, so a schema without them takes the row as before.
    public var appVersion: String?
    public var locale: String?
    public var timeZone: String?
    /// Set by the server on insert; nil in a row about to be written.
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(
        userId: UUID, token: String, platform: String = "ios", environment: String? = nil, bundleId: String? = nil,
        createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.userId = userId
        self.token = token
        self.platform = platform
        self.environment = environment
        self.bundleId = bundleId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The composite key, `user_id:token`.
    public var id: String { "\(userId.uuidString.lowercased()):\(token)" }

    enum CodingKeys: String, CodingKey {
        case token, platform, environment
        case userId = "user_id"
        case bundleId = "bundle_id"
        case appVersion = "app_version"
        case locale
        case timeZone = "time_zone"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
