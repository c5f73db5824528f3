import Foundation
import SoarCore

extension SQLiteStore {
    public func select(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool) throws(StoreError) -> (rows: [StoredRow], total: Int?) {
        var sql = SQLiteSQL(table)
        let filter = sql.whereClause(query.condition, access)
        let filterParameters = sql.parameters
        var text = "SELECT \(sql.allColumns) FROM \(sql.tableName)\(filter)\(sql.orderClause(query.order))"
        if query.limit != nil || query.offset != nil {
            text += " LIMIT \(sql.bind(.integer(Int64(query.limit ?? -1)))) OFFSET \(sql.bind(.integer(Int64(query.offset ?? 0))))"
        }
        let parameters = sql.parameters
        return try read { connection throws(StoreError) in
            let rows = try connection.statement(text).rows(parameters)
            guard counting else { return (rows, nil) }
            let counted = try connection.statement("SELECT count(*) FROM \(sql.tableName)\(filter)").rows(filterParameters)
            guard case .integer(let total) = counted.first?.first else { return (rows, 0) }
            return (rows, Int(total))
        }
    }

    public func insert(_ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        try write(try insertion(table, rows, onConflict: onConflict, as: access, single: single))
    }

    /// Queued for the writer thread, which calls `completion` after the commit (or calls it here
    /// at once when the rows are refused before any SQL runs).
    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool,
        completion: @escaping @Sendable (Result<[StoredRow], StoreError>) -> Void
    ) {
        let body: (SQLiteConnection) throws(StoreError) -> [StoredRow]
        do { body = try insertion(table, rows, onConflict: onConflict, as: access, single: single) } catch {
            completion(.failure(error))
            return
        }
        writer.enqueue(body, completion: completion)
    }

    /// An insert's statements, checked, as a write to run on the writer connection.
    private func insertion(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool
    ) throws(StoreError) -> (SQLiteConnection) throws(StoreError) -> [StoredRow] {
        try checkWritable(table, access, .insert)
        // Anon owns no row: the policy refuses before any column is looked at, as Postgres's RLS does.
        if access.role == .anon { throw .rowSecurity(table.name) }
        let time = Timestamp.postgres(now())
        var statements: [(String, [SQLValue])] = []
        for values in rows {
            let full = try table.checkedValues(try table.completed(values, access: access, time: time))
            // The policy's WITH CHECK side: a client inserts only rows it owns (anon owns none).
            if access.role != .serviceRole {
                guard let id = access.userID, full[table.owner] == .text(id) else { throw .rowSecurity(table.name) }
            }
            var sql = SQLiteSQL(table)
            let names = table.columns.map(\.name).filter { full[$0] != nil }
            var text = "INSERT INTO \(sql.tableName) (\(names.map(SQLiteSQL.quote).joined(separator: ", "))) VALUES ("
            text += names.map { sql.bind(full[$0]!) }.joined(separator: ", ") + ")"
            switch onConflict {
            case nil: break
            case .ignore(let columns):
                text += " ON CONFLICT (\(columns.map(SQLiteSQL.quote).joined(separator: ", "))) DO NOTHING"
            case .merge(let columns):
                let touched = table.columns.filter { $0.touchedOnUpdate }.map(\.name)
                let updated = names.filter { !columns.contains($0) && (values[$0] != nil || touched.contains($0)) }
                text += " ON CONFLICT (\(columns.map(SQLiteSQL.quote).joined(separator: ", "))) DO "
                if updated.isEmpty {
                    // Nothing to change, but the existing row is still "written": touch its key.
                    text += "UPDATE SET \(SQLiteSQL.quote(columns[0])) = excluded.\(SQLiteSQL.quote(columns[0]))"
                } else {
                    text += "UPDATE SET " + updated.map { "\(SQLiteSQL.quote($0)) = excluded.\(SQLiteSQL.quote($0))" }.joined(separator: ", ")
                }
                // The policy's USING side: an existing row someone else owns is not updated (and is an error below).
                if access.role == .authenticated {
                    text += " WHERE \(sql.tableName).\(SQLiteSQL.quote(table.owner)) = \(sql.bind(.text(access.userID ?? "")))"
                } else if access.role == .anon {
                    text += " WHERE 0"
                }
            }
            text += " RETURNING \(sql.allColumns)"
            statements.append((text, sql.parameters))
        }
        let ignoring = if case .ignore = onConflict { true } else { false }
        return { connection throws(StoreError) in
            var written: [StoredRow] = []
            for (text, parameters) in statements {
                let returned = try connection.statement(text).rows(parameters)
                if returned.isEmpty && !ignoring { throw StoreError.rowSecurity(table.name) }
                written += returned
            }
            try StoreError.requireOneRow(written, if: single)
            return written
        }
    }

    public func update(_ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        try checkWritable(table, access, .update, columns: values.keys)
        if access.role == .authenticated, let owner = values[table.owner], owner != .text(access.userID ?? "") {
            throw .rowSecurity(table.name)
        }
        var values = values
        let time = Timestamp.postgres(now())
        for column in table.columns where column.touchedOnUpdate && values[column.name] == nil { values[column.name] = .text(time) }
        for (name, value) in values where value == .null && table.column(name)?.nullable == false {
            throw .notNull(name, table: table.name)
        }
        values = try table.checkedValues(values)
        var sql = SQLiteSQL(table)
        let names = table.columns.map(\.name).filter { values[$0] != nil }
        guard !names.isEmpty else { return [] }
        var text = "UPDATE \(sql.tableName) SET " + names.map { "\(SQLiteSQL.quote($0)) = \(sql.bind(values[$0]!))" }.joined(separator: ", ")
        text += sql.whereClause(condition, access) + " RETURNING \(sql.allColumns)"
        let parameters = sql.parameters
        return try write { connection throws(StoreError) in
            let rows = try connection.statement(text).rows(parameters)
            try StoreError.requireOneRow(rows, if: single)
            return rows
        }
    }

    public func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        try checkWritable(table, access, .delete)
        var sql = SQLiteSQL(table)
        let text = "DELETE FROM \(sql.tableName)\(sql.whereClause(condition, access)) RETURNING \(sql.allColumns)"
        let parameters = sql.parameters
        return try write { connection throws(StoreError) in
            let rows = try connection.statement(text).rows(parameters)
            try StoreError.requireOneRow(rows, if: single)
            return rows
        }
    }

    /// The grants: clients write only what the table's policies let them.
    private func checkWritable(_ table: Table, _ access: Access, _ operation: Table.Operation, columns: some Sequence<String> = []) throws(StoreError) {
        if access.role != .serviceRole && !table.clientAccess.allows(operation, columns: columns) { throw .permissionDenied(table.name) }
    }
}
