import SoarCore

/// A migration's statements as SQLite runs them, and the schema they leave behind.
///
/// The supported subset of Postgres DDL is translated statement by statement; policies and grants
/// go into the ``Schema`` (SQLite has neither), as expressions SQLite evaluates for each request.
public struct SQLiteTranslator {
    /// SQL for SQLite to run, or only to prepare (a policy's expressions: checks names exist).
    public struct Step: Sendable, Equatable {
        public let sql: String
        public let offset: Int
        public let prepareOnly: Bool
    }

    public private(set) var schema: Schema
    /// The text of the statement being translated (literals are read back from it).
    private var source: [UInt8] = []
    /// The API roles: privileges name them, and so do policies.
    public static let roles = ["anon", "authenticated", "service_role"]

    public init(schema: Schema) { self.schema = schema }

    private var expressions: ExpressionTranslator {
        var translator = ExpressionTranslator(schema: schema)
        translator.source = source
        return translator
    }

    /// Translates one statement, updating ``schema``.
    public mutating func translate(_ statement: SQLParser.Statement) throws(SQLError) -> [Step] {
        source = statement.source
        let node = statement.node
        let at = statement.offset
        switch node.kind {
        case "CreateStmt": return try createTable(node, at)
        case "CreateEnumStmt":
            let name = node.names("typeName").last ?? ""
            guard schema.enums[name] == nil else { throw SQLError("type \"\(name)\" already exists", at: at) }
            schema.enums[name] = node.names("vals")
            return []
        case "IndexStmt": return [try index(node, at)]
        case "AlterTableStmt": return try alterTable(node, at)
        case "RenameStmt": return try rename(node, at)
        case "ViewStmt": return try view(node, at)
        case "CreatePolicyStmt": return try policy(node, at)
        case "GrantStmt": try grant(node, at); return []
        case "CreateFunctionStmt": return try function(node, at)
        case "DropStmt": return try drop(node, at)
        case "InsertStmt", "UpdateStmt", "DeleteStmt": return [Step(sql: Schema.plain(try data(node)), offset: at, prepareOnly: false)]
        case "CommentStmt", "TransactionStmt", "VariableSetStmt": return []
        case "AlterDefaultPrivilegesStmt":
            // Supabase's defaults already grant every table to the API roles; policies do the limiting.
            return []
        default:
            throw SQLError("\(Self.describe(node.kind)) is not supported on SQLite (it runs on Postgres)", at: at)
        }
    }

    /// `CreateFunctionStmt` -> "CREATE FUNCTION": the statement as a reader knows it.
    static func describe(_ kind: String) -> String {
        let known = [
            "CreateFunctionStmt": "CREATE FUNCTION", "CreateTrigStmt": "CREATE TRIGGER", "DoStmt": "DO (PL/pgSQL)",
            "CreateExtensionStmt": "CREATE EXTENSION", "CreateSchemaStmt": "CREATE SCHEMA", "CreateSeqStmt": "CREATE SEQUENCE",
            "CreateDomainStmt": "CREATE DOMAIN", "CompositeTypeStmt": "CREATE TYPE ... AS (composite)", "RuleStmt": "CREATE RULE",
            "CreateRoleStmt": "CREATE ROLE", "CreateTableAsStmt": "CREATE TABLE AS", "CreatePublicationStmt": "CREATE PUBLICATION",
            "AlterPublicationStmt": "ALTER PUBLICATION", "SelectStmt": "SELECT", "CallStmt": "CALL",
        ]
        return known[kind] ?? kind.replacingOccurrences(of: "Stmt", with: "")
    }

    // MARK: tables

