import Foundation
/// Postgres expressions and queries (from the parse tree) as SQLite SQL text: what policies,
/// checks, defaults, indexes and views are written in.
///
/// `auth.uid()`, `auth.role()`, `auth.jwt()` and `now()` become functions the SQLite store binds
/// to each request (``SQLiteFunctions``). Anything outside the supported subset is refused with
/// the construct named and where it stands, never skipped.
struct ExpressionTranslator {
    /// Relations a query may read: the app's, and `auth.users` (`auth_users` on SQLite).
    let schema: Schema
    /// In a function's body: its arguments, bound as `?1`, `?2`… (by name where no column of the
    /// body's relations has that name, as Postgres resolves them).
    var arguments: [String] = []
    /// Their Postgres types, in the same order.
    var argumentTypes: [String] = []
    var shadowed: Set<String> = []
    /// The text the tree was parsed from (see ``constant(_:)``).
    var source: [UInt8] = []
    /// A trigger's row (`NEW`): unqualified columns are its columns.
    var row: String?
    /// The table a policy or `CHECK` is on: a string compared with one of its columns is read as
    /// that column's type (see ``comparison(_:_:_:)``). None inside a subquery.
    var scope: Scope?

    func expression(_ node: Node) throws(SQLError) -> String {
        switch node.kind {
        case "ColumnRef":
            let fields = node.nodes("fields")
            if fields.count == 1, let name = fields[0].stringValue, !shadowed.contains(name), let index = arguments.firstIndex(of: name) {
                return "?\(index + 1)"
            }
            if fields.count == 1, let row, let name = fields[0].stringValue { return row + "." + quote(name) }
            // `realtime.messages.extension`, `storage.objects.name`: Soar's built-in tables, one name on SQLite.
            if fields.count >= 2, let first = fields[0].stringValue, let second = fields[1].stringValue, Schema.isBuiltIn(first + "." + second) {
                return quote(first + "." + second) + (fields.count == 3 ? "." + quote(fields[2].stringValue ?? "") : "")
            }
            return try fields.map { (field: Node) throws(SQLError) -> String in
                if field.kind == "A_Star" { return "*" }
                guard let name = field.stringValue else { throw unsupported("this column reference", node) }
                return quote(name)
            }.joined(separator: ".")
        case "A_Const":
            return try constant(node)
        case "A_Expr":
            return try operation(node)
        case "BoolExpr":
            let args = try node.nodes("args").map { (arg: Node) throws(SQLError) -> String in "(" + (try expression(arg)) + ")" }
            switch node.string("boolop") {
            case "AND_EXPR": return args.joined(separator: " AND ")
            case "OR_EXPR": return args.joined(separator: " OR ")
            default: return "NOT " + (args.first ?? "NULL")
            }
        case "NullTest":
            let arg = try expression(try required(node.node("arg"), node))
            return "(\(arg)) IS \(node.string("nulltesttype") == "IS_NOT_NULL" ? "NOT " : "")NULL"
        case "BooleanTest":
            let arg = "(" + (try expression(try required(node.node("arg"), node))) + ")"
            switch node.string("booltesttype") {
            case "IS_TRUE": return "\(arg) IS TRUE"
            case "IS_NOT_TRUE": return "\(arg) IS NOT TRUE"
            case "IS_FALSE": return "\(arg) IS FALSE"
            case "IS_NOT_FALSE": return "\(arg) IS NOT FALSE"
            case "IS_UNKNOWN": return "\(arg) IS NULL"
            default: return "\(arg) IS NOT NULL"
            }
        case "FuncCall":
            return try function(node)
        case "A_Indirection":
            return try element(node)
        case "SQLValueFunction":
            switch node.string("op") {
            case "SVFOP_CURRENT_TIMESTAMP", "SVFOP_LOCALTIMESTAMP": return "now()"
            case "SVFOP_CURRENT_DATE": return "substr(now(), 1, 10)"
            case "SVFOP_CURRENT_USER", "SVFOP_SESSION_USER", "SVFOP_USER", "SVFOP_CURRENT_ROLE": return "auth_role()"
            default: throw unsupported(node.string("op").map { "SQL function \($0.replacingOccurrences(of: "SVFOP_", with: ""))" } ?? "this SQL function", node)
            }
        case "CoalesceExpr":
            let args = try node.nodes("args").map { (arg: Node) throws(SQLError) -> String in try expression(arg) }
            return "coalesce(" + args.joined(separator: ", ") + ")"
        case "TypeCast":
            return try cast(node)
        case "SubLink":
            return try subquery(node)
        case "CaseExpr":
            var text = "CASE"
            if let arg = node.node("arg") { text += " " + (try expression(arg)) }
            for when in node.nodes("args") {
                text += " WHEN " + (try expression(try required(when.node("expr"), when)))
                text += " THEN " + (try expression(try required(when.node("result"), when)))
            }
            if let otherwise = node.node("defresult") { text += " ELSE " + (try expression(otherwise)) }
            return text + " END"
        case "List":
            return try node.nodes("items").map { (item: Node) throws(SQLError) -> String in try expression(item) }.joined(separator: ", ")
        case "MinMaxExpr":
            let args = try node.nodes("args").map { (arg: Node) throws(SQLError) -> String in try expression(arg) }
            let function = node.string("op") == "IS_LEAST" ? "min" : "max"
            // SQLite's two-argument min/max are scalar, and NULL if any is NULL; Postgres skips NULLs.
            return "\(function)(" + args.map { "coalesce(\($0), \(args.joined(separator: ", ")))" }.joined(separator: ", ") + ")"
        case "ParamRef":
            guard let number = node.int("number"), (1...max(1, arguments.count)).contains(number), !arguments.isEmpty else {
                throw unsupported("parameters ($n) outside a function's arguments", node)
            }
            return "?\(number)"
        default:
            throw unsupported(node.kind, node)
        }
    }

