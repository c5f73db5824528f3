import Foundation
import SoarCore
import SoarSchema

/// The data API on SQLite: the app's grants and policies (translated from its migrations) are
/// applied here, as Postgres applies its own: grants before any SQL, `USING` in the WHERE clause,
/// `WITH CHECK` on each written row, inside the write's transaction.
extension SQLiteStore {
    public var tables: [String: Table] { schema.withLock { $0 } }

    public func builtIn(_ name: String) -> Table {
        builtIns.withLock { $0[name] } ?? Table(Schema.builtIns.first { $0.name == name }!)
    }

    /// What the data API serves from now on: the model a migration left.
    func load(_ model: Schema) {
        schema.withLock { $0 = Table.all(model) }
        primaryKeyIndexes.withLock { $0 = [:] }
        preparedReads.removeAll()
        insertTexts.removeAll()
        self.model.withLock { $0 = model }
        let builtIns = Dictionary(uniqueKeysWithValues: Schema.builtIns.map { ($0.name, Table(model.relation($0.name) ?? $0, schema: model)) })
        self.builtIns.withLock { $0 = builtIns }
    }

    public func select(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool) throws(StoreError) -> (rows: [StoredRow], total: Int?) {
        let columns = table.columns.map(\.name).filter(query.columnsNamed(in: table).contains)
        let (rows, count) = try selection(table, query, as: access, columns: columns)
        let time = Timestamp.postgres(now())
        return try read { connection throws(StoreError) in
            connection.context.set(access, at: time)
            let read = try connection.statement(rows.text).rows(rows.parameters).map { table.row($0, columns: columns) }
            guard counting else { return (read, nil) }
            return (read, try total(count, on: connection))
        }
    }

    /// The read above without a value made for each cell: SQLite's text goes straight into the
    /// answer (a read of 20 rows spent a fifth of its time making strings and writing them again).
    public func selectJSON(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool, into json: inout JSONText) throws(StoreError) -> (rows: Int, total: Int?)? {
        guard let prepared = try preparedRead(table, query, as: access) else { return nil }
        let (rows, count) = (prepared.rows, prepared.count)
        let time = Timestamp.postgres(now())
        return try read { connection throws(StoreError) in
            connection.context.set(access, at: time)
            let statement = try connection.statement(rows.text)
            var written = 0
            json.beginArray()
            try statement.each(rows.parameters) {
                json.beginObject()
                // By index: a Column copied for each cell would retain its every string.
                for index in prepared.keys.indices {
                    json.key(prepared.keys[index])
                    json.value { statement.writeJSON(index, of: prepared.columns, to: &$0) }
                }
                json.endObject()
                written += 1
            }
            json.endArray()
            return (written, counting ? try total(count, on: connection) : nil)
        }
    }

    /// The read's statements and the keys it answers under; nil when it is not answered straight
    /// as JSON (an embedding). Kept by the query's ``RowQuery/cacheKey`` when it has one.
    private func preparedRead(_ table: Table, _ query: RowQuery, as access: Access) throws(StoreError) -> PreparedRead? {
        // By role too (the policies' SQL is each role's), and the range set after parsing.
        let key = query.cacheKey.map { "\(access.role.rawValue) \(table.identity) \($0) \(query.offset ?? -1):\(query.limit ?? -1)" }
        if let key, let kept = preparedReads[key] { return kept }
        let outputs = query.outputs(of: table.columns.map(\.name))
        guard query.embeddings.isEmpty, !outputs.isEmpty else { return nil }
        var keys: [JSONText.Key] = [], columns: [Column] = []
        for output in outputs {
            guard output.embedding == nil, let column = table.column(output.column) else { return nil }
            keys.append(JSONText.Key(output.key))
            columns.append(column)
        }
        let (rows, count) = try selection(table, query, as: access, columns: outputs.map(\.column))
        let prepared = PreparedRead(keys: keys, columns: columns, rows: rows, count: count)
        if let key { preparedReads.keep(prepared, for: key) }
        return prepared
    }

