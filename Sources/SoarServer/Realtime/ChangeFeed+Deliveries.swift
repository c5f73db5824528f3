import Foundation
import SoarCore
import SoarHTTP
import SoarRealtime
import SoarSchema
import SoarStore

/// A batch of changes to each subscription: which of its rows each follower may see, read once a
/// batch as the service role to choose and once as the follower under its grants and policies.
extension ChangeFeed {
    /// What one batch of changes reads, once for every subscription: the schema, each table's
    /// changed rows as the service role (one `in.(...)` query a table), by key and by the value of
    /// a column that `eq` filters name, and each table's columns.
    struct BatchReads {
        let changes: [RowChange]
        let tables: [String: Table]
        /// The tables the batch touches, and whether it deletes from each.
        let touched: [String: Bool]
        var service: [String: [String: JSONValue]] = [:]
        /// `table`, `column` → the column's value (as text) → the keys of the rows holding it.
        var byValue: [String: [String: Set<String>]] = [:]
        /// `table`, `type` → the keys (as text) the batch inserted or updated.
        var keysByType: [String: Set<String>] = [:]
        /// `table` → a changed row's key as text → the key's value.
        var keyValues: [String: [String: JSONValue]] = [:]
        /// `table` → a changed row's key as text → its rowid, where the log gives it (SQLite).
        var rowids: [String: [String: Int64]] = [:]
        /// By table, its `columns` list as JSON (the same in every change of it).
        var columns: [String: [UInt8]] = [:]
        /// A read failed for a reason of the store's (not the caller's rights).
        var failed = false
        /// By table, the columns the subscriptions' filters name.
        let filtered: [String: Set<String>]

        init(changes: [RowChange], tables: [String: Table], subscriptions: [ChangeSubscription]) {
            self.changes = changes
            self.tables = tables
            var filtered: [String: Set<String>] = [:]
            for binding in subscriptions.flatMap(\.bindings) {
                guard let column = binding.filterParameter?.name else { continue }
                for table in binding.table.map({ [$0] }) ?? Array(tables.keys) { filtered[table, default: []].insert(column) }
            }
            self.filtered = filtered
            var touched: [String: Bool] = [:]
            for change in changes { touched[change.table] = (touched[change.table] ?? false) || change.type == "DELETE" }
            self.touched = touched
        }
    }

    /// A batch's changes for one subscription, in order: each binding's rows read once as the
    /// subscriber (one `in.(...)` query), the right to read a table checked once for deletes.
    /// Tables with a composite key are read a change at a time. A subscription none of whose
    /// bindings can see anything of the batch costs a lookup a binding, not a look at each change.
    func deliveries(_ batch: [RowChange], to subscription: ChangeSubscription, reads: inout BatchReads) -> [(payload: [UInt8], key: SubscriptionKey)] {
        var candidates: [String: Set<String>] = [:]
        var relevant = false
        for binding in subscription.bindings {
            for name in binding.table.map({ [$0] }) ?? Array(reads.touched.keys) {
                guard let deletes = reads.touched[name], let table = reads.tables[name] else { continue }
                if table.primaryKey.count == 1 {
                    // The inserts and updates beside a batch's deletes are chosen as without them.
                    let keys = self.candidates(name, key: table.primaryKey[0], binding: binding, reads: &reads)
                    candidates[Self.slot(name, String(binding.id))] = keys
                    relevant = relevant || deletes || !keys.isEmpty
                } else {
                    relevant = true
                }
            }
        }
        guard relevant else { return [] }
        var out: [(payload: [UInt8], key: SubscriptionKey)] = []
        var visible: [String: [String: JSONValue]] = [:]
        var readable: [String: Bool] = [:]
        for change in batch {
            let bindings = subscription.bindings.filter { $0.matches(table: change.table, type: change.type) }
            guard !bindings.isEmpty, let table = reads.tables[change.table] else { continue }
            var ids: [Int] = []
            var record: JSONValue?
            if change.type == "DELETE" {
                // Gone: only its key, to those who may read the table (a filter cannot be checked).
                let allowed = readable[change.table] ?? {
                    let allowed = read(change.table, [("select", "*"), ("limit", "0")], as: subscription.identity, reads: &reads).status == 200
                    readable[change.table] = allowed
                    return allowed
                }()
                guard allowed else { continue }
                ids = bindings.map(\.id)
            } else {
                for binding in bindings {
                    let found: JSONValue?
                    if table.primaryKey.count == 1 {
                        let key = table.primaryKey[0]
                        let slot = Self.slot(change.table, String(binding.id))
                        if visible[slot] == nil {
                            visible[slot] = rows(change.table, key: key, candidates: candidates[slot] ?? [], binding: binding, as: subscription.identity, reads: &reads)
                        }
                        found = change.key[key].flatMap { visible[slot]?[Self.text($0)] }
                    } else {
                        var query = [("select", "*")] + change.key.map { ($0.key, "eq." + Self.text($0.value)) }
                        if let filter = binding.filterParameter { query.append(filter) }
                        found = read(change.table, query, as: subscription.identity, reads: &reads).rows.first
                    }
                    guard let found else { continue }
                    record = found
                    ids.append(binding.id)
                }
                guard record != nil else { continue }
            }
            guard !ids.isEmpty else { continue }
            let columns = reads.columns[change.table] ?? {
                let made = JSONValue.array(table.columns.map { ["name": .string($0.name), "type": .string($0.type)] }).jsonBytes
                reads.columns[change.table] = made
                return made
            }()
            out.append((Self.payload(change, ids: ids, columns: columns, record: record, table: table), subscription.key))
        }
        return out
    }