    private mutating func createTable(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
        let relationNode = try required(node.record("relation", as: "RangeVar"), at)
        let name = try publicName(relationNode, at)
        if schema.relation(name) != nil {
            if node.bool("if_not_exists") { return [] }
            throw SQLError("relation \"\(name)\" already exists", at: at)
        }
        var relation = Relation(name: name, columns: [])
        var definitions: [String] = []
        var constraints: [String] = []
        for element in node.nodes("tableElts") {
            switch element.kind {
            case "ColumnDef":
                let (attribute, definition, _) = try column(element, table: name, relation: &relation)
                relation.columns.append(attribute)
                definitions.append(definition)
            case "Constraint":
                if let text = try tableConstraint(element, table: name, relation: &relation) { constraints.append(text) }
            default:
                throw SQLError("\(element.kind) in CREATE TABLE is not supported on SQLite", at: element.location ?? at)
            }
        }
        guard !relation.columns.isEmpty else { throw SQLError("a table needs at least one column", at: at) }
        // Supabase's default privileges: every new table is granted to the API roles.
        for role in Self.roles { relation.grants[role] = .all }
        schema.relations[name] = relation
        let sql = "CREATE TABLE \(quote(name)) (" + (definitions + constraints).joined(separator: ", ") + ")"
        return [Step(sql: sql, offset: at, prepareOnly: false)]
    }

    /// One column's SQLite definition; its constraints inline, named as Postgres names them.
    private func column(_ node: Node, table: String, relation: inout Relation) throws(SQLError) -> (Attribute, String, Bool) {
        let name = node.string("colname") ?? ""
        let at = node.location ?? 0
        let typeNode = try required(node.record("typeName", as: "TypeName"), at)
        let typeNames = typeNode.names("names")
        if typeNode.fields["arrayBounds"] != nil { throw SQLError("array columns (\(name)) are not supported on SQLite", at: at) }
        let type = TypeMapping.postgresName(typeNames)
        guard TypeMapping.supported.contains(type) || schema.enums[type] != nil else {
            throw SQLError("type \(typeNames.joined(separator: ".")) (column \(name)) is not supported on SQLite", at: typeNode.location ?? at)
        }
        var attribute = Attribute(name: name, type: type)
        var identity = TypeMapping.isSerial(typeNames)
        var parts = [quote(name), TypeMapping.sqliteType(type)]
        var primary = false
        var tail: [String] = []
        for constraint in node.nodes("constraints") {
            let place = constraint.location ?? at
            switch constraint.string("contype") {
            case "CONSTR_NOTNULL": attribute.nullable = false
            case "CONSTR_NULL": attribute.nullable = true
            case "CONSTR_DEFAULT":
                attribute.hasDefault = true
                tail.append("DEFAULT (\(try expressions.expression(try required(constraint.node("raw_expr"), place))))")
            case "CONSTR_IDENTITY": identity = true
            case "CONSTR_PRIMARY":
                primary = true
                attribute.nullable = false
                relation.primaryKey = [name]
            case "CONSTR_UNIQUE":
                tail.append("CONSTRAINT \(quote(constraint.string("conname") ?? "\(table)_\(name)_key")) UNIQUE")
            case "CONSTR_CHECK":
                let check = try expressions.expression(try required(constraint.node("raw_expr"), place))
                tail.append("CONSTRAINT \(quote(constraint.string("conname") ?? "\(table)_\(name)_check")) CHECK (\(check))")
            case "CONSTR_FOREIGN":
                let key = try foreignKey(constraint, columns: [name], table: table, inline: true)
                relation.foreignKeys.append(key.0)
                tail.append(key.1)
            case "CONSTR_GENERATED":
                throw SQLError("generated columns (\(name)) are not supported on SQLite", at: place)
            default:
                throw SQLError("constraint \(constraint.string("contype") ?? "?") on column \(name) is not supported on SQLite", at: place)
            }
        }
        if identity {
            // An identity is SQLite's rowid: only as the table's single integer primary key.
            guard primary, ["int2", "int4", "int8"].contains(type) else {
                throw SQLError("an identity or serial column (\(name)) must be the table's integer primary key on SQLite", at: at)
            }
            attribute.hasDefault = true
            parts.append("PRIMARY KEY AUTOINCREMENT")
        } else if primary {
            parts.append("CONSTRAINT \(quote("\(table)_pkey")) PRIMARY KEY")
        }
        if !attribute.nullable && !primary { parts.append("NOT NULL") }
        if primary && !identity { parts.append("NOT NULL") }
        if let labels = schema.enums[type] {
            tail.append("CHECK (\(quote(name)) IN (\(labels.map(expressions.literal).joined(separator: ", "))))")
        }
        return (attribute, (parts + tail).joined(separator: " "), primary)
    }

