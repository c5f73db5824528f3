/// What the SQL written once for both stores needs of a connection: run a statement, get its rows.
///
/// SQLite's values come back typed; Postgres's as text (a boolean as `t`): readers of shared SQL
/// take either (see ``SQLValue/flag``).
protocol SQLConnection {
    @discardableResult
    func rows(_ statement: SQLStatement) throws(StoreError) -> [[SQLValue]]
}

extension SQLConnection {
    @discardableResult
    func rows(_ text: String, _ parameters: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        try rows(SQLStatement(text: text, parameters: parameters))
    }
}

extension SQLiteConnection: SQLConnection {
    func rows(_ statement: SQLStatement) throws(StoreError) -> [[SQLValue]] {
        try self.statement(statement.text).rows(statement.parameters)
    }
}

extension PGConnection: SQLConnection {
    func rows(_ statement: SQLStatement) throws(StoreError) -> [[SQLValue]] {
        try query(statement).map { row in row.map { $0.map(SQLValue.text) ?? .null } }
    }
}

extension SQLValue {
    var text: String? {
        switch self {
        case .text(let text): text
        case .integer(let number): String(number)
        case .real(let number): String(number)
        case .null: nil
        }
    }

    /// A boolean as either store returns it: SQLite's 1, Postgres's `t`.
    var flag: Bool {
        switch self {
        case .integer(let number): number != 0
        case .text(let text): text == "t" || text == "true"
        default: false
        }
    }

    /// The value as a libpq text parameter (`nil` is NULL; booleans travel as `1` and `0`).
    var postgresText: String? { text }
}
