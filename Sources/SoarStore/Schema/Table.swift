import SoarSchema

/// A table or view the data API serves, as the schema has it now: columns, key, grants and policies.
///
/// SQL identifiers come only from relations like this one (the schema), never from a request.
public struct Table: Sendable {
    public let name: String
    public let columns: [Column]
    public let primaryKey: [String]
    /// Grants and row-level security, which the SQLite store enforces (Postgres enforces its own).
    public let relation: Relation
    private let index: [String: Int]

    public init(_ relation: Relation, enums: [String: [String]] = [:]) {
        name = relation.name
        columns = relation.columns.map { Column($0, relation: relation.name, enums: enums) }
        primaryKey = relation.primaryKey
        self.relation = relation
        index = Dictionary(columns.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    public var isView: Bool { relation.isView }
    public func column(_ name: String) -> Column? { index[name].map { columns[$0] } }
    public func position(of name: String) -> Int? { index[name] }

    /// Every relation of a schema.
    public static func all(_ schema: Schema) -> [String: Table] {
        schema.relations.mapValues { Table($0, enums: schema.enums) }
    }
}