    /// A read's statements, `columns` in that order, once the caller's grants allow what it names.
    func selection(_ table: Table, _ query: RowQuery, as access: Access, columns: [String]) throws(StoreError) -> (rows: SQLStatement, count: SQLStatement) {
        let named = table.columns.map(\.name).filter(query.columnsNamed(in: table).contains)
        let rules = try require(.select, on: table, access, columns: named)
        let hint = rules.source == DataSQL.quote(table.name) ? try keyLookup(table, query) : ""
        // The other tables are looked up only for an `!inner` embedding's subquery, built-in ones
        // (storage's buckets) under their own policies as the app's are.
        let sql = DataSQL(table, .sqlite, rules: rules, source: hint.isEmpty ? nil : rules.source + hint) { [self] name in
            let related = tables[name] ?? builtIns.withLock { $0[name] }
            return (try? related?.rules(for: access).rows) ?? "(SELECT * FROM \(DataSQL.quote(name)) WHERE 0)"
        }
        return DataSQL.select(sql, query, columns: columns)
    }

    /// A read of listed keys (`id=in.(…)`, realtime's reads of changed rows) walks the primary key
    /// whatever the statistics say. With an owner policy the planner may instead walk the owner's
    /// rows by `user_id` when it counts few rows an owner: a sample of an index's first rows once
    /// counted a user with 60,000 todos as 1,001, and a read of 400 of them walked all 60,000.
    private func keyLookup(_ table: Table, _ query: RowQuery) throws(StoreError) -> String {
        // Listed rowids (realtime's reads of changed rows) are looked up by rowid.
        if table.column("rowid") == nil, query.condition?.listsValues(of: "rowid") == true { return " NOT INDEXED" }
        guard table.primaryKey.count == 1, query.condition?.listsValues(of: table.primaryKey[0]) == true else { return "" }
        let index: String?
        if let cached = primaryKeyIndexes.withLock({ $0[table.name] }) {
            index = cached
        } else {
            index = try read { connection throws(StoreError) in
                try connection.rows("SELECT name FROM pragma_index_list($1) WHERE origin = 'pk'", [.text(table.name)]).first?.first?.text
            }
            primaryKeyIndexes.withLock { $0[table.name] = .some(index) }
        }
        // No index of its own: the key is the rowid (INTEGER PRIMARY KEY), looked up without one.
        return index.map { " INDEXED BY " + DataSQL.quote($0) } ?? " NOT INDEXED"
    }

