import Foundation
import SoarCore

/// Tables, their columns and constraints, indexes, `ALTER TABLE`, views.
extension SQLiteTranslator {

    mutating func createTable(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
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
    func column(_ node: Node, table: String, relation: inout Relation) throws(SQLError) -> (Attribute, String, Bool) {
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
                var translator = expressions
                var scope = ExpressionTranslator.Scope(relation)
                scope.types[name] = type
                translator.scope = scope
                let check = try translator.expression(try required(constraint.node("raw_expr"), place))
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
        // varchar(n): longer text is refused with Postgres's 22001 (by the store's soar_fits).
        if type == "varchar", let limit = typeNode.nodes("typmods").first?.record("ival", as: "Integer")?.int("ival") {
            tail.append("CHECK (soar_fits(\(quote(name)), \(limit)))")
        }
        return (attribute, (parts + tail).joined(separator: " "), primary)
    }

    func tableConstraint(_ node: Node, table: String, relation: inout Relation) throws(SQLError) -> String? {
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
            var translator = expressions
            translator.scope = .init(relation)
            return "CONSTRAINT \(quote(name)) CHECK (\(try translator.expression(expression)))"
        case "CONSTR_FOREIGN":
            let key = try foreignKey(node, columns: node.names("fk_attrs"), table: table)
            relation.foreignKeys.append(key.0)
            return key.1
        default:
            throw SQLError("constraint \(node.string("contype") ?? "?") is not supported on SQLite", at: at)
        }
    }

    /// A foreign key, in a column's definition (`inline`) or the table's.
    func foreignKey(_ node: Node, columns: [String], table: String, inline: Bool = false) throws(SQLError) -> (ForeignKey, String) {
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

    func index(_ node: Node, _ at: Int) throws(SQLError) -> Step {
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

    mutating func alterTable(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
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
    func addConstraint(_ node: Node, to relation: inout Relation) throws(SQLError) -> [Step] {
        let at = node.location ?? 0
        let table = quote(relation.name)
        switch node.string("contype") {
        case "CONSTR_UNIQUE":
            let keys = node.names("keys")
            let name = node.string("conname") ?? "\(relation.name)_\(keys.joined(separator: "_"))_key"
            return [Step(sql: "CREATE UNIQUE INDEX \(quote(name)) ON \(table) (\(keys.map(quote).joined(separator: ", ")))", offset: at, prepareOnly: false)]
        case "CONSTR_CHECK":
            let name = node.string("conname") ?? "\(relation.name)_check"
            var translator = expressions
            translator.row = "NEW"
            translator.scope = .init(relation)
            let check = try translator.expression(try required(node.node("raw_expr"), at))
            return ["INSERT", "UPDATE"].map { event in
                Step(sql: "CREATE TRIGGER \(quote("\(name)_\(event.lowercased())")) BEFORE \(event) ON \(table) WHEN NOT (\(check)) "
                    + "BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: \(name)'); END", offset: at, prepareOnly: false)
            }
        default:
            throw SQLError("ALTER TABLE ADD CONSTRAINT \(node.string("contype")?.replacingOccurrences(of: "CONSTR_", with: "") ?? "?") is not supported on SQLite; declare it in CREATE TABLE", at: at)
        }
    }

    mutating func rename(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
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
            if schema.realtime.remove(old) != nil { schema.realtime.insert(newName) }
            return [Step(sql: "ALTER TABLE \(quote(old)) RENAME TO \(quote(newName))", offset: at, prepareOnly: false)]
        default:
            throw SQLError("this RENAME is not supported on SQLite", at: at)
        }
    }

    /// The type of a view's computed column where its form shows it: a test is a boolean (read
    /// back as `true`, not 1), a cast its type, a constant its own.
    static func computedType(_ value: Node) -> String? {
        switch value.kind {
        case "BoolExpr", "NullTest", "BooleanTest": return "bool"
        case "SubLink": return ["EXISTS_SUBLINK", "ANY_SUBLINK", "ALL_SUBLINK"].contains(value.string("subLinkType") ?? "") ? "bool" : nil
        case "A_Expr":
            let op = value.names("name").last ?? ""
            let kind = value.string("kind") ?? "AEXPR_OP"
            let tests = ["=", "<>", "!=", "<", ">", "<=", ">=", "~", "~*", "!~", "!~*", "~~", "!~~", "~~*", "!~~*"]
            return kind != "AEXPR_OP" && kind != "AEXPR_NULLIF" || tests.contains(op) ? "bool" : nil
        case "TypeCast": return value.record("typeName", as: "TypeName").map { TypeMapping.postgresName($0.names("names")) }
        case "A_Const":
            if value.record("boolval", as: "Boolean") != nil { return "bool" }
            if value.record("ival", as: "Integer") != nil { return "int4" }
            if value.record("fval", as: "Float") != nil { return "numeric" }
            return nil
        default: return nil
        }
    }

    mutating func view(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
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
            // Postgres's types for what views compute most: count(...) is bigint, a comparison boolean.
            let type = function == "count" ? "int8" : candidates.lazy.compactMap { $0.column(sourceName) }.first?.type ?? Self.computedType(value) ?? "text"
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
}
