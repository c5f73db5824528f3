/// The app's relations as the data API sees them: the tables and views of the `public` schema,
/// their columns and keys, and (on SQLite, where Soar enforces them) grants and policies.
///
/// On Postgres it is read from the catalog; on SQLite it is built by translating the migrations
/// and kept in the database beside the tables, so that it changes in the same transaction.
public struct Schema: Codable, Sendable, Equatable {
    public var relations: [String: Relation] = [:]
    /// `CREATE TYPE ... AS ENUM`: each type's labels, in order.
    public var enums: [String: [String]] = [:]
    /// The functions `/rest/v1/rpc/<name>` calls.
    public var functions: [String: Function] = [:]
    /// The tables in the `supabase_realtime` publication: their changes reach realtime subscribers.
    public var realtime: Set<String> = []

    public init() {}

    enum CodingKeys: String, CodingKey { case relations, enums, functions, realtime }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        relations = try container.decode([String: Relation].self, forKey: .relations)
        enums = try container.decode([String: [String]].self, forKey: .enums)
        functions = try container.decodeIfPresent([String: Function].self, forKey: .functions) ?? [:]
        realtime = try container.decodeIfPresent(Set<String>.self, forKey: .realtime) ?? []
    }

    public func relation(_ name: String) -> Relation? { relations[name] }

    /// Supabase's `realtime.messages`, whose policies authorize private channels: every schema
    /// has it (Soar's, not the app's), with row security on and, like Supabase, SELECT and INSERT
    /// granted to the API roles, so only the app's policies open it. The data API does not serve it.
    public static let realtimeMessages = builtIn(
        "realtime.messages",
        [
            Attribute(name: "id", type: "uuid", nullable: false, hasDefault: true), Attribute(name: "topic", type: "text", nullable: false),
            Attribute(name: "extension", type: "text", nullable: false), Attribute(name: "event", type: "text"),
            Attribute(name: "payload", type: "jsonb"), Attribute(name: "private", type: "bool", hasDefault: true),
            Attribute(name: "inserted_at", type: "timestamp", nullable: false, hasDefault: true),
            Attribute(name: "updated_at", type: "timestamp", nullable: false, hasDefault: true),
        ], key: ["id"], grants: [.select, .insert])

    /// Supabase Storage's buckets (`allowed_mime_types` is Postgres's `text[]`; on SQLite the
    /// same array literal as text).
    public static let storageBuckets = builtIn(
        "storage.buckets",
        [
            Attribute(name: "id", type: "text", nullable: false), Attribute(name: "name", type: "text", nullable: false),
            Attribute(name: "owner", type: "uuid"), Attribute(name: "owner_id", type: "text"),
            Attribute(name: "public", type: "bool", nullable: false, hasDefault: true), Attribute(name: "file_size_limit", type: "int8"),
            Attribute(name: "allowed_mime_types", type: "_text"),
            Attribute(name: "created_at", type: "timestamptz", nullable: false, hasDefault: true),
            Attribute(name: "updated_at", type: "timestamptz", nullable: false, hasDefault: true),
        ], key: ["id"], grants: [.select, .insert, .update, .delete])

    /// Supabase Storage's objects: one row per stored object, which the app's policies on it
    /// (`bucket_id = 'avatars' and (storage.foldername(name))[1] = auth.uid()::text`) open.
    public static let storageObjects = builtIn(
        "storage.objects",
        [
            Attribute(name: "id", type: "uuid", nullable: false, hasDefault: true), Attribute(name: "bucket_id", type: "text", nullable: false),
            Attribute(name: "name", type: "text", nullable: false), Attribute(name: "owner", type: "uuid"),
            Attribute(name: "owner_id", type: "text"), Attribute(name: "version", type: "text"),
            Attribute(name: "metadata", type: "jsonb"), Attribute(name: "user_metadata", type: "jsonb"),
            Attribute(name: "created_at", type: "timestamptz", nullable: false, hasDefault: true),
            Attribute(name: "updated_at", type: "timestamptz", nullable: false, hasDefault: true),
            Attribute(name: "last_accessed_at", type: "timestamptz", nullable: false, hasDefault: true),
        ], key: ["id"], grants: [.select, .insert, .update, .delete])

    /// Soar's relations that take the app's policies and grants but that the data API does not
    /// serve (one name each on SQLite, `schema.table`).
    public static let builtIns = [realtimeMessages, storageBuckets, storageObjects]

    public static func isBuiltIn(_ name: String) -> Bool { builtIns.contains { $0.name == name } }

    /// The schema with every built-in relation (a schema stored before one existed gains it).
    public func withBuiltIns() -> Schema {
        var schema = self
        for relation in Self.builtIns where schema.relations[relation.name] == nil { schema.relations[relation.name] = relation }
        return schema
    }

    private enum Grant { case select, insert, update, delete }

    /// Row security on, the commands granted to the API roles (service_role bypasses only the policies).
    private static func builtIn(_ name: String, _ columns: [Attribute], key: [String], grants: [Grant]) -> Relation {
        var relation = Relation(name: name, columns: columns, primaryKey: key)
        relation.rowSecurity = true
        var granted = Privileges()
        granted.select = grants.contains(.select)
        granted.insert = grants.contains(.insert)
        granted.update = grants.contains(.update)
        granted.delete = grants.contains(.delete)
        relation.grants = ["anon": granted, "authenticated": granted, "service_role": granted]
        return relation
    }
}

