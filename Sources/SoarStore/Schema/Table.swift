import SoarSchema
import Synchronization

/// A table or view the data API serves, as the schema has it now: columns, key, grants and policies.
///
/// SQL identifiers come only from relations like this one (the schema), never from a request.
public struct Table: Sendable {
    /// What one role's requests add to the SQL (the SQLite store's row-level security): the
    /// policies' expressions with the relations they read resolved for that role.
    public struct Rules: Sendable {
        /// `USING`, by command (nil: every row).
        public let filters: [Policy.Command: String]
        /// `WITH CHECK`, by command (nil: every row).
        public let checks: [Policy.Command: String]
        /// What a query reads the relation as (a `security_invoker` view's query, resolved).
        public let source: String
        /// Its rows as the role may read them, for a subquery (`(SELECT * ... WHERE policies)`).
        public let rows: String
    }

    public let name: String
    /// This table as the schema it was made from left it, among every table the process made: a
    /// table made again (the schema reloaded) has another. What was worked out from a table (its
    /// parsed queries, its SQL) is kept by it, so it never outlives the policies it came from.
    public let identity: Int
    private static let made = Atomic(0)
    public let columns: [Column]
    public let primaryKey: [String]
    /// Grants and row-level security, which the SQLite store enforces (Postgres enforces its own).
    public let relation: Relation
    private let index: [String: Int]
    private let rules: [String: Result<Rules, StoreError>]

    public init(_ relation: Relation, schema: Schema? = nil) {
        let schema = schema ?? { var single = Schema(); single.relations[relation.name] = relation; return single }()
        name = relation.name
        identity = Self.made.add(1, ordering: .relaxed).newValue
        columns = relation.columns.map { Column($0, relation: relation.name, enums: schema.enums) }
        primaryKey = relation.primaryKey
        self.relation = relation
        index = Dictionary(columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var rules: [String: Result<Rules, StoreError>] = [:]
        for role in Access.Role.allCases.map(\.rawValue) {
            rules[role] = Result { () throws(StoreError) in try Self.rules(relation.name, role: role, in: schema) }
        }
        self.rules = rules
    }

    public var isView: Bool { relation.isView }
    public func column(_ name: String) -> Column? { index[name].map { columns[$0] } }
    public func position(of name: String) -> Int? { index[name] }

    /// What `access`'s requests add to the SQL.
    ///
    /// - Throws: ``StoreError`` 42P17 when the policies read, through their subqueries, the
    ///   relation they guard (Postgres refuses such a query the same way).
    public func rules(for access: Access) throws(StoreError) -> Rules {
        try rules[access.role.rawValue]!.get()
    }

    private static func rules(_ name: String, role: String, in schema: Schema) throws(StoreError) -> Rules {
        do throws(Schema.Recursion) {
            var filters: [Policy.Command: String] = [:], checks: [Policy.Command: String] = [:]
            for command in [Policy.Command.select, .insert, .update, .delete] {
                filters[command] = try schema.filter(name, command, role: role)
                checks[command] = try schema.check(name, command, role: role)
            }
            let invoker = schema.relation(name).map { $0.isView && $0.securityInvoker } ?? false
            let source = invoker ? (try schema.source(name, role: role)) + " AS \"\(name)\"" : "\"\(name)\""
            return Rules(filters: filters, checks: checks, source: source, rows: try schema.source(name, role: role))
        } catch {
            throw StoreError(code: "42P17", message: "infinite recursion detected in policy for relation \"\(error.relation)\"")
        }
    }

    /// Every relation of a schema the data API serves (not Soar's built-ins: `realtime.messages`,
    /// `storage.objects`).
    public static func all(_ schema: Schema) -> [String: Table] {
        schema.relations.filter { !Schema.isBuiltIn($0.key) }.mapValues { Table($0, schema: schema) }
    }
}

extension Table {
    /// A row read as only `columns`, widened to every column in declaration order (NULL where not read).
    func row(_ values: [SQLValue], columns: [String]) -> StoredRow {
        guard columns.count != self.columns.count else { return values }
        var row = StoredRow(repeating: .null, count: self.columns.count)
        for (name, value) in zip(columns, values) { if let position = position(of: name) { row[position] = value } }
        return row
    }

    /// The same for a row Postgres printed as text.
    func row(postgres texts: [String?], columns: [String]) -> StoredRow {
        row(zip(columns, texts).map { name, text in column(name)?.stored(postgres: text) ?? text.map(SQLValue.text) ?? .null }, columns: columns)
    }
}
