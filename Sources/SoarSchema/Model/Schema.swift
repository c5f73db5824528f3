/// The app's relations as the data API sees them: the tables and views of the `public` schema,
/// their columns and keys, and (on SQLite, where Soar enforces them) grants and policies.
///
/// On Postgres it is read from the catalog; on SQLite it is built by translating the migrations
/// and kept in the database beside the tables, so that it changes in the same transaction.
public struct Schema: Codable, Sendable, Equatable {
    public var relations: [String: Relation] = [:]
    /// `CREATE TYPE ... AS ENUM`: each type's labels, in order.
    public var enums: [String: [String]] = [:]

    public init() {}

    public func relation(_ name: String) -> Relation? { relations[name] }
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

    public init(name: String, isView: Bool = false, columns: [Attribute], primaryKey: [String] = []) {
        self.name = name
        self.isView = isView
        self.columns = columns
        self.primaryKey = primaryKey
        foreignKeys = []
        rowSecurity = false
        policies = []
        grants = [:]
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
    public var referencedRelation: String
    public var referencedColumns: [String]
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

/// A role's privileges on one relation; `update` may be granted on some columns only.
public struct Privileges: Codable, Sendable, Equatable {
    public var select = false
    public var insert = false
    public var update = false
    public var delete = false
    /// `GRANT UPDATE (a, b)`: the columns an update may set when `update` is not granted whole.
    public var updateColumns: [String] = []

    public init() {}

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

extension Relation {
    /// The expression rows must meet for `role` to reach them by `command` (policies' `USING`),
    /// or nil when nothing limits them; `"0"` when row security denies everything.
    public func rowFilter(_ command: Policy.Command, role: String) -> String? {
        guard rowSecurity, role != "service_role" else { return nil }
        return combine(policies.filter { $0.applies(to: command, role: role) }) { $0.using }
    }

    /// The expression written rows must meet (`WITH CHECK`, or `USING` where a policy has no check).
    public func rowCheck(_ command: Policy.Command, role: String) -> String? {
        guard rowSecurity, role != "service_role" else { return nil }
        return combine(policies.filter { $0.applies(to: command, role: role) }) { $0.check ?? $0.using }
    }

    /// Whether any permissive policy could let `role` do `command` (false: refuse before any SQL).
    public func mayReachAnyRow(_ command: Policy.Command, role: String) -> Bool {
        !rowSecurity || role == "service_role" || policies.contains { $0.permissive && $0.applies(to: command, role: role) }
    }

    /// Permissive policies OR'ed, restrictive ones AND'ed, as Postgres combines them.
    private func combine(_ applicable: [Policy], _ expression: (Policy) -> String?) -> String {
        let permissive = applicable.filter(\.permissive).map { expression($0) ?? "1" }
        let restrictive = applicable.filter { !$0.permissive }.compactMap(expression)
        guard !permissive.isEmpty else { return "0" }
        let allowed = "(" + permissive.map { "(\($0))" }.joined(separator: " OR ") + ")"
        return ([allowed] + restrictive.map { "(\($0))" }).joined(separator: " AND ")
    }
}
