import Foundation
import SoarCore
import SoarSchema

/// The data API on SQLite: the app's grants and policies (translated from its migrations) are
/// applied here, as Postgres applies its own: grants before any SQL, `USING` in the WHERE clause,
/// `WITH CHECK` on each written row, inside the write's transaction.
extension SQLiteStore {
    public var tables: [String: Table] { schema.withLock { $0 } }

    public func select(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool) throws(StoreError) -> (rows: [StoredRow], total: Int?) {
        // The other tables are looked up only for an `!inner` embedding's subquery.
        var sql = SQLiteSQL(table, try require(.select, on: table, access, columns: Array(query.columnsNamed(in: table)))) { [self] name in
            (try? tables[name]?.rules(for: access).rows) ?? "(SELECT * FROM \(SQLiteSQL.quote(name)) WHERE 0)"
        }
        let filter = sql.whereClause(query.condition, .select)
        let filterParameters = sql.parameters
        var text = "SELECT \(sql.allColumns) FROM \(sql.source)\(filter)\(sql.orderClause(query.order))"
        if query.limit != nil || query.offset != nil {
            text += " LIMIT \(sql.bind(.integer(Int64(query.limit ?? -1)))) OFFSET \(sql.bind(.integer(Int64(query.offset ?? 0))))"
        }
        let parameters = sql.parameters
        let time = Timestamp.postgres(now())
        return try read { connection throws(StoreError) in
            connection.context.set(access, at: time)
            let rows = try connection.statement(text).rows(parameters)
            guard counting else { return (rows, nil) }
            let counted = try connection.statement("SELECT count(*) FROM \(sql.source)\(filter)").rows(filterParameters)
            guard case .integer(let total) = counted.first?.first else { return (rows, 0) }
            return (rows, Int(total))
        }
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
        var statements: [(String, [SQLValue])] = []
        let merging = if case .merge = onConflict { true } else { false }
        // Rows that come back must also be rows the caller may read (Postgres's RETURNING rule).
        let check = SQLiteSQL(table, rules).checkColumn(merging ? [.insert, .update] : [.insert], readable: returning)
        for values in rows {
            var sql = SQLiteSQL(table, rules)
            let names = table.columns.map(\.name).filter { values[$0] != nil }
            var text = "INSERT INTO \(sql.tableName) "
            text += names.isEmpty ? "DEFAULT VALUES" : "(\(names.map(SQLiteSQL.quote).joined(separator: ", "))) VALUES (" + names.map { sql.bind(values[$0]!) }.joined(separator: ", ") + ")"
            switch onConflict {
            case nil: break
            case .ignore(let columns):
                text += " ON CONFLICT (\(columns.map(SQLiteSQL.quote).joined(separator: ", "))) DO NOTHING"
            case .merge(let columns):
                let touched = table.columns.filter { $0.touchedOnUpdate && values[$0.name] == nil }.map(\.name)
                var assignments = names.filter { !columns.contains($0) }.map { "\(SQLiteSQL.quote($0)) = excluded.\(SQLiteSQL.quote($0))" }
                assignments += touched.map { "\(SQLiteSQL.quote($0)) = \(sql.bind(.text(time)))" }
                // Nothing to change, but the existing row is still "written": touch its key.
                if assignments.isEmpty { assignments = ["\(SQLiteSQL.quote(columns[0])) = excluded.\(SQLiteSQL.quote(columns[0]))"] }
                text += " ON CONFLICT (\(columns.map(SQLiteSQL.quote).joined(separator: ", "))) DO UPDATE SET " + assignments.joined(separator: ", ")
                // The update policies' USING side: an existing row the caller may not change is not
                // updated (and is an error below).
                let using = [rules.filters[.update], rules.filters[.select]].compactMap { $0 }
                if !using.isEmpty { text += " WHERE " + using.map { "(\($0))" }.joined(separator: " AND ") }
            }
            text += " RETURNING \(sql.allColumns)" + (check.map { ", \($0)" } ?? "")
            statements.append((text, sql.parameters))
        }
        let ignoring = if case .ignore = onConflict { true } else { false }
        return { connection throws(StoreError) in
            connection.context.set(access, at: time)
            var written: [StoredRow] = []
            for (text, parameters) in statements {
                let returned = try Self.relabeled(table) { () throws(StoreError) in try connection.statement(text).rows(parameters) }
                if returned.isEmpty && !ignoring { throw StoreError.rowSecurity(table.name) }
                written += try Self.checked(returned, table, check != nil)
            }
            if !returning { written = written.map { _ in [] } }
            try StoreError.requireOneRow(written, if: single)
            return written
        }
    }

    public func update(
        _ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        let rules = try require(.update, on: table, access, columns: Array(values.keys))
        var values = values
        let time = Timestamp.postgres(now())
        for column in table.columns where column.touchedOnUpdate && values[column.name] == nil { values[column.name] = .text(time) }
        var sql = SQLiteSQL(table, rules)
        let names = table.columns.map(\.name).filter { values[$0] != nil }
        guard !names.isEmpty else { return [] }
        var text = "UPDATE \(sql.tableName) SET " + names.map { "\(SQLiteSQL.quote($0)) = \(sql.bind(values[$0]!))" }.joined(separator: ", ")
        let check = sql.checkColumn([.update], readable: returning)
        text += sql.whereClause(condition, .update) + " RETURNING \(sql.allColumns)" + (check.map { ", \($0)" } ?? "")
        let parameters = sql.parameters
        return try write { connection throws(StoreError) in
            connection.context.set(access, at: time)
            let rows = try Self.checked(try Self.relabeled(table) { () throws(StoreError) in try connection.statement(text).rows(parameters) }, table, check != nil)
            try StoreError.requireOneRow(rows, if: single)
            return returning ? rows : rows.map { _ in [] }
        }
    }

    public func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        var sql = SQLiteSQL(table, try require(.delete, on: table, access))
        let text = "DELETE FROM \(sql.tableName)\(sql.whereClause(condition, .delete)) RETURNING \(sql.allColumns)"
        let parameters = sql.parameters
        let time = Timestamp.postgres(now())
        return try write { connection throws(StoreError) in
            connection.context.set(access, at: time)
            let rows = try connection.statement(text).rows(parameters)
            try StoreError.requireOneRow(rows, if: single)
            return rows
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

    /// Rows as returned, without their check column; 42501 when a row fails the policies' check.
    private static func checked(_ rows: [[SQLValue]], _ table: Table, _ hasCheck: Bool) throws(StoreError) -> [StoredRow] {
        guard hasCheck else { return rows }
        for row in rows where row.last != .integer(1) { throw StoreError.rowSecurity(table.name) }
        return rows.map { Array($0.dropLast()) }
    }

    /// SQLite names no table in a check's failure: Postgres's message does.
    private static func relabeled<T>(_ table: Table, _ work: () throws(StoreError) -> T) throws(StoreError) -> T {
        do { return try work() } catch {
            guard error.code == "23514", let name = error.message.split(separator: "\"").dropFirst().first else { throw error }
            throw StoreError(code: "23514", message: "new row for relation \"\(table.name)\" violates check constraint \"\(name)\"")
        }
    }
}
