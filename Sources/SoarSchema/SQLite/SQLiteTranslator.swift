import Foundation
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

    public internal(set) var schema: Schema
    /// The text of the statement being translated (literals are read back from it).
    var source: [UInt8] = []
    /// The API roles: privileges name them, and so do policies.
    public static let roles = ["anon", "authenticated", "service_role"]

    public init(schema: Schema) { self.schema = schema.withBuiltIns() }

    var expressions: ExpressionTranslator {
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
        case "CreateFunctionStmt": return try createFunction(node, at)
        case "DropStmt": return try drop(node, at)
        case "InsertStmt", "UpdateStmt", "DeleteStmt": return [Step(sql: Schema.plain(try data(node)), offset: at, prepareOnly: false)]
        case "CommentStmt", "TransactionStmt", "VariableSetStmt": return []
        case "AlterDefaultPrivilegesStmt":
            // Supabase's defaults already grant every table to the API roles; policies do the limiting.
            return []
        case "AlterPublicationStmt": try publication(node, at); return []
        case "CreatePublicationStmt":
            let name = node.string("pubname") ?? ""
            throw SQLError(name == "supabase_realtime" ? "publication \"supabase_realtime\" already exists" : "only the supabase_realtime publication is read (by realtime)", at: at)
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

    /// `DROP TABLE`, `VIEW`, `INDEX`, `POLICY`, `FUNCTION`, `TYPE`.
    mutating func drop(_ node: Node, _ at: Int) throws(SQLError) -> [Step] {
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
                schema.realtime.remove(name)
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

    /// INSERT ... VALUES, UPDATE and DELETE (seed rows in a migration). Values written to a
    /// column are stored as the data API stores them (``stored(_:column:of:)``).
    func data(_ node: Node) throws(SQLError) -> String {
        let at = node.location ?? 0
        let target = try required(node.record("relation", as: "RangeVar"), at)
        let table = try expressions.relationName(target)
        let relation = schema.relation((try? publicName(target, at)) ?? target.string("relname") ?? "")
        switch node.kind {
        case "InsertStmt":
            var columns = node.nodes("cols").compactMap { $0.string("name") }
            let list = columns.isEmpty ? "" : " (" + columns.map(quote).joined(separator: ", ") + ")"
            if columns.isEmpty { columns = relation?.columns.map(\.name) ?? [] }
            let select = try required(node.node("selectStmt"), at)
            let body: String
            if let rows = select.fields["valuesLists"]?.arrayValue {
                body = "VALUES " + (try rows.map { (row: JSONValue) throws(SQLError) -> String in
                    let items = Node(row).map { $0.nodes("items") } ?? []
                    return "(" + (try items.enumerated().map { (index: Int, item: Node) throws(SQLError) -> String in
                        stored(try expressions.expression(item), column: index < columns.count ? columns[index] : nil, of: relation)
                    }.joined(separator: ", ")) + ")"
                }.joined(separator: ", "))
            } else {
                body = try expressions.query(select)
            }
            return "INSERT INTO \(table)\(list) \(body)"
        case "UpdateStmt":
            let assignments = try node.nodes("targetList").map { (target: Node) throws(SQLError) -> String in
                let name = target.string("name") ?? ""
                return "\(quote(name)) = \(stored(try expressions.expression(try required(target.node("val"), at)), column: name, of: relation))"
            }
            let filter = try whereClause(node)
            return "UPDATE \(table) SET \(assignments.joined(separator: ", "))\(filter)"
        default:
            let filter = try whereClause(node)
            return "DELETE FROM \(table)\(filter)"
        }
    }

    /// A value written to `column` as the column stores it: `soar_value(type, value)`, the store's
    /// own conversion (a timestamp in one form, a UUID in lowercase, `'t'` as a boolean 1), so seed
    /// rows compare and read back as rows the data API wrote. Text and enums are stored as written.
    private func stored(_ value: String, column: String?, of relation: Relation?) -> String {
        guard let type = relation?.columns.first(where: { $0.name == column })?.type,
            !["text", "varchar", "bpchar", "citext", "name"].contains(type), schema.enums[type] == nil
        else { return value }
        return "soar_value('\(type.replacingOccurrences(of: "'", with: "''"))', \(value))"
    }

    func whereClause(_ node: Node) throws(SQLError) -> String {
        guard let filter = node.node("whereClause") else { return "" }
        return " WHERE " + (try expressions.expression(filter))
    }

    // MARK: helpers

    func publicName(_ node: Node, _ at: Int) throws(SQLError) -> String {
        // Realtime Authorization's and Storage's tables take the app's policies and grants, as on Supabase.
        if let schemaName = node.string("schemaname"), let name = node.string("relname"), Schema.isBuiltIn(schemaName + "." + name) {
            return schemaName + "." + name
        }
        if let schemaName = node.string("schemaname"), schemaName != "public" {
            throw SQLError("only the public schema is supported on SQLite (not \(schemaName))", at: node.location ?? at)
        }
        return node.string("relname") ?? ""
    }

    func existing(_ node: Node, _ at: Int) throws(SQLError) -> Relation {
        let name = try publicName(node, at)
        guard let relation = schema.relation(name) else { throw SQLError("relation \"\(name)\" does not exist", at: node.location ?? at) }
        return relation
    }

    func required(_ node: Node?, _ at: Int) throws(SQLError) -> Node {
        guard let node else { throw SQLError("this statement's form is not supported on SQLite", at: at) }
        return node
    }

    func quote(_ identifier: String) -> String { expressions.quote(identifier) }
}

extension SQLiteTranslator {
    /// `ALTER PUBLICATION supabase_realtime ADD | DROP | SET TABLE ...`: which tables' changes
    /// realtime sends (Soar puts its capture triggers on them after the migrations).
    mutating func publication(_ node: Node, _ at: Int) throws(SQLError) {
        guard node.string("pubname") == "supabase_realtime" else {
            throw SQLError("publication \"\(node.string("pubname") ?? "")\" does not exist (realtime reads supabase_realtime)", at: at)
        }
        var tables: [String] = []
        for object in node.nodes("pubobjects") {
            guard object.string("pubobjtype") == "PUBLICATIONOBJ_TABLE", let table = object.record("pubtable", as: "PublicationTable") else {
                throw SQLError("only tables can be added to supabase_realtime", at: at)
            }
            guard table.fields["columns"] == nil, table.fields["whereClause"] == nil else {
                throw SQLError("column lists and row filters in a publication are not supported on SQLite", at: at)
            }
            let relation = try existing(try required(table.record("relation", as: "RangeVar"), at), at)
            guard !relation.isView else { throw SQLError("\"\(relation.name)\" is not a table", at: at) }
            tables.append(relation.name)
        }
        switch node.string("action") {
        case "AP_AddObjects":
            if let already = tables.first(where: { schema.realtime.contains($0) }) {
                throw SQLError("relation \"\(already)\" is already member of publication \"supabase_realtime\"", at: at)
            }
            schema.realtime.formUnion(tables)
        case "AP_DropObjects":
            if let missing = tables.first(where: { !schema.realtime.contains($0) }) {
                throw SQLError("relation \"\(missing)\" is not part of the publication", at: at)
            }
            schema.realtime.subtract(tables)
        default: schema.realtime = Set(tables)
        }
    }
}