    private func tableConstraint(_ node: Node, table: String, relation: inout Relation) throws(SQLError) -> String? {
        let at = node.location ?? 0
        let keys = node.names("keys")
        for key in keys where relation.column(key) == nil { throw SQLError("column \"\(key)\" named in key does not exist", at: at) }
        switch node.string("contype") {
        case "CONSTR_PRIMARY":
            relation.primaryKey = keys
            for index in relation.columns.indices where keys.contains(relation.columns[index].name) { relation.columns[index].nullable = false }
            return "CONSTRAINT \(quote(node.string("conname") ?? "\(table)_pkey")) PRIMARY KEY (\(keys.map(quote).joined(separator: ", ")))"
        case "CONSTR_UNIQUE":
            let name = node.string("conname") ?? "\(table)_\(keys.joined(separator: "_"))_key"
            return "CONSTRAINT \(quote(name)) UNIQUE (\(keys.map(quote).joined(separator: ", ")))"
        case "CONSTR_CHECK":
            let expression = try required(node.node("raw_expr"), at)
            let name = node.string("conname") ?? "\(table)_check"
            return "CONSTRAINT \(quote(name)) CHECK (\(try expressions.expression(expression)))"
        case "CONSTR_FOREIGN":
            let key = try foreignKey(node, columns: node.names("fk_attrs"), table: table)
            relation.foreignKeys.append(key.0)
            return key.1
        default:
            throw SQLError("constraint \(node.string("contype") ?? "?") is not supported on SQLite", at: at)
        }
    }

    /// A foreign key, in a column's definition (`inline`) or the table's.
    private func foreignKey(_ node: Node, columns: [String], table: String, inline: Bool = false) throws(SQLError) -> (ForeignKey, String) {
        let at = node.location ?? 0
        let target = try required(node.record("pktable", as: "RangeVar"), at)
        let targetName = try expressions.relationName(target)
        let referenced = target.string("schemaname") == "auth" ? "auth.users" : target.string("relname") ?? ""
        var targetColumns = node.names("pk_attrs")
        if targetColumns.isEmpty { targetColumns = schema.relation(referenced)?.primaryKey ?? ["id"] }
        let actions = ["c": " ON DELETE CASCADE", "n": " ON DELETE SET NULL", "r": " ON DELETE RESTRICT", "d": " ON DELETE SET DEFAULT"]
        let name = node.string("conname") ?? "\(table)_\(columns.joined(separator: "_"))_fkey"
        let keyColumns = inline ? "" : " FOREIGN KEY (\(columns.map(quote).joined(separator: ", ")))"
        let text = "CONSTRAINT \(quote(name))\(keyColumns) REFERENCES \(targetName) ("
            + targetColumns.map(quote).joined(separator: ", ") + ")" + (actions[node.string("fk_del_action") ?? "a"] ?? "")
        return (ForeignKey(name: name, columns: columns, referencedRelation: referenced, referencedColumns: targetColumns), text)
    }

