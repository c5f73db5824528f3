import Foundation
import SoarCore

/// A row of `device_tokens`: one device of one user, keyed by `(user_id, token)`.
public struct DeviceToken: Codable, Hashable, Identifiable, Sendable {
    public var userId: UUID
    /// Lowercase hex, as ``PushToken/hex`` writes it.
    public var token: String
    public var platform: String
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(userId: UUID, token: String, platform: String = "ios", createdAt: Date? = nil, updatedAt: Date? = nil) {
        self.userId = userId
        self.token = token
        self.platform = platform
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The composite key, `user_id:token`.
    public var id: String { "\(userId.uuidString.lowercased()):\(token)" }

    enum CodingKeys: String, CodingKey {
        case token, platform
        case userId = "user_id"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
