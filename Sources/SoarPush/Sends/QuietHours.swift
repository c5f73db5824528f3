import Foundation
import SoarStore

/// Quiet hours (`quiet_hours`, a table of the app's migrations): a user's local window in which
/// a push waits until it ends.
enum QuietHours {
    struct Window {
        /// Minutes after midnight.
        let start: Int
        let end: Int
        let zone: TimeZone
    }

    /// When the window holding `now` ends, or nil when `now` is outside it (a window whose start
    /// and end are the same holds nothing).
    static func release(_ window: Window, at now: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = window.zone
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let inside = window.start < window.end ? (window.start..<window.end).contains(minute) : window.start > window.end && (minute >= window.start || minute < window.end)
        guard inside else { return nil }
        return LocalTime.next(hour: window.end / 60, minute: window.end % 60, in: window.zone, after: now)
    }

    /// The users in their quiet hours at `now`, each with the end of their window; of `users`
    /// only when given. Empty when the app's schema has no such table.
    static func held(in store: any DataStore, users: [String]?, at now: Date) throws(StoreError) -> [String: Date] {
        guard let table = store.tables["quiet_hours"], let userColumn = table.position(of: "user_id"), let startColumn = table.position(of: "starts_at"),
            let endColumn = table.position(of: "ends_at"), let zoneColumn = table.position(of: "time_zone")
        else { return [:] }
        var query = RowQuery()
        if let users { query.condition = .compare(column: "user_id", op: .in, operand: .list(users.map(SQLValue.text))) }
        var held: [String: Date] = [:]
        for row in try store.select(table, query, as: .service, counting: false).rows {
            guard case .text(let user) = row[userColumn], case .text(let start) = row[startColumn], case .text(let end) = row[endColumn],
                case .text(let zoneName) = row[zoneColumn], let zone = TimeZone(identifier: zoneName), let from = minutes(start), let to = minutes(end),
                let release = release(Window(start: from, end: to, zone: zone), at: now)
            else { continue }
            held[user] = release
        }
        return held
    }

    private static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 ? parts[0] * 60 + parts[1] : nil
    }
}
