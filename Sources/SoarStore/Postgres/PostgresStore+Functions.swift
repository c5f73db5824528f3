import Foundation
import SoarCore
import SoarSchema

/// `/rest/v1/rpc/<name>` on Postgres: the function called with named arguments as the caller's
/// role, its answer built as JSON by Postgres itself (as PostgREST does).
extension PostgresStore {
    public var functions: [String: Function] { functionsByName.withLock { $0 } }

    public func call(_ function: Function, _ arguments: [SQLValue?], query: RowQuery, as access: Access) throws(StoreError) -> JSONValue? {
        var parameters: [SQLValue] = []
        var named: [String] = []
        for (argument, value) in zip(function.arguments, arguments) {
            guard let value else { continue }  // its default
            parameters.append(value)
            named.append("\(DataSQL.quote(argument.name)) := $\(parameters.count)::\(DataSQL.quote(argument.type))")
        }
        let call = "public.\(DataSQL.quote(function.name))(\(named.joined(separator: ", ")))"
        let sql: String
        switch (function.returns, function.returnsRows, function.returnsSet) {
        case ("void", _, _): sql = "SELECT \(call)"
        case (_, true, true):
            // Its rows filtered, ordered, limited and picked as a table's (PostgREST's select on RPC).
            var outer = DataSQL(Table(function.result), .postgres, source: "\(call) AS \(DataSQL.quote(function.name))", parameters: parameters)
            let outputs = query.outputs(of: function.columns.map(\.name))
            let picked = outputs.map { "\(DataSQL.quote($0.column)) AS \(DataSQL.quote($0.key))" }.joined(separator: ", ")
            let inner = "SELECT \(picked) FROM \(outer.source)\(outer.whereClause(query.condition, .select))\(outer.orderClause(query.order))"
                + outer.limitClause(query)
            parameters = outer.parameters
            sql = "SELECT coalesce(json_agg(_r), '[]')::text FROM (\(inner)) AS _r"
        case (_, true, false): sql = "SELECT to_json(_r)::text FROM \(call) AS _r"
        case (_, false, true): sql = "SELECT coalesce(json_agg(_r.v), '[]')::text FROM \(call) AS _r(v)"
        case (_, false, false): sql = "SELECT to_json(\(call))::text"
        }
        let rows = try transaction(as: access, [SQLStatement(text: sql, parameters: parameters)])[0].rows
        guard function.returns != "void" else { return nil }
        guard let text = rows.first?.first ?? nil else { return .null }
        guard let value = try? JSONValue.read(Data(text.utf8)) else { throw StoreError.unavailable("a function's answer is not JSON") }
        return value
    }

    /// The functions of `public` a client may call, as PostgREST's schema cache lists them.
    static func functions(on connection: PGConnection, relations: [String: Relation]) throws(StoreError) -> [String: Function] {
        let rows = try connection.query(
            """
            SELECT p.proname, coalesce(array_to_string(p.proargnames[1:p.pronargs], ','), ''),
              coalesce((SELECT string_agg(t.typname, ',' ORDER BY a.i) FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS a(oid, i) JOIN pg_type t ON t.oid = a.oid), ''),
              p.pronargdefaults, rt.typname, p.proretset, p.prosecdef,
              coalesce((SELECT string_agg(n || ':' || t.typname, ',' ORDER BY i)
                FROM unnest(p.proallargtypes, p.proargmodes::text[], p.proargnames) WITH ORDINALITY AS o(oid, mode, n, i)
                JOIN pg_type t ON t.oid = o.oid WHERE o.mode IN ('t', 'o')), '')
            FROM pg_proc p JOIN pg_namespace ns ON ns.oid = p.pronamespace JOIN pg_type rt ON rt.oid = p.prorettype
            WHERE ns.nspname = 'public' AND p.prokind = 'f' AND rt.typname NOT IN ('trigger', 'event_trigger')
            ORDER BY p.proname, p.oid
            """)
        var functions: [String: Function] = [:]
        for row in rows {
            let listed = row[1] ?? ""
            let names = listed.isEmpty ? [] : listed.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            let types = (row[2] ?? "").split(separator: ",").map(String.init)
            // An argument without a name cannot be passed by the data API.
            guard names.count == types.count, !names.contains(where: \.isEmpty) else { continue }
            let defaults = Int(row[3] ?? "0") ?? 0
            let arguments = zip(names, types).enumerated().map { index, pair in
                Attribute(name: pair.0, type: pair.1, nullable: true, hasDefault: index >= names.count - defaults)
            }
            let returns = row[4] ?? "void"
            var columns = relations[returns]?.columns ?? []
            if columns.isEmpty, let table = row[7], !table.isEmpty {
                columns = table.split(separator: ",").map { pair in
                    let parts = pair.split(separator: ":", maxSplits: 1).map(String.init)
                    return Attribute(name: parts[0], type: parts.count > 1 ? parts[1] : "text")
                }
            }
            let name = row[0] ?? ""
            functions[name] = Function(
                name: name, arguments: arguments, returns: returns, returnsSet: row[5] == "t", columns: columns, securityDefiner: row[6] == "t")
        }
        return functions
    }
}