    // MARK: pieces

    private func constant(_ node: Node) throws(SQLError) -> String {
        if node.bool("isnull") { return "NULL" }
        if let value = node.record("ival", as: "Integer") {
            if let integer = value.int("ival") { return String(integer) }
            // libpg_query 15's JSON leaves out an integer that is 0 or negative (`"ival": {}`): the
            // literal is read back from the text at its location.
            return literal(at: node.location)
        }
        if let value = node.record("fval", as: "Float") { return value.string("fval") ?? "0" }
        if let value = node.record("boolval", as: "Boolean") { return value.bool("boolval") ? "1" : "0" }
        if let value = node.record("sval", as: "String") { return literal(value.string("sval") ?? "") }
        if let value = node.record("bsval", as: "BitString") { return literal(value.string("bsval") ?? "") }
        throw unsupported("this constant", node)
    }

    private func operation(_ node: Node) throws(SQLError) -> String {
        let op = node.names("name").last ?? ""
        // Times and dates first: an interval is no value of its own on SQLite.
        if op == "+" || op == "-", node.string("kind") ?? "AEXPR_OP" == "AEXPR_OP", let leftNode = node.node("lexpr"), let rightNode = node.node("rexpr") {
            if let shifted = try intervalArithmetic(op, leftNode, rightNode) { return shifted }
            if let dated = try dateArithmetic(op, leftNode, rightNode) { return dated }
        }
        let left = try node.node("lexpr").map { (left: Node) throws(SQLError) -> String in "(" + (try expression(left)) + ")" }
        let rightNode = node.node("rexpr")
        switch node.string("kind") ?? "AEXPR_OP" {
        case "AEXPR_OP":
            if ["=", "<>", "!=", "<", ">", "<=", ">="].contains(op), let leftNode = node.node("lexpr"), let rightNode {
                let (left, right) = try comparison(op, leftNode, rightNode)
                return "\(left) \(op == "!=" ? "<>" : op) \(right)"
            }
            let right = try "(" + expression(try required(rightNode, node)) + ")"
            guard let left else {
                guard op == "-" || op == "+" else { throw unsupported("prefix operator \(op)", node) }
                return op + right
            }
            switch op {
            case "=", "<>", "<", ">", "<=", ">=", "+", "-", "*", "||", "->":
                return "\(left) \(op) \(right)"
            case "/", "%":
                // Postgres refuses a division by zero (22012); SQLite's answer would be NULL.
                return "\(left) \(op) soar_divisor\(right)"
            case "->>":
                // Postgres's `->>` is text: a JSON true is 'true', a number its digits as written
                // ('1.50'); SQLite's own gives 1 and 1.5, so `doc ->> 'public' = 'true'` never held.
                let member = "\(left) -> \(right)"
                return "(CASE json_type(\(member)) WHEN 'text' THEN \(left) ->> \(right) WHEN 'null' THEN NULL ELSE \(member) END)"
            case "!=": return "\(left) <> \(right)"
            case "~": return "regexp(\(right), \(left))"
            case "~*": return "regexp_i(\(right), \(left))"
            case "!~": return "NOT regexp(\(right), \(left))"
            case "!~*": return "NOT regexp_i(\(right), \(left))"
            case "~~": return "\(left) LIKE \(right) ESCAPE '\\'"
            case "!~~": return "\(left) NOT LIKE \(right) ESCAPE '\\'"
            case "~~*": return "lower(\(left)) LIKE lower(\(right)) ESCAPE '\\'"
            case "!~~*": return "lower(\(left)) NOT LIKE lower(\(right)) ESCAPE '\\'"
            default: throw unsupported("operator \(op)", node)
            }
        case "AEXPR_IN":
            let type = node.node("lexpr").flatMap(knownType)
            let list = try required(rightNode, node).nodes("items").map { (item: Node) throws(SQLError) -> String in try typed(item, as: type) }
                .joined(separator: ", ")
            return "\(left ?? "NULL") \(op == "<>" ? "NOT IN" : "IN") (\(list))"
        case "AEXPR_LIKE":
            let right = try expression(try required(rightNode, node))
            return "\(left ?? "NULL") \(op == "!~~" ? "NOT LIKE" : "LIKE") (\(right)) ESCAPE '\\'"
        case "AEXPR_ILIKE":
            let right = try expression(try required(rightNode, node))
            return "lower(\(left ?? "NULL")) \(op == "!~~*" ? "NOT LIKE" : "LIKE") lower(\(right)) ESCAPE '\\'"
        case "AEXPR_BETWEEN", "AEXPR_NOT_BETWEEN":
            let bounds = try required(rightNode, node).nodes("items")
            guard bounds.count == 2 else { throw unsupported("BETWEEN", node) }
            let not = node.string("kind") == "AEXPR_NOT_BETWEEN" ? "NOT " : ""
            let type = node.node("lexpr").flatMap(knownType)
            if let type, let labels = schema.enums[type], let leftNode = node.node("lexpr") {
                // An enum's bounds by its labels' order.
                let ranks = try [leftNode, bounds[0], bounds[1]].map { (item: Node) throws(SQLError) -> String in try rank(item, try expression(item), labels) }
                return "(\(ranks[0])) \(not)BETWEEN (\(ranks[1])) AND (\(ranks[2]))"
            }
            return "\(left ?? "NULL") \(not)BETWEEN (\(try typed(bounds[0], as: type))) AND (\(try typed(bounds[1], as: type)))"
        case "AEXPR_DISTINCT":
            return "\(left ?? "NULL") IS NOT (\(try expression(try required(rightNode, node))))"
        case "AEXPR_NOT_DISTINCT":
            return "\(left ?? "NULL") IS (\(try expression(try required(rightNode, node))))"
        case "AEXPR_NULLIF":
            return "nullif(\(left ?? "NULL"), \(try expression(try required(rightNode, node))))"
        case "AEXPR_OP_ANY", "AEXPR_OP_ALL":
            throw unsupported("\(op) \(node.string("kind") == "AEXPR_OP_ANY" ? "ANY" : "ALL") (an array): use IN (...)", node)
        default:
            throw unsupported(node.string("kind") ?? "this operator", node)
        }
    }

