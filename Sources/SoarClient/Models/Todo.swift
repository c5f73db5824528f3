import Foundation
import SoarCore

/// A row of `todos`, owned by `user_id`.
public struct Todo: Codable, Hashable, Identifiable, Sendable {
    public var id: UUID
    public var userId: UUID
    public var title: String
    public var completed: Bool
    public var sortOrder: Int
    public var createdAt: Date?
    public var updatedAt: Date?

    public init(
        id: UUID = UUID(), userId: UUID, title: String, completed: Bool = false, sortOrder: Int = 0,
        createdAt: Date? = nil, updatedAt: Date? = nil
    ) {
        self.id = id
        self.userId = userId
        self.title = title
        self.completed = completed
        self.sortOrder = sortOrder
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, title, completed
        case userId = "user_id"
        case sortOrder = "sort_order"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