    private func total(_ count: SQLStatement, on connection: SQLiteConnection) throws(StoreError) -> Int {
        guard case .integer(let total) = try connection.statement(count.text).rows(count.parameters).first?.first else { return 0 }
        return Int(total)
    }

    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        try write(try insertion(table, rows, onConflict: onConflict, as: access, single: single, returning: returning))
    }

    /// Queued for the writer thread, which calls `completion` after the commit (or calls it here
    /// at once when the rows are refused before any SQL runs).
    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool,
        completion: @escaping @Sendable (Result<[StoredRow], StoreError>) -> Void
    ) {
        let body: (SQLiteConnection) throws(StoreError) -> [StoredRow]
        do { body = try insertion(table, rows, onConflict: onConflict, as: access, single: single, returning: returning) } catch {
            completion(.failure(error))
            return
        }
        writer.enqueue({ connection throws(StoreError) in
            defer { connection.context.set(nil, at: nil) }
            return try body(connection)
        }, completion: completion)
    }

    /// An insert's statements, checked, as a write to run on the writer connection.
    private func insertion(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> (SQLiteConnection) throws(StoreError) -> [StoredRow] {
        let rules = try require(.insert, on: table, access)
        if case .merge = onConflict { _ = try require(.update, on: table, access, columns: rows.first.map { Array($0.keys) } ?? []) }
        // No policy lets this role insert: refused before any column is looked at, as Postgres's RLS does.
        guard table.relation.mayReachAnyRow(.insert, role: access.role.rawValue) else { throw .rowSecurity(table.name) }
        let time = Timestamp.postgres(now())
        let statements = rows.map { row in
            // The text is kept by the insert's shape; only the values change from one to the next.
            let key = "\(access.role.rawValue) \(table.identity) " + DataSQL.insertShape(table, row, onConflict: onConflict, returning: returning)
            if let kept = insertTexts[key] {
                return SQLStatement(text: kept.text, parameters: DataSQL.insertParameters(table, row, onConflict: onConflict, time: time), checked: kept.checked)
            }
            let statement = DataSQL.insert(DataSQL(table, .sqlite, rules: rules), row, onConflict: onConflict, time: time, returning: returning)
            insertTexts.keep((statement.text, statement.checked), for: key)
            return statement
        }
        let ignoring = if case .ignore = onConflict { true } else { false }
        return { connection throws(StoreError) in
            connection.context.set(access, at: time)
            var written: [StoredRow] = []
            for statement in statements {
                let returned = try Self.run(statement, table, on: connection)
                // Nothing written and no conflict to ignore: the UPDATE policies kept the existing row.
                if returned.isEmpty && !ignoring { throw StoreError.rowSecurity(table.name) }
                written += returned
            }
            return try StoreError.requireOneRow(returning ? written : written.map { _ in [] }, if: single)
        }
    }

    public func update(
        _ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        let rules = try require(.update, on: table, access, columns: Array(values.keys))
        var values = values
        let time = Timestamp.postgres(now())
        for column in table.columns where column.touchedOnUpdate && values[column.name] == nil { values[column.name] = .text(time) }
        guard let statement = DataSQL.update(DataSQL(table, .sqlite, rules: rules), set: values, where: condition, returning: returning) else { return [] }
        return try write { connection throws(StoreError) in
            connection.context.set(access, at: time)
            let rows = try StoreError.requireOneRow(try Self.run(statement, table, on: connection), if: single)
            return returning ? rows : rows.map { _ in [] }
        }
    }

    public func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        let statement = DataSQL.delete(DataSQL(table, .sqlite, rules: try require(.delete, on: table, access)), where: condition)
        let time = Timestamp.postgres(now())
        return try write { connection throws(StoreError) in
            connection.context.set(access, at: time)
            return try StoreError.requireOneRow(try Self.run(statement, table, on: connection), if: single)
        }
    }

    /// The grants: a role does only what it was granted (42501 before any SQL, as Postgres).
    ///
    /// - Returns: the caller's row-level security on the table.
    @discardableResult
    private func require(_ command: Policy.Command, on table: Table, _ access: Access, columns: [String] = []) throws(StoreError) -> Table.Rules {
        let held = table.relation.grants[access.role.rawValue] ?? Privileges()
        let allowed = switch command {
        case .select: held.mayRead(columns)
        case .insert: held.insert
        case .update: held.mayUpdate(columns)
        case .delete: held.delete
        case .all: false
        }
        if !allowed { throw .permissionDenied(table.name) }
        if table.isView && command != .select { throw StoreError(code: "55000", message: "cannot change view \"\(table.name)\" on SQLite") }
        return try table.rules(for: access)
    }

    /// A write's rows, without their check column: 42501 when a row fails the policies' check.
    /// SQLite names no table in a CHECK constraint's failure; Postgres's message does.
    private static func run(_ statement: SQLStatement, _ table: Table, on connection: SQLiteConnection) throws(StoreError) -> [StoredRow] {
        let rows: [[SQLValue]]
        do { rows = try connection.statement(statement.text).rows(statement.parameters) } catch {
            guard error.code == "23514", let name = error.message.split(separator: "\"").dropFirst().first else { throw error }
            throw StoreError(code: "23514", message: "new row for relation \"\(table.name)\" violates check constraint \"\(name)\"")
        }
        guard statement.checked else { return rows }
        for row in rows where row.last != .integer(1) { throw StoreError.rowSecurity(table.name) }
        return rows.map { Array($0.dropLast()) }
    }
}

/// A data API read written as SQL: its columns and the JSON keys they answer under, its rows' and
/// its count's statements.
struct PreparedRead: Sendable {
    let keys: [JSONText.Key]
    let columns: [Column]
    let rows: SQLStatement
    let count: SQLStatement
}
