import Foundation
import SoarCore

/// The server's copy of the inbox (`notifications`): read it, report reads and opens.
public protocol InboxSyncing: Sendable {
    /// The newest entries, at most ``Inbox/capacity``.
    func fetch() async throws(AppError) -> [InboxEntry]
    func markRead(_ id: String, at date: Date) async throws(AppError)
    func markOpened(_ id: String, at date: Date) async throws(AppError)
}

/// ``InboxSyncing`` through the data API, as the signed-in user (the server keeps owners apart).
public struct ServerInbox: InboxSyncing {
    private let client: Soar

    public init(client: Soar) {
        self.client = client
    }

    private struct Row: Decodable {
        var id: String
        var title: String?
        var body: String?
        var payload: [String: JSONValue]?
        var createdAt: Date
        var readAt: Date?
        var openedAt: Date?

        enum CodingKeys: String, CodingKey {
            case id, title, body, payload
            case createdAt = "created_at"
            case readAt = "read_at"
            case openedAt = "opened_at"
        }
    }

    public func fetch() async throws(AppError) -> [InboxEntry] {
        let rows: [Row] = try await client.from("notifications").select().order("created_at", ascending: false).limit(Inbox.capacity).execute().value
        return rows.map(Self.entry)
    }

    /// A `notifications` row (as a realtime change carries it) as an inbox entry; nil when it is not one.
    public static func entry(_ record: JSONValue) -> InboxEntry? {
        (try? JSONCoding.decode(Row.self, from: record.jsonData)).map(entry)
    }

    private static func entry(_ row: Row) -> InboxEntry {
        InboxEntry(
            id: row.id, title: row.title, body: row.body, data: row.payload ?? [:], receivedAt: row.createdAt,
            isRead: row.readAt != nil || row.openedAt != nil, isOnServer: true)
    }

    public func markRead(_ id: String, at date: Date) async throws(AppError) {
        try await client.from("notifications").update(["read_at": Timestamp.format(date)]).eq("id", value: id).execute()
    }

    public func markOpened(_ id: String, at date: Date) async throws(AppError) {
        let now = Timestamp.format(date)
        try await client.from("notifications").update(["opened_at": now, "read_at": now]).eq("id", value: id).execute()
    }
}