    /// Postgres functions with a SQLite equivalent; the request's own (`auth.uid()`…) are bound by the store.
    static let functions: [String: String] = [
        "auth.uid": "auth_uid", "auth.role": "auth_role", "realtime.topic": "realtime_topic", "auth.jwt": "auth_jwt", "auth.email": "auth_email",
        "storage.foldername": "storage_foldername", "storage.filename": "storage_filename", "storage.extension": "storage_extension",
        "now": "now", "gen_random_uuid": "gen_random_uuid", "uuid_generate_v4": "gen_random_uuid",
        "lower": "lower", "upper": "upper", "length": "length", "char_length": "length", "character_length": "length",
        "abs": "abs", "btrim": "trim", "trim": "trim", "ltrim": "ltrim", "rtrim": "rtrim", "nullif": "nullif",
        "coalesce": "coalesce", "greatest": "max", "least": "min", "count": "count", "sum": "sum", "min": "min", "max": "max",
        "avg": "avg", "round": "round", "replace": "replace", "substr": "substr", "substring": "substr",
        "jsonb_build_object": "json_object", "json_build_object": "json_object", "to_jsonb": "json", "to_json": "json",
    ]

    /// `(storage.foldername(name))[1]`: one element of an array, counted from 1 as in Postgres
    /// (NULL past either end). Arrays are JSON arrays on SQLite; slices are refused.
    private func element(_ node: Node) throws(SQLError) -> String {
        var text = try expression(try required(node.node("arg"), node))
        for step in node.nodes("indirection") {
            guard step.kind == "A_Indices", !step.bool("is_slice"), let index = step.node("uidx") else {
                throw unsupported("this array slice or field selection", node)
            }
            text = "soar_array_at(\(text), \(try expression(index)))"
        }
        return text
    }

