import SoarCore
import SoarStore

/// The server-side inbox: every notification sent to a user is kept as one row of
/// `notifications` (readable by its owner through the data API, newest first by `created_at`),
/// capped per user. The payload carries the row's id as `soar_id`, so the app can mark it opened.
struct Inbox: Sendable {
    let store: any DataStore & PushJobStore
    /// Rows kept per user; older ones go.
    let keep: Int
    private var table: Table { AppTables.notifications }

    /// Adds one row per user for `payload` and returns each user's row id.
    func add(_ payload: Payload, for users: [String], sendID: String?) throws(StoreError) -> [String: String] {
        guard !users.isEmpty else { return [:] }
        let content: AlertContent? = if case .content(let content)? = payload.aps.alert { content } else { nil }
        let text: String? = if case .text(let text)? = payload.aps.alert { text } else { nil }
        var ids: [String: String] = [:]
        var rows: [RowValues] = []
        for user in users {
            let id = RandomUUID.lowercase()
            ids[user] = id
            var marked = payload
            marked.custom[Self.idKey] = .string(id)
            rows.append([
                "id": .text(id), "user_id": .text(user), "payload": .text(JSONValue.object(marked.object).jsonText),
                "title": Self.value(content?.fields["title"]?.stringValue), "body": Self.value(content?.fields["body"]?.stringValue ?? text),
                "send_id": Self.value(sendID),
            ])
        }
        _ = try store.insert(table, rows, onConflict: nil, as: .service)
        try store.trimInbox(userIDs: users, keep: keep)
        return ids
    }

    func unreadCounts(_ users: [String]) throws(StoreError) -> [String: Int] {
        try store.unreadCounts(userIDs: users)
    }

    /// The payload key that carries the inbox row's id.
    static let idKey = "soar_id"

    private static func value(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
}
