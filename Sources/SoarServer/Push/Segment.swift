import Foundation
import SoarPush
import SoarStore

/// A send-push segment: filters of the data API's own syntax on `device_tokens`
/// (`environment=eq.production&app_version=gte.2.0&or=(locale.like.fr*,locale.like.de*)`), read
/// by the same parser as `/rest/v1`, so a segment is written, and fails, as a query does.
///
/// Filters on the app's own user attributes name their table as PostgREST names an embedded
/// resource's: `profiles.plan=eq.pro` keeps the devices whose user has a `profiles` row meeting
/// it, the row joined by its `user_id` column, or by `id` when it has none (as `profiles` keys
/// its rows by the user's id).
enum Segment {
    static func condition(_ filter: String, store: any DataStore) throws(PushError) -> RowQuery.Condition? {
        guard let table = store.tables["device_tokens"] else { throw .invalid("segment: the app's schema has no device_tokens table") }
        guard let items = URLComponents(string: "?" + filter)?.queryItems else { throw .invalid("segment: not a query string: \(filter.prefix(100))") }
        let pairs = items.map { (name: $0.name, value: $0.value ?? "") }
        if let other = pairs.first(where: { ["select", "order", "limit", "offset", "on_conflict", "columns"].contains($0.name) }) {
            throw .invalid("segment: only filters, not \(other.name)")
        }
        // `table.column=…` filters go to that table's row of the device's user.
        var own: [(name: String, value: String)] = []
        var users: [String: [(name: String, value: String)]] = [:]
        for pair in pairs {
            if let dot = pair.name.firstIndex(of: "."), !["or", "and", "not"].contains(String(pair.name[..<dot])) {
                users[String(pair.name[..<dot]), default: []].append((String(pair.name[pair.name.index(after: dot)...]), pair.value))
            } else {
                own.append(pair)
            }
        }
        var conditions: [RowQuery.Condition] = []
        if let devices = try parse(own, on: table) { conditions.append(devices) }
        for (name, filters) in users.sorted(by: { $0.key < $1.key }) {
            guard let related = store.tables[name], name != "device_tokens" else {
                throw .invalid("segment: \(name) is not a table of the app's schema (a user attribute is written table.column, e.g. profiles.plan=eq.pro)")
            }
            guard let key = ["user_id", "id"].first(where: { related.column($0) != nil }) else {
                throw .invalid("segment: \(name) has neither a user_id nor an id column to find a device's user by")
            }
            // The column must hold a user's id (a uuid) for rows to be a user's attributes.
            guard let kind = related.column(key)?.kind, kind == .uuid || kind == .text else {
                throw .invalid("segment: \(name).\(key) holds \(related.column(key)?.type ?? "no") values, not a user's id (a uuid)")
            }
            conditions.append(.related(relation: name, join: [RowQuery.Join(related: key, own: "user_id")], condition: try parse(filters, on: related)))
        }
        return conditions.isEmpty ? nil : conditions.count == 1 ? conditions[0] : .all(conditions)
    }

    private static func parse(_ pairs: [(name: String, value: String)], on table: Table) throws(PushError) -> RowQuery.Condition? {
        guard !pairs.isEmpty else { return nil }
        do {
            return try QueryParser(table: table).parse(pairs).condition
        } catch {
            switch error {
            case .syntax(let message, let details): throw .invalid("segment: \(message)\(details.map { ": \($0)" } ?? "")")
            case .rest(_, _, let message, _): throw .invalid("segment: \(message)")
            case .store(let failure): throw .invalid("segment: \(failure.message)")
            }
        }
    }
}