/// A table or a view.
public struct Relation: Codable, Sendable, Equatable {
    public var name: String
    public var isView: Bool
    public var columns: [Attribute]
    public var primaryKey: [String]
    public var foreignKeys: [ForeignKey]
    /// `ENABLE ROW LEVEL SECURITY`: with no policy for a role and command, nothing is reached.
    public var rowSecurity: Bool
    public var policies: [Policy]
    /// What each role may do (`GRANT` / `REVOKE`); `service_role` bypasses policies, not grants.
    public var grants: [String: Privileges]
    /// A view's query, its relations marked (see ``Schema/marker(_:)``).
    public var query: String?
    /// `WITH (security_invoker = true)`: the view reads its tables under the caller's policies,
    /// not its owner's rights.
    public var securityInvoker: Bool

    public init(name: String, isView: Bool = false, columns: [Attribute], primaryKey: [String] = []) {
        self.name = name
        self.isView = isView
        self.columns = columns
        self.primaryKey = primaryKey
        foreignKeys = []
        rowSecurity = false
        policies = []
        grants = [:]
        query = nil
        securityInvoker = false
    }

    enum CodingKeys: String, CodingKey {
        case name, isView, columns, primaryKey, foreignKeys, rowSecurity, policies, grants, query, securityInvoker
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        isView = try container.decode(Bool.self, forKey: .isView)
        columns = try container.decode([Attribute].self, forKey: .columns)
        primaryKey = try container.decode([String].self, forKey: .primaryKey)
        foreignKeys = try container.decode([ForeignKey].self, forKey: .foreignKeys)
        rowSecurity = try container.decode(Bool.self, forKey: .rowSecurity)
        policies = try container.decode([Policy].self, forKey: .policies)
        grants = try container.decode([String: Privileges].self, forKey: .grants)
        query = try container.decodeIfPresent(String.self, forKey: .query)
        securityInvoker = try container.decodeIfPresent(Bool.self, forKey: .securityInvoker) ?? false
    }

    public func column(_ name: String) -> Attribute? { columns.first { $0.name == name } }
}

/// A column: its name and Postgres type.
public struct Attribute: Codable, Sendable, Equatable {
    public var name: String
    /// Postgres's name of the type (`uuid`, `text`, `int8`, `bool`, `timestamptz`, `jsonb`, an enum's name…).
    public var type: String
    public var nullable: Bool
    public var hasDefault: Bool

