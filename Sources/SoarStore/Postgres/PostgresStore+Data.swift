import Foundation
import SoarCore

/// The data API on Postgres. The statements carry no ownership condition: each runs as the
/// caller's role with the caller's claims, and the tables' policies decide what it reaches.
extension PostgresStore {
    public var tables: [String: Table] { schema.withLock { $0 } }

    public func select(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool) throws(StoreError) -> (rows: [StoredRow], total: Int?) {
        var sql = PostgresSQL(table)
        let filter = sql.whereClause(query.condition)
        let filterParameters = sql.parameters
        // Only the columns the request names, so column-level grants answer as PostgREST's do.
        let named = query.columnsNamed(in: table)
        let columns = table.columns.map(\.name).filter(named.contains)
        let list = columns.isEmpty ? "1" : columns.map(PostgresSQL.quote).joined(separator: ", ")
        var text = "SELECT \(list) FROM \(sql.tableName)\(filter)\(sql.orderClause(query.order))"
        if let limit = query.limit { text += " LIMIT \(sql.bind(.integer(Int64(limit))))" }
        if let offset = query.offset { text += " OFFSET \(sql.bind(.integer(Int64(offset))))" }
        let parameters = sql.parameters
        return try transaction(as: access) { connection throws(StoreError) in
            let rows = try connection.query(text, parameters).map { sql.row($0, columns: columns) }
            guard counting else { return (rows, nil) }
            let counted = try connection.query("SELECT count(*) FROM \(sql.tableName)\(filter)", filterParameters)
            return (rows, Int(counted.first?.first.flatMap { $0 } ?? "0") ?? 0)
        }
    }

    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        let time = Timestamp.postgres(now())
        var statements: [(String, [String?])] = []
        for values in rows {
            // Columns left out get the table's defaults from Postgres itself (`auth.uid()`, `now()`…).
            var sql = PostgresSQL(table)
            let names = table.columns.map(\.name).filter { values[$0] != nil }
            var text = "INSERT INTO \(sql.tableName) "
            text += names.isEmpty ? "DEFAULT VALUES" : "(\(names.map(PostgresSQL.quote).joined(separator: ", "))) VALUES (" + names.map { sql.bind(values[$0]!) }.joined(separator: ", ") + ")"
            switch onConflict {
            case nil: break
            case .ignore(let columns):
                text += " ON CONFLICT (\(columns.map(PostgresSQL.quote).joined(separator: ", "))) DO NOTHING"
            case .merge(let columns):
                let touched = table.columns.filter { $0.touchedOnUpdate && values[$0.name] == nil }.map(\.name)
                var assignments = names.filter { !columns.contains($0) }.map { "\(PostgresSQL.quote($0)) = excluded.\(PostgresSQL.quote($0))" }
                assignments += touched.map { "\(PostgresSQL.quote($0)) = \(sql.bind(.text(time)))" }
                if assignments.isEmpty { assignments = ["\(PostgresSQL.quote(columns[0])) = excluded.\(PostgresSQL.quote(columns[0]))"] }
                text += " ON CONFLICT (\(columns.map(PostgresSQL.quote).joined(separator: ", "))) DO UPDATE SET " + assignments.joined(separator: ", ")
            }
            // Without RETURNING when no row is wanted: Postgres then asks nothing of the SELECT policies.
            if returning { text += " RETURNING \(sql.allColumns)" }
            statements.append((text, sql.parameters))
        }
        let ignoring = if case .ignore = onConflict { true } else { false }
        let sql = PostgresSQL(table)
        return try transaction(as: access) { connection throws(StoreError) in
            var written: [StoredRow] = []
            for (text, parameters) in statements {
                let returned = returning ? try connection.query(text, parameters).map(sql.row)
                    : Array(repeating: [], count: try connection.changed(text, parameters))
                if returned.isEmpty && !ignoring { throw StoreError.rowSecurity(table.name) }
                written += returned
            }
            try StoreError.requireOneRow(written, if: single)
            return written
        }
    }

    public func update(
        _ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        var values = values
        let time = Timestamp.postgres(now())
        for column in table.columns where column.touchedOnUpdate && values[column.name] == nil { values[column.name] = .text(time) }
        var sql = PostgresSQL(table)
        let names = table.columns.map(\.name).filter { values[$0] != nil }
        guard !names.isEmpty else { return [] }
        var text = "UPDATE \(sql.tableName) SET " + names.map { "\(PostgresSQL.quote($0)) = \(sql.bind(values[$0]!))" }.joined(separator: ", ")
        text += sql.whereClause(condition) + (returning ? " RETURNING \(sql.allColumns)" : "")
        let parameters = sql.parameters
        return try transaction(as: access) { connection throws(StoreError) in
            let rows = returning ? try connection.query(text, parameters).map(sql.row) : Array(repeating: [], count: try connection.changed(text, parameters))
            try StoreError.requireOneRow(rows, if: single)
            return rows
        }
    }

    public func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        var sql = PostgresSQL(table)
        let text = "DELETE FROM \(sql.tableName)\(sql.whereClause(condition)) RETURNING \(sql.allColumns)"
        let parameters = sql.parameters
        return try transaction(as: access) { connection throws(StoreError) in
            let rows = try connection.query(text, parameters).map(sql.row)
            try StoreError.requireOneRow(rows, if: single)
            return rows
        }
    }
}
