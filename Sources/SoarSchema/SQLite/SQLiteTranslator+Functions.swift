import SoarCore

/// SQL-language functions, for `/rest/v1/rpc/<name>` and for policies that call them.
extension SQLiteTranslator {
    /// A SQL-language function whose body is one query: kept for `/rest/v1/rpc/<name>`.
    mutating func createFunction(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
        var names = node.names("funcname")
        if names.count == 2, names[0] == "public" { names.removeFirst() }
        guard names.count == 1, let name = names.first else { throw SQLError("only functions of the public schema are supported on SQLite", at: at) }
        var options: [String: Node] = [:]
        for option in node.nodes("options") { if let key = option.string("defname"), let value = option.node("arg") { options[key] = value } }
        let language = options["language"]?.stringValue ?? "sql"
        guard language == "sql" else {
            throw SQLError("CREATE FUNCTION in \(language) is not supported on SQLite (only LANGUAGE sql whose body is one query)", at: at)
        }
        var arguments: [Attribute] = [], columns: [Attribute] = [], defaults: [String?] = []
        for parameter in node.nodes("parameters") {
            let typeNode = parameter.record("argType", as: "TypeName")
            let type = TypeMapping.postgresName(typeNode?.names("names") ?? [])
            let attribute = Attribute(name: parameter.string("name") ?? "", type: type, nullable: true, hasDefault: parameter.node("defexpr") != nil)
            switch parameter.string("mode") ?? "FUNC_PARAM_DEFAULT" {
            case "FUNC_PARAM_TABLE", "FUNC_PARAM_OUT": columns.append(attribute)
            case "FUNC_PARAM_IN", "FUNC_PARAM_DEFAULT":
                guard !attribute.name.isEmpty else { throw SQLError("function \(name): every argument needs a name to be called by the data API", at: at) }
                arguments.append(attribute)
                defaults.append(try parameter.node("defexpr").map(expressions.expression))
            default: throw SQLError("function \(name): this kind of argument is not supported on SQLite", at: at)
            }
        }
        let returnType = try required(node.record("returnType", as: "TypeName"), at)
        let returns = TypeMapping.postgresName(returnType.names("names"))
        if let relation = schema.relation(returns) { columns = relation.columns }
        guard returns == "void" || returns == "record" || !columns.isEmpty || TypeMapping.supported.contains(returns) || schema.enums[returns] != nil else {
            throw SQLError("function \(name) returns \(returns), which is not supported on SQLite", at: returnType.location ?? at)
        }
        // The body is parsed again, as its own text; an error in it is placed at the body's start.
        let bodyNode = options["as"]
        let bodyText = (bodyNode?.nodes("items").first?.stringValue) ?? ""
        let bodyAt = bodyNode?.location ?? at
        let statements: [SQLParser.Statement]
        do { statements = try SQLParser.parse(bodyText) } catch { throw SQLError("in the body of \(name): \(error.message)", at: bodyAt) }
        guard statements.count == 1, statements[0].node.kind == "SelectStmt" else {
            throw SQLError("function \(name): on SQLite a function's body is one SELECT", at: bodyAt)
        }
        var translator = expressions
        translator.source = Array(bodyText.utf8)
        translator.arguments = arguments.map(\.name)
        translator.argumentTypes = arguments.map(\.type)
        translator.shadowed = Set(Self.relations(in: statements[0].node.nodes("fromClause"), schema).flatMap { $0.relation.columns.map(\.name) })
        var body: String
        do { body = try translator.query(statements[0].node) } catch { throw SQLError("in the body of \(name): \(error.message)", at: bodyAt) }
        if schema.relation(returns) == nil, !columns.isEmpty {
            // `RETURNS TABLE (…)` names the body's columns by their place, as Postgres matches them.
            body = "WITH \"soar_rows\"(\(columns.map { quote($0.name) }.joined(separator: ", "))) AS (\(body)) SELECT * FROM \"soar_rows\""
        }
        let definer = options["security"]?.bool("boolval") ?? false
        guard node.bool("replace") || schema.functions[name] == nil else { throw SQLError("function \(name) already exists", at: at) }
        schema.functions[name] = Function(
            name: name, arguments: arguments, returns: returns, returnsSet: returnType.bool("setof"), columns: columns, body: body,
            defaults: defaults, securityDefiner: definer)
        // Prepared once, so an unknown column or table is refused now.
        return [Step(sql: Schema.plain(body), offset: bodyAt, prepareOnly: true)]
    }

    /// The relations a FROM clause reads, each with the name queries refer to it by.
    static func relations(in items: [Node], _ schema: Schema) -> [(alias: String, relation: Relation)] {
        items.flatMap { item -> [(alias: String, relation: Relation)] in
            switch item.kind {
            case "RangeVar":
                guard let name = item.string("relname"), let relation = schema.relation(name) else { return [] }
                return [(item.record("alias", as: "Alias")?.string("aliasname") ?? name, relation)]
            case "JoinExpr":
                return relations(in: [item.node("larg"), item.node("rarg")].compactMap { $0 }, schema)
            default:
                return []
            }
        }
    }
}