    public init(name: String, type: String, nullable: Bool = true, hasDefault: Bool = false) {
        self.name = name
        self.type = type
        self.nullable = nullable
        self.hasDefault = hasDefault
    }
}

/// `columns` of this relation reference `referencedColumns` of `referencedRelation`.
public struct ForeignKey: Codable, Sendable, Equatable {
    public var name: String
    public var columns: [String]
    /// A relation of the app's schema, or `auth.users`.
    public var referencedRelation: String
    public var referencedColumns: [String]

    public init(name: String, columns: [String], referencedRelation: String, referencedColumns: [String]) {
        self.name = name
        self.columns = columns
        self.referencedRelation = referencedRelation
        self.referencedColumns = referencedColumns
    }
}

/// A row-level security policy, its expressions already in the store's SQL.
public struct Policy: Codable, Sendable, Equatable {
    public enum Command: String, Codable, Sendable { case all, select, insert, update, delete }

    public var name: String
    public var command: Command
    /// Empty means every role (`PUBLIC`).
    public var roles: [String]
    public var permissive: Bool
    /// Which existing rows it lets through (select, update, delete).
    public var using: String?
    /// Which new rows it lets be written (insert, update).
    public var check: String?

    public init(name: String, command: Command, roles: [String], permissive: Bool, using: String?, check: String?) {
        self.name = name
        self.command = command
        self.roles = roles
        self.permissive = permissive
        self.using = using
        self.check = check
    }

    public func applies(to command: Command, role: String) -> Bool {
        (self.command == .all || self.command == command) && (roles.isEmpty || roles.contains(role) || roles.contains("public"))
    }
}

/// A role's privileges on one relation; `select` and `update` may be granted on some columns only.
public struct Privileges: Codable, Sendable, Equatable {
    public var select = false
    public var insert = false
    public var update = false
    public var delete = false
    /// `GRANT UPDATE (a, b)`: the columns an update may set when `update` is not granted whole.
    public var updateColumns: [String] = []
    /// `GRANT SELECT (a, b)`: the columns a read may name when `select` is not granted whole.
    public var selectColumns: [String] = []

    public init() {}

    enum CodingKeys: String, CodingKey { case select, insert, update, delete, updateColumns, selectColumns }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        select = try container.decode(Bool.self, forKey: .select)
        insert = try container.decode(Bool.self, forKey: .insert)
        update = try container.decode(Bool.self, forKey: .update)
        delete = try container.decode(Bool.self, forKey: .delete)
        updateColumns = try container.decodeIfPresent([String].self, forKey: .updateColumns) ?? []
        selectColumns = try container.decodeIfPresent([String].self, forKey: .selectColumns) ?? []
    }

    public func mayRead(_ columns: some Sequence<String>) -> Bool {
        select || (!selectColumns.isEmpty && columns.allSatisfy(selectColumns.contains))
    }

    public static let all: Privileges = {
        var all = Privileges()
        all.select = true
        all.insert = true
        all.update = true
        all.delete = true
        return all
    }()

    public func mayUpdate(_ columns: some Sequence<String>) -> Bool {
        update || columns.allSatisfy(updateColumns.contains)
    }
}

extension Schema {
    /// A relation read in a stored query or policy: `\u{1}name\u{2}`, replaced when it runs.
    public static func marker(_ relation: String) -> String { "\u{1}" + relation + "\u{2}" }

    /// The SQL with each marked relation as its plain name (DDL, and checking names exist).
    public static func plain(_ sql: String) -> String {
        replacingMarkers(in: sql) { "\"" + $0 + "\"" }
    }

    /// Why a role's policies cannot be put together: a policy reading, through its subqueries,
    /// the relation it guards (Postgres: "infinite recursion detected in policy for relation").
    public struct Recursion: Error, Sendable, Equatable {
        public let relation: String
    }

