/// A parsed PostgREST request against one table: the one query model every store renders to SQL.
///
/// Columns in it were checked against the table's declaration and values converted to the
/// column's type, so a renderer needs no request text: identifiers from the declaration, values
/// as bound parameters.
public struct RowQuery: Sendable {
    /// An output column and the key it is returned under (`alias:column`), or an embedded
    /// resource (`alias:table(...)`, an index into ``embeddings``).
    public struct Output: Sendable, Equatable {
        public let column: String
        public let key: String
        public let embedding: Int?

        public init(column: String, key: String, embedding: Int? = nil) {
            self.column = column
            self.key = key
            self.embedding = embedding
        }
    }

    /// A related table read with each row, through a foreign key (PostgREST's resource embedding).
    public struct Embedding: Sendable {
        /// The related relation.
        public let relation: String
        /// `!hint`: the foreign key's name, or one of its columns, when several relate the two.
        public let hint: String?
        /// `!inner`: rows without a related row are left out.
        public let inner: Bool
        /// What of it to read: its outputs (embeddings nest), filters, order, limit and offset.
        public var query: RowQuery

        public init(relation: String, hint: String?, inner: Bool, query: RowQuery) {
            self.relation = relation
            self.hint = hint
            self.inner = inner
            self.query = query
        }
    }

    public struct Order: Sendable, Equatable {
        public let column: String
        public let descending: Bool
        public let nullsFirst: Bool

        public init(column: String, descending: Bool = false, nullsFirst: Bool = false) {
            self.column = column
            self.descending = descending
            self.nullsFirst = nullsFirst
        }
    }

    public enum Operator: String, Sendable, CaseIterable {
        case eq, neq, gt, gte, lt, lte, like, ilike, `in`, `is`
    }

    /// The right-hand side of a comparison.
    public enum Operand: Sendable, Equatable {
        case value(SQLValue)
        case list([SQLValue])
        case null, isTrue, isFalse, unknown
    }

    public indirect enum Condition: Sendable, Equatable {
        case compare(column: String, op: Operator, operand: Operand)
        case all([Condition])
        case any([Condition])
        case not(Condition)
        /// A related row the caller may read exists (`!inner`): in `relation`, where each
        /// `(related, own)` column pair is equal, and meeting `condition`.
        case related(relation: String, join: [Join], condition: Condition?)

        /// How many comparisons it holds, and how deeply it nests.
        public var shape: (count: Int, depth: Int) {
            switch self {
            case .compare: return (1, 1)
            case .related(_, _, let inner):
                let shape = inner?.shape ?? (count: 0, depth: 0)
                return (shape.count + 1, shape.depth + 1)
            case .not(let inner): return inner.shape
            case .all(let members), .any(let members):
                let shapes = members.map(\.shape)
                return (shapes.reduce(0) { $0 + $1.count }, 1 + (shapes.map(\.depth).max() ?? 0))
            }
        }
    }

    /// A column of a related relation equal to one of this relation's.
    public struct Join: Sendable, Equatable {
        public let related: String
        public let own: String
        public init(related: String, own: String) {
            self.related = related
            self.own = own
        }
    }

    /// Empty means every column (`*`).
    public var outputs: [Output] = []
    public var embeddings: [Embedding] = []
    /// For an embedded resource: how its rows meet the parent's, and whether there is at most one.
    public var join: [Join] = []
    public var toOne = false
    public var condition: Condition?
    public var order: [Order] = []
    public var limit: Int?
    public var offset: Int?
    /// `on_conflict` columns for an upsert; the primary key when absent.
    public var conflictColumns: [String]?
    /// `columns=` for inserts: the keys taken from each body object.
    public var insertColumns: [String]?
    /// Names this query as it was parsed (the data API's table identity and request string): two
    /// queries with one key are the same query but for `offset` and `limit`, which a store keeping
    /// their SQL adds to the key itself. Nil: written afresh.
    public var cacheKey: String?

    public init() {}

    /// What to return: the outputs chosen, or each of `columns` under its own name (`*`).
    public func outputs(of columns: [String]) -> [Output] {
        outputs.isEmpty ? columns.map { Output(column: $0, key: $0) } : outputs
    }

    /// The columns a read of `table` names (what it returns, filters on, orders by, joins on):
    /// what column-level grants must allow.
    public func columnsNamed(in table: Table) -> Set<String> {
        var names = Set(outputs.isEmpty ? table.columns.map(\.name) : outputs.filter { $0.embedding == nil }.map(\.column))
        names.formUnion(order.map(\.column))
        names.formUnion(embeddings.flatMap { $0.query.join.map(\.own) })
        if let condition { names.formUnion(condition.columns) }
        return names
    }
}

extension RowQuery.Condition {
    /// Whether it requires `column` to be one of listed values (`in.(…)`), alone or with others.
    func listsValues(of column: String) -> Bool {
        switch self {
        case .compare(let name, .in, .list): name == column
        case .all(let members): members.contains { $0.listsValues(of: column) }
        default: false
        }
    }

    /// The columns of this relation it compares (not those inside a related table's condition).
    var columns: Set<String> {
        switch self {
        case .compare(let column, _, _): [column]
        case .all(let members), .any(let members): members.reduce(into: Set<String>()) { $0.formUnion($1.columns) }
        case .not(let member): member.columns
        case .related(_, let join, _): Set(join.map(\.own))
        }
    }
}
