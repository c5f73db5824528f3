import Foundation
import SoarCore

/// The data API on Postgres. The statements carry no ownership condition: each runs as the
/// caller's role with the caller's claims, and the tables' policies decide what it reaches.
extension PostgresStore {
    public var tables: [String: Table] { schema.withLock { $0 } }

    public func select(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool) throws(StoreError) -> (rows: [StoredRow], total: Int?) {
        let columns = table.columns.map(\.name).filter(query.columnsNamed(in: table).contains)
        let (rows, count) = DataSQL.select(DataSQL(table, .postgres), query, columns: columns)
        return try transaction(as: access) { connection throws(StoreError) in
            let read = try connection.query(rows).map { table.row(postgres: $0, columns: columns) }
            guard counting else { return (read, nil) }
            return (read, Int(try connection.query(count).first?.first.flatMap { $0 } ?? "0") ?? 0)
        }
    }

    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        let time = Timestamp.postgres(now())
        let statements = rows.map { DataSQL.insert(DataSQL(table, .postgres), $0, onConflict: onConflict, time: time, returning: returning) }
        return try transaction(as: access) { connection throws(StoreError) in
            var rows: [StoredRow] = []
            for statement in statements { rows += try written(statement, table, returning, on: connection) }
            return try StoreError.requireOneRow(rows, if: single)
        }
    }

    public func update(
        _ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        var values = values
        let time = Timestamp.postgres(now())
        for column in table.columns where column.touchedOnUpdate && values[column.name] == nil { values[column.name] = .text(time) }
        guard let statement = DataSQL.update(DataSQL(table, .postgres), set: values, where: condition, returning: returning) else { return [] }
        return try transaction(as: access) { connection throws(StoreError) in
            try StoreError.requireOneRow(try written(statement, table, returning, on: connection), if: single)
        }
    }

    public func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        let statement = DataSQL.delete(DataSQL(table, .postgres), where: condition)
        return try transaction(as: access) { connection throws(StoreError) in
            try StoreError.requireOneRow(try written(statement, table, true, on: connection), if: single)
        }
    }

    /// The rows a write returned, or as many empty rows as it changed when none are returned.
    private func written(_ statement: SQLStatement, _ table: Table, _ returning: Bool, on connection: PGConnection) throws(StoreError) -> [StoredRow] {
        guard returning else { return Array(repeating: [], count: try connection.changed(statement)) }
        return try connection.query(statement).map { table.row(postgres: $0, columns: table.columns.map(\.name)) }
    }
}