    private func index(_ node: Node, _ at: Int) throws(SQLError) -> Step {
        // Postgres cannot build one concurrently inside a migration's transaction either.
        if node.bool("concurrent") { throw SQLError("CREATE INDEX CONCURRENTLY cannot run inside a migration's transaction", at: at) }
        let relation = try existing(try required(node.record("relation", as: "RangeVar"), at), at)
        let elements = try node.nodes("indexParams").map { (element: Node) throws(SQLError) -> String in
            let key: String
            if let name = element.string("name") { key = quote(name) } else {
                key = "(" + (try expressions.expression(try required(element.node("expr"), at))) + ")"
            }
            return key + (element.string("ordering") == "SORTBY_DESC" ? " DESC" : "")
        }
        let name = node.string("idxname") ?? "\(relation.name)_\(node.nodes("indexParams").compactMap { $0.string("name") }.joined(separator: "_"))_idx"
        var sql = "CREATE \(node.bool("unique") ? "UNIQUE " : "")INDEX \(node.bool("if_not_exists") ? "IF NOT EXISTS " : "")"
        sql += "\(quote(name)) ON \(quote(relation.name)) (\(elements.joined(separator: ", ")))"
        if let filter = node.node("whereClause") { sql += " WHERE " + (try expressions.expression(filter)) }
        return Step(sql: sql, offset: at, prepareOnly: false)
    }

    private mutating func alterTable(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
        var relation = try existing(try required(node.record("relation", as: "RangeVar"), at), at)
        var steps: [Step] = []
        for command in node.nodes("cmds") {
            let place = command.location ?? at
            switch command.string("subtype") {
            case "AT_EnableRowSecurity", "AT_ForceRowSecurity": relation.rowSecurity = true
            case "AT_DisableRowSecurity": relation.rowSecurity = false
            case "AT_NoForceRowSecurity": break
            case "AT_AddColumn":
                let definition = try required(command.node("def"), place)
                let (attribute, text, primary) = try column(definition, table: relation.name, relation: &relation)
                if primary { throw SQLError("adding a primary key column is not supported on SQLite", at: place) }
                if relation.column(attribute.name) != nil {
                    if command.bool("missing_ok") { continue }
                    throw SQLError("column \"\(attribute.name)\" of relation \"\(relation.name)\" already exists", at: place)
                }
                relation.columns.append(attribute)
                steps.append(Step(sql: "ALTER TABLE \(quote(relation.name)) ADD COLUMN \(text)", offset: place, prepareOnly: false))
            case "AT_DropColumn":
                let name = command.string("name") ?? ""
                guard relation.column(name) != nil else {
                    if command.bool("missing_ok") { continue }
                    throw SQLError("column \"\(name)\" of relation \"\(relation.name)\" does not exist", at: place)
                }
                relation.columns.removeAll { $0.name == name }
                steps.append(Step(sql: "ALTER TABLE \(quote(relation.name)) DROP COLUMN \(quote(name))", offset: place, prepareOnly: false))
            case "AT_AddConstraint":
                steps += try addConstraint(try required(command.node("def"), place), to: &relation)
            default:
                throw SQLError("ALTER TABLE \(command.string("subtype")?.replacingOccurrences(of: "AT_", with: "") ?? "?") is not supported on SQLite", at: place)
            }
        }
        schema.relations[relation.name] = relation
        return steps
    }

    /// SQLite cannot add a constraint to a table: a unique one becomes a unique index, a check
    /// becomes triggers that refuse rows as the constraint would.
    private func addConstraint(_ node: Node, to relation: inout Relation) throws(SQLError) -> [Step] {
        let at = node.location ?? 0
        let table = quote(relation.name)
        switch node.string("contype") {
        case "CONSTR_UNIQUE":
            let keys = node.names("keys")
            let name = node.string("conname") ?? "\(relation.name)_\(keys.joined(separator: "_"))_key"
            return [Step(sql: "CREATE UNIQUE INDEX \(quote(name)) ON \(table) (\(keys.map(quote).joined(separator: ", ")))", offset: at, prepareOnly: false)]
        case "CONSTR_CHECK":
            let name = node.string("conname") ?? "\(relation.name)_check"
            let check = try expressions.expression(try required(node.node("raw_expr"), at))
            let rewritten = try Self.qualifyNew(check, columns: relation.columns.map(\.name))
            return ["INSERT", "UPDATE"].map { event in
                Step(sql: "CREATE TRIGGER \(quote("\(name)_\(event.lowercased())")) BEFORE \(event) ON \(table) WHEN NOT (\(rewritten)) "
                    + "BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: \(name)'); END", offset: at, prepareOnly: false)
            }
        default:
            throw SQLError("ALTER TABLE ADD CONSTRAINT \(node.string("contype")?.replacingOccurrences(of: "CONSTR_", with: "") ?? "?") is not supported on SQLite; declare it in CREATE TABLE", at: at)
        }
    }

