/// A parsed PostgREST request against one table: the one query model every store renders to SQL.
///
/// Columns in it were checked against the table's declaration and values converted to the
/// column's type, so a renderer needs no request text: identifiers from the declaration, values
/// as bound parameters.
public struct RowQuery: Sendable {
    /// An output column and the key it is returned under (`alias:column`).
    public struct Output: Sendable, Equatable {
        public let column: String
        public let key: String

        public init(column: String, key: String) {
            self.column = column
            self.key = key
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

        /// How many comparisons it holds, and how deeply it nests.
        var shape: (count: Int, depth: Int) {
            switch self {
            case .compare: return (1, 1)
            case .not(let inner): return inner.shape
            case .all(let members), .any(let members):
                let shapes = members.map(\.shape)
                return (shapes.reduce(0) { $0 + $1.count }, 1 + (shapes.map(\.depth).max() ?? 0))
            }
        }
    }

    /// Empty means every column (`*`).
    public var outputs: [Output] = []
    public var condition: Condition?
    public var order: [Order] = []
    public var limit: Int?
    public var offset: Int?
    /// `on_conflict` columns for an upsert; the primary key when absent.
    public var conflictColumns: [String]?
    /// `columns=` for inserts: the keys taken from each body object.
    public var insertColumns: [String]?

    public init() {}
}
