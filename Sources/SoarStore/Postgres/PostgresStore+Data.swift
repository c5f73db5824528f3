import Foundation
import SoarCore
import SoarSchema

/// The data API on Postgres. The statements carry no ownership condition: each runs as the
/// caller's role with the caller's claims, and the tables' policies decide what it reaches. Each
/// request is one round trip (see ``transaction(as:_:accept:)``), two when it asks for one row.
extension PostgresStore {
    public var tables: [String: Table] { schema.withLock { $0 } }

    /// Postgres enforces the built-ins' grants and policies itself: the relation is only their shape.
    public func builtIn(_ name: String) -> Table {
        Self.builtIns[name]!
    }

    private static let builtIns = Dictionary(uniqueKeysWithValues: Schema.builtIns.map { ($0.name, Table($0)) })

    public func select(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool) throws(StoreError) -> (rows: [StoredRow], total: Int?) {
        let columns = table.columns.map(\.name).filter(query.columnsNamed(in: table).contains)
        let (rows, count) = DataSQL.select(DataSQL(table, .postgres), query, columns: columns)
        let answers = try transaction(as: access, counting ? [rows, count] : [rows])
        let read = answers[0].rows.map { table.row(postgres: $0, columns: columns) }
        return (read, counting ? Int(answers[1].rows.first?.first.flatMap { $0 } ?? "0") ?? 0 : nil)
    }

    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        let time = Timestamp.postgres(now())
        let statements = rows.map { DataSQL.insert(DataSQL(table, .postgres), $0, onConflict: onConflict, time: time, returning: returning) }
        return try written(statements, table, as: access, single: single, returning: returning)
    }

    public func update(
        _ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow] {
        var values = values
        let time = Timestamp.postgres(now())
        for column in table.columns where column.touchedOnUpdate && values[column.name] == nil { values[column.name] = .text(time) }
        guard let statement = DataSQL.update(DataSQL(table, .postgres), set: values, where: condition, returning: returning) else { return [] }
        return try written([statement], table, as: access, single: single, returning: returning)
    }

    public func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow] {
        try written([DataSQL.delete(DataSQL(table, .postgres), where: condition)], table, as: access, single: single, returning: true)
    }

    /// Runs writes and returns their rows, or as many empty rows as they changed when none are
    /// returned. `single`: committed only when exactly one row was written.
    private func written(_ statements: [SQLStatement], _ table: Table, as access: Access, single: Bool, returning: Bool) throws(StoreError) -> [StoredRow] {
        let columns = table.columns.map(\.name)
        func rows(_ answers: [PGConnection.Answer]) -> [StoredRow] {
            answers.flatMap { answer in
                returning ? answer.rows.map { table.row(postgres: $0, columns: columns) } : Array(repeating: [], count: answer.changed)
            }
        }
        let answers = try transaction(as: access, statements, accept: single ? { answers throws(StoreError) in try StoreError.requireOneRow(rows(answers), if: true) } : nil)
        return rows(answers)
    }
}
