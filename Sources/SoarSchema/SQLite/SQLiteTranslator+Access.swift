import SoarCore

/// Row-level security policies and grants: kept in the schema, since SQLite has neither.
extension SQLiteTranslator {

    mutating func policy(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
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
        var translator = expressions
        translator.scope = .init(relation)
        let using = try node.node("qual").map(translator.expression)
        let check = try node.node("with_check").map(translator.expression)
        relation.policies.append(Policy(name: name, command: command, roles: roles, permissive: node.bool("permissive"), using: using, check: check))
        schema.relations[relation.name] = relation
        // Prepared against the table, so an unknown column or function is refused now, not at a request.
        return [using, check].compactMap { $0 }.map {
            Step(sql: "SELECT 1 FROM \(quote(relation.name)) WHERE \(Schema.plain($0))", offset: at, prepareOnly: true)
        }
    }

    mutating func grant(_ node: Node, _ at: Int) throws(SQLError) {
        let objectType = node.string("objtype") ?? ""
        if objectType == "OBJECT_FUNCTION" { return try grantExecute(node, at) }
        // Schemas and sequences need no grant on SQLite: tables and functions are what requests reach.
        guard objectType == "OBJECT_TABLE" else { return }
        var targets: [String]
        if node.string("targtype") == "ACL_TARGET_ALL_IN_SCHEMA" {
            targets = schema.relations.keys.filter { !Schema.isBuiltIn($0) }.sorted()
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
    mutating func grantExecute(_ node: Node, _ at: Int) throws(SQLError) {
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
}