    private func function(_ node: Node) throws(SQLError) -> String {
        var names = node.names("funcname")
        if names.first == "pg_catalog" || names.first == "public" || names.first == "extensions" { names.removeFirst() }
        let name = names.joined(separator: ".")
        if Self.functions[name] == nil, let function = schema.functions[name] { return try inlined(function, node) }
        guard let mapped = Self.functions[name] else {
            // Postgres writes `LIKE … ESCAPE 'c'` as a call of its own.
            if name == "like_escape" { throw unsupported("LIKE … ESCAPE with another escape than the backslash", node) }
            throw SQLError("function \(name)() is not supported on SQLite; docs/schema.md lists those that are", at: node.location ?? 0)
        }
        if node.bool("agg_star") { return "\(mapped)(*)" }
        let args = try node.nodes("args").map { (arg: Node) throws(SQLError) -> String in try expression(arg) }
        if mapped == "substr" { return try substring(args, node) }
        let distinct = node.bool("agg_distinct") ? "DISTINCT " : ""
        return "\(mapped)(\(distinct)\(args.joined(separator: ", ")))"
    }

    /// `substring(text, start[, count])`, counted as Postgres counts: the characters from `start`
    /// on (or `count` of them) that are at place 1 or later, where SQLite counts a start below 1
    /// from the end. `substring(text from 'pattern')` is a regular expression's: refused.
    private func substring(_ args: [String], _ node: Node) throws(SQLError) -> String {
        let given = node.nodes("args")
        guard args.count >= 2, given[1].record("sval", as: "String") == nil else { throw unsupported("substring with a pattern", node) }
        let (text, start) = (args[0], "(\(args[1]))")
        guard args.count == 3 else { return "substr(\(text), max(\(start), 1))" }
        return "substr(\(text), max(\(start), 1), max(0, \(start) + (\(args[2])) - max(\(start), 1)))"
    }

