/// A table the data API serves, declared once for every store: columns, key, owner and who may do what.
///
/// SQL identifiers come only from declarations like this one, never from a request.
public struct Table: Sendable {
    /// What clients (`anon`, `authenticated`) may do; `service_role` may do everything.
    public enum ClientAccess: Sendable {
        /// Read, insert, update and delete their own rows.
        case ownRows
        /// Read their own rows; writes are the server's.
        case readOwnRows
        /// Read and delete their own rows, and change only these columns; inserts are the server's.
        case markOwnRows([String])

        /// Whether a client may do `operation` to its own rows (`columns`: those an update sets).
        public func allows(_ operation: Operation, columns: some Sequence<String> = []) -> Bool {
            switch (self, operation) {
            case (.ownRows, _), (.markOwnRows, .delete): true
            case (.markOwnRows(let allowed), .update): columns.allSatisfy { allowed.contains($0) }
            default: false
            }
        }
    }

    public enum Operation: Sendable {
        case insert, update, delete
    }

    public let name: String
    public let columns: [Column]
    public let primaryKey: [String]
    /// The column holding the owning user's id (`auth.uid() = <owner>`).
    public let owner: String
    public let clientAccess: ClientAccess
    private let index: [String: Int]

    public init(_ name: String, columns: [Column], primaryKey: [String], owner: String, clientAccess: ClientAccess = .ownRows) {
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.owner = owner
        self.clientAccess = clientAccess
        self.index = Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1.name, $0) })
    }

    public func column(_ name: String) -> Column? { index[name].map { columns[$0] } }
    public func position(of name: String) -> Int? { index[name] }
}