    /// The SQL with each marked relation read as `role` reads it: its rows under its policies for
    /// that role (`(SELECT * FROM "t" WHERE ...)`), or the view's query so resolved when it is a
    /// `security_invoker` view.
    public func resolved(_ sql: String, role: String, visiting: [String] = []) throws(Recursion) -> String {
        var failure: Recursion?
        let text = Self.replacingMarkers(in: sql) { name in
            do throws(Recursion) { return try source(name, role: role, visiting: visiting) } catch {
                failure = failure ?? error
                return "\"" + name + "\""
            }
        }
        if let failure { throw failure }
        return text
    }

    /// How a query reads `name` for `role`.
    public func source(_ name: String, role: String, visiting: [String] = []) throws(Recursion) -> String {
        guard let relation = relation(name) else { return "\"" + name + "\"" }
        if visiting.contains(name) { throw Recursion(relation: name) }
        if relation.isView {
            guard relation.securityInvoker, let query = relation.query else { return "\"" + name + "\"" }
            return "(" + (try resolved(query, role: role, visiting: visiting + [name])) + ")"
        }
        guard let filter = try filter(name, .select, role: role, visiting: visiting) else { return "\"" + name + "\"" }
        return "(SELECT * FROM \"\(name)\" WHERE \(filter))"
    }

    /// The expression rows of `name` must meet for `role` to reach them by `command` (policies'
    /// `USING`, resolved), or nil when nothing limits them; `0` when row security denies all.
    public func filter(_ name: String, _ command: Policy.Command, role: String, visiting: [String] = []) throws(Recursion) -> String? {
        guard let relation = relation(name), relation.rowSecurity, role != "service_role" else { return nil }
        let combined = Self.combine(relation.policies.filter { $0.applies(to: command, role: role) }) { $0.using }
        // Postgres refuses any policy of a relation that reads, through its subqueries and their
        // relations' policies, that relation again ("infinite recursion detected in policy").
        return try resolved(combined, role: role, visiting: visiting + [name])
    }

    /// The expression written rows must meet (`WITH CHECK`, or `USING` where a policy has no check).
    public func check(_ name: String, _ command: Policy.Command, role: String) throws(Recursion) -> String? {
        guard let relation = relation(name), relation.rowSecurity, role != "service_role" else { return nil }
        let combined = Self.combine(relation.policies.filter { $0.applies(to: command, role: role) }) { $0.check ?? $0.using }
        return try resolved(combined, role: role, visiting: [name])
    }

    /// Permissive policies OR'ed, restrictive ones AND'ed, as Postgres combines them.
    private static func combine(_ applicable: [Policy], _ expression: (Policy) -> String?) -> String {
        let permissive = applicable.filter(\.permissive).map { expression($0) ?? "1" }
        let restrictive = applicable.filter { !$0.permissive }.compactMap(expression)
        guard !permissive.isEmpty else { return "0" }
        let allowed = "(" + permissive.map { "(\($0))" }.joined(separator: " OR ") + ")"
        return ([allowed] + restrictive.map { "(\($0))" }).joined(separator: " AND ")
    }

    private static func replacingMarkers(in sql: String, _ replacement: (String) -> String) -> String {
        guard sql.contains("\u{1}") else { return sql }
        var out = ""
        var rest = Substring(sql)
        while let start = rest.firstIndex(of: "\u{1}"), let end = rest[start...].firstIndex(of: "\u{2}") {
            out += rest[..<start]
            out += replacement(String(rest[rest.index(after: start)..<end]))
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }
}

extension Relation {
    /// Whether any permissive policy could let `role` do `command` (false: refuse before any SQL).
    public func mayReachAnyRow(_ command: Policy.Command, role: String) -> Bool {
        !rowSecurity || role == "service_role" || policies.contains { $0.permissive && $0.applies(to: command, role: role) }
    }
}