    /// One of the app's own SQL functions called in an expression (a policy's `is_member(team_id)`):
    /// its body inlined as a scalar subquery, the arguments in place of its parameters. A
    /// `SECURITY DEFINER` one reads its tables without the caller's policies, as in Postgres (the
    /// usual way out of a policy recursion); another reads them under the caller's.
    private func inlined(_ function: Function, _ node: Node) throws(SQLError) -> String {
        guard let body = function.body, !function.returnsSet, !function.returnsRows else {
            throw SQLError("function \(function.name)() returns rows: only a function of one value can be called in an expression", at: node.location ?? 0)
        }
        let given = node.nodes("args")
        guard given.count <= function.arguments.count, given.count + function.defaults.suffix(from: given.count).filter({ $0 != nil }).count == function.arguments.count else {
            throw SQLError("function \(function.name)() takes \(function.arguments.count) arguments", at: node.location ?? 0)
        }
        var values = try given.map { (argument: Node) throws(SQLError) -> String in try expression(argument) }
        values += function.defaults.suffix(from: given.count).map { $0 ?? "NULL" }
        var text = function.securityDefiner ? Schema.plain(body) : body
        // The arguments are computed once, outside the body (a derived table with no FROM of its
        // own, so their columns are the caller's row), and the body reads them by name: inlined
        // text could otherwise be captured by a same-named column of the body's tables.
        // The highest first, so ?1 does not match the start of ?12.
        for index in values.indices.reversed() { text = text.replacingOccurrences(of: "?\(index + 1)", with: "\"soar_arguments\".\"a\(index + 1)\"") }
        let arguments = values.enumerated().map { "(\($1)) AS \"a\($0 + 1)\"" }.joined(separator: ", ")
        return "(SELECT (\(text)) FROM (SELECT \(arguments.isEmpty ? "1 AS \"a0\"" : arguments)) AS \"soar_arguments\")"
    }

    private func cast(_ node: Node) throws(SQLError) -> String {
        let argNode = try required(node.node("arg"), node)
        let type = try required(node.record("typeName", as: "TypeName"), node)
        let name = TypeMapping.postgresName(type.names("names"))
        // A constant cast to a type: its value, as a column of that type stores it.
        if ["timestamptz", "timestamp", "date", "bool", "uuid"].contains(name) || schema.enums[name] != nil, argNode.kind == "A_Const",
            let value = argNode.record("sval", as: "String")?.string("sval"), let stored = try storedConstant(value, as: name, argNode)
        {
            return stored
        }
        let arg = try expression(argNode)
        switch name {
        case "text", "varchar", "bpchar", "name", "citext":
            // A boolean's text is 'true' or 'false' (SQLite's would be 1 or 0).
            if (columnType(argNode) ?? SQLiteTranslator.computedType(argNode)) == "bool" {
                return "CASE WHEN (\(arg)) THEN 'true' WHEN NOT (\(arg)) THEN 'false' END"
            }
            return "CAST(\(arg) AS TEXT)"
        // Through the store's own conversion, with Postgres's errors ('abc'::int is 22P02, not 0).
        case "int2", "int4", "int8", "bool", "uuid", "timestamptz", "timestamp":
            return "soar_value('\(name)', \(arg))"
        // A number, checked as the store checks one, and real: 1 / 3::float8 is no integer division.
        case "float4", "float8", "numeric": return "CAST(soar_value('\(name)', \(arg)) AS REAL)"
        case "date": return "substr(\(arg), 1, 10)"
        case "jsonb", "json": return arg
        case let other: throw unsupported("a cast to \(other)", node)
        }
    }

    private func subquery(_ node: Node) throws(SQLError) -> String {
        let select = try query(try required(node.node("subselect"), node))
        switch node.string("subLinkType") {
        case "EXISTS_SUBLINK": return "EXISTS (\(select))"
        case "EXPR_SUBLINK": return "(\(select))"
        case "ANY_SUBLINK":
            let test = try expression(try required(node.node("testexpr"), node))
            return "(\(test)) IN (\(select))"
        default: throw unsupported("this subquery", node)
        }
    }

    /// A `SELECT` (a view's body, a policy's subquery).
    func query(_ node: Node) throws(SQLError) -> String {
        // A query's unqualified names are its own table's columns: typed when it reads one table.
        var inner = self
        let from = node.nodes("fromClause")
        if from.count == 1, from[0].kind == "RangeVar", let name = from[0].string("relname"), var relation = schema.relation(name) {
            relation.name = from[0].record("alias", as: "Alias")?.string("aliasname") ?? name
            inner.scope = .init(relation)
        } else {
            inner.scope = nil
        }
        return try inner.select(node)
    }

    private func select(_ node: Node) throws(SQLError) -> String {
        guard node.kind == "SelectStmt" else { throw unsupported(node.kind, node) }
        if let op = node.string("op"), op != "SETOP_NONE" {
            let all = node.bool("all") ? " ALL" : ""
            let word = ["SETOP_UNION": "UNION", "SETOP_INTERSECT": "INTERSECT", "SETOP_EXCEPT": "EXCEPT"][op] ?? "UNION"
            return "\(try query(try required(node.node("larg"), node))) \(word)\(all) \(try query(try required(node.node("rarg"), node)))"
        }
        if node.fields["valuesLists"] != nil { throw unsupported("VALUES", node) }
        var text = "SELECT "
        if node.fields["distinctClause"] != nil { text += "DISTINCT " }
        text += try node.nodes("targetList").map { (target: Node) throws(SQLError) -> String in
            let value = try expression(try required(target.node("val"), target))
            return target.string("name").map { "\(value) AS \(quote($0))" } ?? value
        }.joined(separator: ", ")
        let from = node.nodes("fromClause")
        if !from.isEmpty { text += " FROM " + (try from.map { (item: Node) throws(SQLError) -> String in try source(item) }.joined(separator: ", ")) }
        if let filter = node.node("whereClause") { text += " WHERE " + (try expression(filter)) }
        let groups = node.nodes("groupClause")
        if !groups.isEmpty { text += " GROUP BY " + (try groups.map { (group: Node) throws(SQLError) -> String in try expression(group) }.joined(separator: ", ")) }
        if let having = node.node("havingClause") { text += " HAVING " + (try expression(having)) }
        let sorts = node.nodes("sortClause")
        if !sorts.isEmpty {
            text += " ORDER BY " + (try sorts.map { (sort: Node) throws(SQLError) -> String in
                let keyNode = try required(sort.node("node"), sort)
                var key = try expression(keyNode)
                // An enum sorts by its labels' order.
                if let type = columnType(keyNode), let labels = schema.enums[type] { key = try rank(keyNode, key, labels) }
                let descending = sort.string("sortby_dir") == "SORTBY_DESC"
                // Postgres puts NULLs last going up and first going down (SQLite the other way).
                let nulls = sort.string("sortby_nulls")
                let nullsFirst = nulls == "SORTBY_NULLS_FIRST" || (nulls != "SORTBY_NULLS_LAST" && descending)
                return key + (descending ? " DESC" : "") + (nullsFirst ? " NULLS FIRST" : " NULLS LAST")
            }.joined(separator: ", "))
        }
        if let limit = node.node("limitCount") { text += " LIMIT " + (try expression(limit)) }
        if let offset = node.node("limitOffset") { text += " OFFSET " + (try expression(offset)) }
        return text
    }

    /// A `FROM` item: a relation (with its alias), a join, or a subquery.
    private func source(_ node: Node) throws(SQLError) -> String {
        switch node.kind {
        case "RangeVar":
            let name = try relationName(node)
            let alias = node.record("alias", as: "Alias")?.string("aliasname")
            // The API roles may not read auth.users on Supabase (Postgres answers 42501 there).
            if node.string("schemaname") == "auth" {
                throw SQLError("reading auth.\(node.string("relname") ?? "users") is refused: the API roles may not read it, as on Supabase (keep what policies need in a table of your own, such as profiles)", at: node.location ?? 0)
            }
            // An app relation read in a query is marked: the caller's policies on it are added
            // when the query runs (see ``Schema/resolved(_:role:)``), as Postgres applies them.
            guard let relation = node.string("relname") else { return alias.map { "\(name) AS \(quote($0))" } ?? name }
            return Schema.marker(relation) + " AS " + quote(alias ?? relation)
        case "JoinExpr":
            let left = try source(try required(node.node("larg"), node))
            let right = try source(try required(node.node("rarg"), node))
            let kind = ["JOIN_LEFT": "LEFT JOIN", "JOIN_INNER": "JOIN"][node.string("jointype") ?? "JOIN_INNER"]
            guard let kind else { throw unsupported("this join", node) }
            if let on = node.node("quals") { return "\(left) \(kind) \(right) ON \(try expression(on))" }
            let using = node.names("usingClause")
            if !using.isEmpty { return "\(left) \(kind) \(right) USING (\(using.map(quote).joined(separator: ", ")))" }
            return "\(left) CROSS JOIN \(right)"
        case "RangeSubselect":
            let inner = try query(try required(node.node("subquery"), node))
            let alias = node.record("alias", as: "Alias")?.string("aliasname")
            return "(\(inner))" + (alias.map { " AS \(quote($0))" } ?? "")
        default:
            throw unsupported(node.kind, node)
        }
    }

    /// A relation named in a query: one of the app's, or `auth.users`.
    func relationName(_ node: Node) throws(SQLError) -> String {
        let relation = node.string("relname") ?? ""
        switch node.string("schemaname") {
        case nil, "public":
            guard schema.relation(relation) != nil else { throw SQLError("relation \"\(relation)\" does not exist", at: node.location ?? 0) }
            return quote(relation)
        case "auth" where relation == "users":
            return quote("auth_users")
        case let name? where Schema.isBuiltIn(name + "." + relation):
            return quote(name + "." + relation)
        case let other?:
            throw unsupported("relations of schema \(other)", node)
        }
    }

    /// The integer literal (`0`, `-300`) written at a byte offset of the source.
    private func literal(at location: Int?) -> String {
        guard let location, location < source.count else { return "0" }
        var end = location
        if source[end] == UInt8(ascii: "-") { end += 1 }
        while end < source.count, (48...57).contains(source[end]) { end += 1 }
        let text = String(decoding: source[location..<end], as: UTF8.self)
        return Int(text) != nil ? text : "0"
    }

    // MARK: helpers

    func quote(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    private func required(_ node: Node?, _ parent: Node) throws(SQLError) -> Node {
        guard let node else { throw unsupported(parent.kind, parent) }
        return node
    }

    func unsupported(_ construct: String, _ node: Node) -> SQLError {
        SQLError("\(Self.constructs[construct] ?? construct) is not supported on SQLite (it runs on Postgres)", at: node.location ?? 0)
    }

    /// The SQL a user wrote, for the parse tree's names of what is refused.
    private static let constructs = [
        "AEXPR_SIMILAR": "SIMILAR TO", "AEXPR_BETWEEN_SYM": "BETWEEN SYMMETRIC", "AEXPR_NOT_BETWEEN_SYM": "NOT BETWEEN SYMMETRIC",
        "A_ArrayExpr": "ARRAY[…]", "SelectStmt": "this query (a UNION, INTERSECT or EXCEPT inside another query)",
        "a cast to interval": "an interval other than a constant added to or taken from a time", "RowExpr": "a row constructor (ROW(…))",
    ]
}