    /// A check's column names as `NEW."column"`, for a trigger's WHEN clause.
    static func qualifyNew(_ expression: String, columns: [String]) throws(SQLError) -> String {
        var text = expression
        for column in columns.sorted(by: { $0.count > $1.count }) {
            text = text.replacingOccurrences(of: "\"\(column)\"", with: "NEW.\"\(column)\"")
        }
        return text.replacingOccurrences(of: "NEW.NEW.", with: "NEW.")
    }

    private mutating func rename(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
        var relation = try existing(try required(node.record("relation", as: "RangeVar"), at), at)
        let newName = node.string("newname") ?? ""
        switch node.string("renameType") {
        case "OBJECT_COLUMN":
            let old = node.string("subname") ?? ""
            guard let index = relation.columns.firstIndex(where: { $0.name == old }) else {
                throw SQLError("column \"\(old)\" does not exist", at: at)
            }
            relation.columns[index].name = newName
            relation.primaryKey = relation.primaryKey.map { $0 == old ? newName : $0 }
            schema.relations[relation.name] = relation
            return [Step(sql: "ALTER TABLE \(quote(relation.name)) RENAME COLUMN \(quote(old)) TO \(quote(newName))", offset: at, prepareOnly: false)]
        case "OBJECT_TABLE":
            schema.relations[relation.name] = nil
            let old = relation.name
            relation.name = newName
            schema.relations[newName] = relation
            return [Step(sql: "ALTER TABLE \(quote(old)) RENAME TO \(quote(newName))", offset: at, prepareOnly: false)]
        default:
            throw SQLError("this RENAME is not supported on SQLite", at: at)
        }
    }

    private mutating func view(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
        let name = try publicName(try required(node.record("view", as: "RangeVar"), at), at)
        let select = try required(node.node("query"), at)
        let body = try expressions.query(select)
        var relation = Relation(name: name, isView: true, columns: [])
        // Columns: as named in the select list, typed from the relation they come from.
        let sources = Self.relations(in: select.nodes("fromClause"), schema)
        for target in select.nodes("targetList") {
            guard let value = target.node("val") else { continue }
            let fields = value.kind == "ColumnRef" ? value.nodes("fields").map { $0.stringValue ?? "*" } : []
            let qualifier = fields.count > 1 ? fields[fields.count - 2] : nil
            let candidates = sources.filter { qualifier == nil || $0.alias == qualifier }.map(\.relation)
            if fields.last == "*" {
                for source in candidates { relation.columns += source.columns.filter { column in !relation.columns.contains { $0.name == column.name } }.map {
                    Attribute(name: $0.name, type: $0.type)
                } }
                continue
            }
            let function = value.kind == "FuncCall" ? value.names("funcname").last : nil
            let columnName = target.string("name") ?? fields.last ?? function ?? "?column?"
            let sourceName = fields.last ?? columnName
            // Postgres's types for what views compute most: count(...) is bigint.
            let type = function == "count" ? "int8" : candidates.lazy.compactMap { $0.column(sourceName) }.first?.type ?? "text"
            relation.columns.append(Attribute(name: columnName, type: type))
        }
        for option in node.nodes("options") where option.string("defname") == "security_invoker" {
            let value = option.node("arg").flatMap { $0.string("sval") ?? $0.record("boolval", as: "Boolean").map { $0.bool("boolval") ? "true" : "false" } }
            relation.securityInvoker = ["true", "on", "1", "yes"].contains(value?.lowercased() ?? "true")
        }
        relation.query = body
        if node.bool("replace") { schema.relations[name] = nil }
        guard schema.relation(name) == nil else { throw SQLError("relation \"\(name)\" already exists", at: at) }
        for role in Self.roles { relation.grants[role] = .all }
        schema.relations[name] = relation
        let replace = node.bool("replace") ? "DROP VIEW IF EXISTS \(quote(name)); " : ""
        return [Step(sql: replace + "CREATE VIEW \(quote(name)) AS \(Schema.plain(body))", offset: at, prepareOnly: false)]
    }