    /// A change as Supabase's Realtime sends it, `{"ids": [...], "data": {...}}`, written as JSON
    /// once here rather than kept as values and written on the realtime loop: the record's fields
    /// in the table's order, `old_record` the key (for an update or a delete).
    static func payload(_ change: RowChange, ids: [Int], columns: [UInt8], record: JSONValue?, table: Table) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(columns.count + 512)
        out.append(contentsOf: #"{"ids":["#.utf8)
        out.append(contentsOf: ids.map(String.init).joined(separator: ",").utf8)
        out.append(contentsOf: #"],"data":{"schema":"public","table":"#.utf8)
        JSONValue.string(change.table).write(to: &out)
        out.append(contentsOf: #","commit_timestamp":"#.utf8)
        JSONValue.string(change.at).write(to: &out)
        out.append(contentsOf: #","type":"#.utf8)
        JSONValue.string(change.type).write(to: &out)
        out.append(contentsOf: #","columns":"#.utf8)
        out.append(contentsOf: columns)
        out.append(contentsOf: #","errors":null"#.utf8)
        if let fields = record?.objectValue {
            out.append(contentsOf: #","record":{"#.utf8)
            var first = true
            for column in table.columns {
                guard let value = fields[column.name] else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                JSONValue.string(column.name).write(to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        if change.type != "INSERT" {
            out.append(contentsOf: #","old_record":"#.utf8)
            JSONValue.object(change.key).write(to: &out)
        }
        out.append(contentsOf: "}}".utf8)
        return out
    }

    private static func slot(_ a: String, _ b: String) -> String { a + "\u{0}" + b }

    /// The keys of the batch's rows of `table` (its key column `key`) that `binding` may deliver:
    /// inserted or updated as its event says, and whose current row, read once as the service
    /// role, meets its filter (looked up by value for `eq` on text, the common `user_id=eq.<id>`).
    private func candidates(_ table: String, key: String, binding: ChangeBinding, reads: inout BatchReads) -> Set<String> {
        if reads.service[table] == nil {
            var keys: [String: JSONValue] = [:]
            for change in reads.changes where change.table == table && change.type != "DELETE" {
                guard let value = change.key[key] else { continue }
                let text = Self.text(value)
                keys[text] = value
                if let rowid = change.rowid { reads.rowids[table, default: [:]][text] = rowid }
                reads.keysByType[Self.slot(table, change.type), default: []].insert(text)
            }
            // Only what choosing needs: the key and the columns filters name.
            let named = [key] + (reads.filtered[table] ?? []).filter { $0 != key && reads.tables[table]?.column($0) != nil }.sorted()
            reads.keyValues[table] = keys
            let rows = select(table, columns: named, key: key, in: Array(keys.keys), as: RealtimeIdentity(role: "service_role"), reads: &reads)
            reads.service[table] = Dictionary(rows.compactMap { row in row.objectValue?[key].map { (Self.text($0), row) } }, uniquingKeysWith: { first, _ in first })
        }
        let current = reads.service[table] ?? [:]
        var keys: Set<String>
        if let filter = binding.filterParameter {
            let wanted = filter.value.dropFirst(3)
            if filter.value.hasPrefix("eq."), Double(wanted) == nil {
                // Text compared with text: equal exactly when the texts are (``passes(_:_:)``).
                let slot = Self.slot(table, filter.name)
                if reads.byValue[slot] == nil {
                    var index: [String: Set<String>] = [:]
                    for (keyText, row) in current {
                        guard let value = row.objectValue?[filter.name], value != .null else { continue }
                        index[Self.text(value), default: []].insert(keyText)
                    }
                    reads.byValue[slot] = index
                }
                keys = reads.byValue[slot]?[String(wanted)] ?? []
            } else {
                keys = Set(current.filter { Self.passes($0.value, filter) }.keys)
            }
        } else {
            keys = Set(current.keys)
        }
        if binding.event != "*" { keys.formIntersection(reads.keysByType[Self.slot(table, binding.event)] ?? []) }
        return keys
    }

    /// The rows of `table` with the `candidates` keys that `binding` may deliver, read as the
    /// subscriber (its grants, policies and filter), by key.
    private func rows(
        _ table: String, key: String, candidates: Set<String>, binding: ChangeBinding, as identity: RealtimeIdentity, reads: inout BatchReads
    ) -> [String: JSONValue] {
        guard !candidates.isEmpty else { return [:] }
        let rows = select(table, key: key, in: Array(candidates), filter: binding.filterParameter, as: identity, reads: &reads)
        return Dictionary(rows.compactMap { row in row.objectValue?[key].map { (Self.text($0), row) } }, uniquingKeysWith: { first, _ in first })
    }

    /// A batch's read of the rows of `name` whose `key` is one of `keys` (as text; and that meet
    /// `filter`), as `identity`: through the store as the data API reads them (the same grants,
    /// policies and rendering of each value as `select=*`), the key list handed over as values
    /// rather than written out as PostgREST's `in.(...)` and parsed back. `columns` nil reads them
    /// all. Rows the caller may not read are none; a failure of the store's marks the batch failed.
    private func select(
        _ name: String, columns: [String]? = nil, key: String, in keys: [String], filter: (name: String, value: String)? = nil,
        as identity: RealtimeIdentity, reads: inout BatchReads
    ) -> [JSONValue] {
        guard let table = reads.tables[name], let keyColumn = table.column(key) else { return [] }
        let access = Access(role: Access.Role(rawValue: identity.role) ?? .anon, userID: identity.userID)
        do {
            var query = try filter.map { try QueryParser(table: table).parse([$0]) } ?? RowQuery()
            let rowids = keys.compactMap { reads.rowids[name]?[$0] }
            // By rowid where the log gave every one (SQLite): the rows written last sit together at
            // the end of the table, where the key's index spreads random keys over many pages.
            let byKey: RowQuery.Condition = rowids.count == keys.count && table.column("rowid") == nil
                ? .compare(column: "rowid", op: .in, operand: .list(rowids.map(SQLValue.integer)))
                : .compare(column: key, op: .in, operand: .list(try keys.compactMap { reads.keyValues[name]?[$0] }.map { value throws(StoreError) in try keyColumn.storable(value) }))
            query.condition = query.condition.map { .all([byKey, $0]) } ?? byKey
            if let columns { query.outputs = columns.map { RowQuery.Output(column: $0, key: $0) } }
            let named = Set(query.outputs(of: table.columns.map(\.name)).map(\.column))
            let indices = table.columns.indices.filter { named.contains(table.columns[$0].name) }
            return try store.select(table, query, as: access, counting: false).rows.map { row in
                .object(Dictionary(uniqueKeysWithValues: indices.map { (table.columns[$0].name, table.columns[$0].json(row[$0])) }))
            }
        } catch let error as StoreError {
            if ServerError.store(error, role: access.role).status >= 500 { reads.failed = true }
            return []
        } catch {
            return []
        }
    }

    /// A batch's read: as ``read(_:_:as:)``, marking the batch failed when the store failed it.
    private func read(_ table: String, _ query: [(String, String)], as identity: RealtimeIdentity, reads: inout BatchReads) -> (status: Int, rows: [JSONValue], message: String) {
        let answer = read(table, query, as: identity)
        if answer.status >= 500 { reads.failed = true }
        return answer
    }

    /// A data API read of `table` as `identity`: the status, the rows, and the error's message.
    func read(_ table: String, _ query: [(String, String)], as identity: RealtimeIdentity) -> (status: Int, rows: [JSONValue], message: String) {
        var exchange = Exchange(
            request: HTTPRequest(method: "GET", path: "/rest/v1/" + table, query: query.map { (name: $0.0, value: $0.1) }), requestID: "realtime")
        exchange.parameters["table"] = table
        exchange.access = Access(role: Access.Role(rawValue: identity.role) ?? .anon, userID: identity.userID)
        do {
            let response = try rest.handle(&exchange)
            return (response.status, (try? JSONValue.read(response.body))?.arrayValue ?? [], "")
        } catch {
            let body = error.response(to: exchange.request).body
            let message = (try? JSONValue.read(body))?.objectValue?["message"]?.stringValue ?? error.code
            return (error.status, [], message)
        }
    }

    /// Whether `row` meets a binding's filter (`column`, `op.value`), as Postgres would compare.
    static func passes(_ row: JSONValue, _ filter: (name: String, value: String)) -> Bool {
        guard let dot = filter.value.firstIndex(of: ".") else { return true }
        let op = String(filter.value[..<dot])
        let wanted = String(filter.value[filter.value.index(after: dot)...])
        let value = row.objectValue?[filter.name] ?? .null
        if case .null = value { return false }
        func compare(_ other: String) -> Int {
            if let a = value.doubleValue ?? Double(text(value)), let b = Double(other) { return a < b ? -1 : (a > b ? 1 : 0) }
            let a = text(value)
            return a < other ? -1 : (a > other ? 1 : 0)
        }
        switch op {
        case "eq": return compare(wanted) == 0
        case "neq": return compare(wanted) != 0
        case "lt": return compare(wanted) < 0
        case "lte": return compare(wanted) <= 0
        case "gt": return compare(wanted) > 0
        case "gte": return compare(wanted) >= 0
        case "in":
            let items = wanted.trimmingCharacters(in: CharacterSet(charactersIn: "()")).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return items.contains { compare($0) == 0 }
        default: return true
        }
    }

    private static func text(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): text
        default: value.jsonText
        }
    }
}
