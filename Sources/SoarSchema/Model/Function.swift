/// A function the data API calls at `/rest/v1/rpc/<name>` (supabase's `.rpc()`).
public struct Function: Codable, Sendable, Equatable {
    public var name: String
    /// Its arguments, by name, with their Postgres types (`hasDefault`: may be left out).
    public var arguments: [Attribute]
    /// `void`, a scalar type, a relation (its rows), or `record` (`RETURNS TABLE`).
    public var returns: String
    public var returnsSet: Bool
    /// The columns of what it returns, for a relation or `RETURNS TABLE`.
    public var columns: [Attribute]
    /// On SQLite: its body as SQLite SQL (relations marked), argument `n` bound as `?n`, and
    /// each argument's default as an expression.
    public var body: String?
    public var defaults: [String?]
    /// `SECURITY DEFINER`: the body reads with its owner's rights, not the caller's policies.
    public var securityDefiner: Bool
    /// The roles granted EXECUTE (`public`: every role), as a Supabase project's defaults grant it.
    public var executors: Set<String> = ["public", "anon", "authenticated", "service_role"]

    public func executable(by role: String) -> Bool { executors.contains("public") || executors.contains(role) }

    enum CodingKeys: String, CodingKey {
        case name, arguments, returns, returnsSet, columns, body, defaults, securityDefiner, executors
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        arguments = try container.decode([Attribute].self, forKey: .arguments)
        returns = try container.decode(String.self, forKey: .returns)
        returnsSet = try container.decode(Bool.self, forKey: .returnsSet)
        columns = try container.decode([Attribute].self, forKey: .columns)
        body = try container.decodeIfPresent(String.self, forKey: .body)
        defaults = try container.decode([String?].self, forKey: .defaults)
        securityDefiner = try container.decode(Bool.self, forKey: .securityDefiner)
        executors = try container.decodeIfPresent(Set<String>.self, forKey: .executors) ?? ["public", "anon", "authenticated", "service_role"]
    }

    public init(name: String, arguments: [Attribute], returns: String, returnsSet: Bool, columns: [Attribute] = [], body: String? = nil, defaults: [String?] = [], securityDefiner: Bool = false) {
        self.name = name
        self.arguments = arguments
        self.returns = returns
        self.returnsSet = returnsSet
        self.columns = columns
        self.body = body
        self.defaults = defaults
        self.securityDefiner = securityDefiner
    }

    /// Whether it answers rows as objects (a relation's or a table's), not scalars.
    public var returnsRows: Bool { !columns.isEmpty }

    /// What it returns as a relation, for filters, order and select on its rows.
    public var result: Relation { Relation(name: name, columns: columns) }

    /// `f(a, b)`, as PostgREST names a function in its errors.
    public var signature: String { "public.\(name)(\(arguments.map(\.name).joined(separator: ", ")))" }
}
