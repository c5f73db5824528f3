import Foundation
import SoarCore

/// Which kinds of notification the user receives: rows of `notification_preferences` (the
/// starter's), which the server reads before it sends. A kind without a row is on.
public protocol NotificationPreferencesRepositoryProtocol: Sendable {
    /// The kinds the user turned off or on, by kind.
    func load(userId: UUID) async -> AppResult<[String: Bool]>
    func set(_ kind: String, enabled: Bool, userId: UUID) async -> AppResult<Void>
}

public struct NotificationPreferencesRepository: NotificationPreferencesRepositoryProtocol {
    private let client: Soar

    public init(client: Soar) {
        self.client = client
    }

    private struct Row: Codable {
        let kind: String
        let enabled: Bool
    }

    public func load(userId: UUID) async -> AppResult<[String: Bool]> {
        await AppResult {
            let rows: [Row] = try await client.from("notification_preferences").select("kind,enabled").eq("user_id", value: userId).execute().value
            return Dictionary(rows.map { ($0.kind, $0.enabled) }, uniquingKeysWith: { _, last in last })
        }
    }

    public func set(_ kind: String, enabled: Bool, userId: UUID) async -> AppResult<Void> {
        await AppResult {
            let row: [String: JSONValue] = [
                "user_id": .string(userId.uuidString.lowercased()), "kind": .string(kind), "enabled": .bool(enabled),
                "updated_at": .string(Timestamp.format(Date())),
            ]
            try await client.from("notification_preferences").upsert(row, onConflict: "user_id,kind").execute()
        }
    }
}
