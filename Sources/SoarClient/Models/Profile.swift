import Foundation
import SoarCore

/// A row of `profiles`, whose `id` is the owner's user id; every descriptive field may be null.
public struct Profile: Codable, Hashable, Identifiable, Sendable {
    public var id: UUID
    public var fullName: String?
    public var bio: String?
    public var phone: String?
    public var location: String?
    public var avatarURL: String?
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(
        id: UUID, fullName: String? = nil, bio: String? = nil, phone: String? = nil, location: String? = nil,
        avatarURL: String? = nil, createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.id = id
        self.fullName = fullName
        self.bio = bio
        self.phone = phone
        self.location = location
        self.avatarURL = avatarURL
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, bio, phone, location
        case fullName = "full_name"
        case avatarURL = "avatar_url"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// The editable columns, by their Postgres names, for one-field upserts.
    public enum Field: String, Sendable, CaseIterable {
        case fullName = "full_name", bio, phone, location, avatarURL = "avatar_url"
    }
}