    /// A SQL-language function whose body is one query: kept for `/rest/v1/rpc/<name>`.
    private mutating func function(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
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
        translator.shadowed = Set(Self.relations(in: statements[0].node.nodes("fromClause"), schema).flatMap { $0.relation.columns.map(\.name) })
        let body: String
        do { body = try translator.query(statements[0].node) } catch { throw SQLError("in the body of \(name): \(error.message)", at: bodyAt) }
        let definer = options["security"]?.bool("boolval") ?? false
        guard node.bool("replace") || schema.functions[name] == nil else { throw SQLError("function \(name) already exists", at: at) }
        schema.functions[name] = Function(
            name: name, arguments: arguments, returns: returns, returnsSet: returnType.bool("setof"), columns: columns, body: body,
            defaults: defaults, securityDefiner: definer)
        // Prepared once, so an unknown column or table is refused now.
        return [Step(sql: Schema.plain(body), offset: bodyAt, prepareOnly: true)]
    }

    /// The relations a FROM clause reads, each with the name queries refer to it by.
    private static func relations(in items: [Node], _ schema: Schema) -> [(alias: String, relation: Relation)] {
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

    // MARK: access

    private mutating func policy(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
        var relation = try existing(try required(node.record("table", as: "RangeVar"), at), at)
        let name = node.string("policy_name") ?? ""
        guard !relation.policies.contains(where: { $0.name == name }) else {
            throw SQLError("policy \"\(name)\" for table \"\(relation.name)\" already exists", at: at)
        }
        let command = Policy.Command(rawValue: node.string("cmd_name") ?? "all") ?? .all
        let roles = node.nodes("roles").map { $0.string("rolename") ?? "public" }
        for role in roles where !(Self.roles + ["public"]).contains(role) {
            throw SQLError("role \"\(role)\" does not exist (SQLite knows anon, authenticated and service_role)", at: at)
        }
        let using = try node.node("qual").map(expressions.expression)
        let check = try node.node("with_check").map(expressions.expression)
        relation.policies.append(Policy(name: name, command: command, roles: roles, permissive: node.bool("permissive"), using: using, check: check))
        schema.relations[relation.name] = relation
        // Prepared against the table, so an unknown column or function is refused now, not at a request.
        return [using, check].compactMap { $0 }.map {
            Step(sql: "SELECT 1 FROM \(quote(relation.name)) WHERE \(Schema.plain($0))", offset: at, prepareOnly: true)
        }
    }

    private mutating func grant(_ node: Node, _ at: Int) throws(SQLError) {
        let objectType = node.string("objtype") ?? ""
        if objectType == "OBJECT_FUNCTION" { return try grantExecute(node, at) }
        // Schemas and sequences need no grant on SQLite: tables and functions are what requests reach.
        guard objectType == "OBJECT_TABLE" else { return }
        var targets: [String]
        if node.string("targtype") == "ACL_TARGET_ALL_IN_SCHEMA" {
            targets = schema.relations.keys.sorted()
        } else {
            targets = try node.nodes("objects").map { (object: Node) throws(SQLError) -> String in try existing(object, at).name }
        }
        var roles = node.nodes("grantees").map { $0.string("rolename") ?? "public" }
        if roles.contains("public") { roles = Self.roles }
        for role in roles where !Self.roles.contains(role) {
            throw SQLError("role \"\(role)\" does not exist (SQLite knows anon, authenticated and service_role)", at: at)
        }
        let privileges = node.nodes("privileges")
        for target in targets {
            var relation = schema.relations[target]!
            for role in roles {
                var held = relation.grants[role] ?? Privileges()
                if privileges.isEmpty {
                    held = node.bool("is_grant") ? .all : Privileges()
                }
                for privilege in privileges {
                    let columns = privilege.names("cols")
                    let granted = node.bool("is_grant")
                    switch privilege.string("priv_name") ?? "" {
                    case "select" where columns.isEmpty:
                        held.select = granted
                        if !granted { held.selectColumns = [] }
                    case "select":
                        for column in columns where relation.column(column) == nil {
                            throw SQLError("column \"\(column)\" of relation \"\(target)\" does not exist", at: at)
                        }
                        held.selectColumns = granted ? Array(Set(held.selectColumns + columns)).sorted() : held.selectColumns.filter { !columns.contains($0) }
                    case "insert": held.insert = granted
                    case "delete": held.delete = granted
                    case "update" where columns.isEmpty:
                        held.update = granted
                        if !granted { held.updateColumns = [] }
                    case "update":
                        for column in columns where relation.column(column) == nil {
                            throw SQLError("column \"\(column)\" of relation \"\(target)\" does not exist", at: at)
                        }
                        held.updateColumns = granted ? Array(Set(held.updateColumns + columns)).sorted() : held.updateColumns.filter { !columns.contains($0) }
                    case "references", "trigger", "truncate": break
                    case let other: throw SQLError("privilege \(other) is not supported on SQLite", at: at)
                    }
                }
                relation.grants[role] = held
            }
            schema.relations[target] = relation
        }
    }

    /// `GRANT` / `REVOKE EXECUTE ON FUNCTION f(...) TO|FROM roles` (and `ALL FUNCTIONS IN SCHEMA public`).
    private mutating func grantExecute(_ node: Node, _ at: Int) throws(SQLError) {
        let names: [String]
        if node.string("targtype") == "ACL_TARGET_ALL_IN_SCHEMA" {
            names = schema.functions.keys.sorted()
        } else {
            names = node.nodes("objects").compactMap { $0.names("objname").last }
        }
        let roles = node.nodes("grantees").map { $0.string("rolename") ?? "public" }
        for role in roles where !(Self.roles + ["public"]).contains(role) {
            throw SQLError("role \"\(role)\" does not exist (SQLite knows anon, authenticated and service_role)", at: at)
        }
        for name in names {
            guard var function = schema.functions[name] else { throw SQLError("function \(name) does not exist", at: at) }
            if node.bool("is_grant") { function.executors.formUnion(roles) } else { function.executors.subtract(roles) }
            schema.functions[name] = function
        }
    }

    private mutating func drop(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
        let missingOK = node.bool("missing_ok")
        var steps: [Step] = []
        for object in node.fields["objects"]?.arrayValue ?? [] {
            let names: [String] = Node(object).map { $0.kind == "List" ? $0.names("items") : [$0.stringValue ?? ""] } ?? []
            switch node.string("removeType") {
            case "OBJECT_TABLE", "OBJECT_VIEW":
                let name = names.last ?? ""
                guard schema.relation(name) != nil else {
                    if missingOK { continue }
                    throw SQLError("relation \"\(name)\" does not exist", at: at)
                }
                schema.relations[name] = nil
                steps.append(Step(sql: "DROP \(node.string("removeType") == "OBJECT_VIEW" ? "VIEW" : "TABLE") \(quote(name))", offset: at, prepareOnly: false))
            case "OBJECT_INDEX":
                steps.append(Step(sql: "DROP INDEX \(missingOK ? "IF EXISTS " : "")\(quote(names.last ?? ""))", offset: at, prepareOnly: false))
            case "OBJECT_POLICY":
                // [table, policy] (or [schema, table, policy]).
                let table = names.dropLast().last ?? ""
                let policy = names.last ?? ""
                guard var relation = schema.relations[table], relation.policies.contains(where: { $0.name == policy }) else {
                    if missingOK { continue }
                    throw SQLError("policy \"\(policy)\" for table \"\(table)\" does not exist", at: at)
                }
                relation.policies.removeAll { $0.name == policy }
                schema.relations[table] = relation
            case "OBJECT_FUNCTION":
                let name = Node(object).flatMap { $0.names("objname").last } ?? names.last ?? ""
                guard schema.functions[name] != nil else {
                    if missingOK { continue }
                    throw SQLError("function \(name) does not exist", at: at)
                }
                schema.functions[name] = nil
            case "OBJECT_TYPE":
                let name = names.last ?? ""
                guard schema.enums[name] != nil else {
                    if missingOK { continue }
                    throw SQLError("type \"\(name)\" does not exist", at: at)
                }
                schema.enums[name] = nil
            default:
                throw SQLError("DROP \(node.string("removeType")?.replacingOccurrences(of: "OBJECT_", with: "") ?? "?") is not supported on SQLite", at: at)
            }
        }
        return steps
    }

    // MARK: data

    /// INSERT ... VALUES, UPDATE and DELETE (seed rows in a migration).
    private func data(_ node: Node) throws(SQLError) -> String {
        let at = node.location ?? 0
        let target = try required(node.record("relation", as: "RangeVar"), at)
        let table = try expressions.relationName(target)
        switch node.kind {
        case "InsertStmt":
            let columns = node.nodes("cols").compactMap { $0.string("name") }
            let select = try required(node.node("selectStmt"), at)
            let body: String
            if let rows = select.fields["valuesLists"]?.arrayValue {
                body = "VALUES " + (try rows.map { (row: JSONValue) throws(SQLError) -> String in
                    let items = Node(row).map { $0.nodes("items") } ?? []
                    return "(" + (try items.map { (item: Node) throws(SQLError) -> String in try expressions.expression(item) }.joined(separator: ", ")) + ")"
                }.joined(separator: ", "))
            } else {
                body = try expressions.query(select)
            }
            let list = columns.isEmpty ? "" : " (" + columns.map(quote).joined(separator: ", ") + ")"
            return "INSERT INTO \(table)\(list) \(body)"
        case "UpdateStmt":
            let assignments = try node.nodes("targetList").map { (target: Node) throws(SQLError) -> String in
                "\(quote(target.string("name") ?? "")) = \(try expressions.expression(try required(target.node("val"), at)))"
            }
            let filter = try whereClause(node)
            return "UPDATE \(table) SET \(assignments.joined(separator: ", "))\(filter)"
        default:
            let filter = try whereClause(node)
            return "DELETE FROM \(table)\(filter)"
        }
    }

    private func whereClause(_ node: Node) throws(SQLError) -> String {
        guard let filter = node.node("whereClause") else { return "" }
        return " WHERE " + (try expressions.expression(filter))
    }

    // MARK: helpers

    private func publicName(_ node: Node, _ at: Int) throws(SQLError) -> String {
        if let schemaName = node.string("schemaname"), schemaName != "public" {
            throw SQLError("only the public schema is supported on SQLite (not \(schemaName))", at: node.location ?? at)
        }
        return node.string("relname") ?? ""
    }

    private func existing(_ node: Node, _ at: Int) throws(SQLError) -> Relation {
        let name = try publicName(node, at)
        guard let relation = schema.relation(name) else { throw SQLError("relation \"\(name)\" does not exist", at: node.location ?? at) }
        return relation
    }

    private func required(_ node: Node?, _ at: Int) throws(SQLError) -> Node {
        guard let node else { throw SQLError("this statement's form is not supported on SQLite", at: at) }
        return node
    }

    private func quote(_ identifier: String) -> String { expressions.quote(identifier) }
}
