import Foundation
import SoarCore
import SoarSchema

/// `/rest/v1/rpc/<name>` on SQLite: a SQL-language function's body (one query, translated from
/// its migration), run on a reader with the arguments bound, under the caller's policies unless
/// the function is `SECURITY DEFINER`.
extension SQLiteStore {
    public var functions: [String: Function] { model.withLock { $0.functions } }

    public func call(_ function: Function, _ arguments: [SQLValue?], query: RowQuery, as access: Access) throws(StoreError) -> JSONValue? {
        guard let body = function.body else { throw StoreError(code: "PGRST202", message: "Could not find the function \(function.signature) in the schema cache") }
        guard function.executable(by: access.role.rawValue) else {
            throw StoreError(code: "42501", message: "permission denied for function \(function.name)")
        }
        let schema = model.withLock { $0 }
        var sql: String
        do { sql = function.securityDefiner ? Schema.plain(body) : try schema.resolved(body, role: access.role.rawValue) } catch {
            throw StoreError(code: "42P17", message: "infinite recursion detected in policy for relation \"\(error.relation)\"")
        }
        // Rows are filtered, ordered and limited as a table's would be: the body is their source.
        let result = Table(function.result, schema: schema)
        // The body's ?1…?n come first.
        var outer = DataSQL(result, .sqlite, source: "(\(sql)) AS \(DataSQL.quote(function.name))", parameters: arguments.map { _ in .null })
        if function.returnsRows {
            sql = "SELECT \(outer.allColumns) FROM \(outer.source)\(outer.whereClause(query.condition, .select))\(outer.orderClause(query.order))"
            sql += outer.limitClause(query)
        }
        let extra = Array(outer.parameters.dropFirst(arguments.count))
        let time = Timestamp.postgres(now())
        let rows = try read { connection throws(StoreError) -> [[SQLValue]] in
            connection.context.set(access, at: time)
            var values: [SQLValue] = []
            for (index, value) in arguments.enumerated() {
                if let value {
                    values.append(value)
                } else if let expression = function.defaults[index] {
                    values.append(try connection.statement("SELECT \(expression)").rows([]).first?.first ?? .null)
                } else {
                    values.append(.null)
                }
            }
            return try connection.statement(sql).rows(values + extra)
        }
        guard function.returns != "void" else { return nil }
        let enums = schema.enums
        if function.returnsRows {
            let columns = function.columns.map { Column($0, relation: function.name, enums: enums) }
            let outputs = query.outputs(of: columns.map(\.name))
            let objects = rows.map { row in
                JSONValue.object(Dictionary(outputs.compactMap { output in
                    result.position(of: output.column).map { (output.key, columns[$0].json(row[$0])) }
                }, uniquingKeysWith: { first, _ in first }))
            }
            return function.returnsSet ? .array(objects) : objects.first ?? .null
        }
        let column = Column(Attribute(name: "value", type: function.returns), relation: function.name, enums: enums)
        let values = rows.map { column.json($0.first ?? .null) }
        return function.returnsSet ? .array(values) : values.first ?? .null
    }
}
