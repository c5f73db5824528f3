/// A store failure in Postgres' terms (SQLSTATE codes), so every store maps to the same wire errors.
///
/// PostgREST turns these into statuses: 23505 409, 23502 400, 22P02 400, 42501 401/403, 42703 400.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: String
    public let message: String
    public let details: String?
    public let hint: String?
    /// Where in the statement's text Postgres found the error (a character count from 1).
    public var position: Int?

    public init(code: String, message: String, details: String? = nil, hint: String? = nil) {
        self.code = code
        self.message = message
        self.details = details
        self.hint = hint
    }

    public var description: String { "\(code): \(message)" }

    public static func uniqueViolation(_ constraint: String, details: String? = nil) -> StoreError {
        StoreError(code: "23505", message: "duplicate key value violates unique constraint \"\(constraint)\"", details: details)
    }
    public static func notNull(_ column: String, table: String) -> StoreError {
        StoreError(code: "23502", message: "null value in column \"\(column)\" of relation \"\(table)\" violates not-null constraint")
    }
    public static func checkViolation(_ constraint: String, table: String, details: String) -> StoreError {
        StoreError(code: "23514", message: "new row for relation \"\(table)\" violates check constraint \"\(constraint)\"", details: details)
    }
    public static func invalidText(_ type: String, _ value: String) -> StoreError {
        StoreError(code: "22P02", message: "invalid input syntax for type \(type): \"\(value)\"")
    }
    /// Text with a NUL character, which Postgres text cannot hold.
    public static let nulCharacter = StoreError(code: "22P05", message: "unsupported Unicode escape sequence", details: "\\u0000 cannot be converted to text.")
    public static func rowSecurity(_ table: String) -> StoreError {
        StoreError(code: "42501", message: "new row violates row-level security policy for table \"\(table)\"")
    }
    public static func permissionDenied(_ table: String) -> StoreError {
        StoreError(code: "42501", message: "permission denied for table \(table)")
    }
    public static func undefinedTable(_ name: String) -> StoreError {
        StoreError(code: "42P01", message: "relation \"public.\(name)\" does not exist")
    }
    public static func undefinedColumn(_ column: String, table: String) -> StoreError {
        StoreError(code: "42703", message: "column \(table).\(column) does not exist")
    }
    /// One object was asked for and a write touched another number of rows (it is rolled back).
    public static func notOneRow(_ count: Int) -> StoreError {
        StoreError(code: "PGRST116", message: "JSON object requested, multiple (or no) rows returned", details: "The result contains \(count) rows")
    }

    /// Inside a write's transaction, so that a failure rolls it back: see ``notOneRow(_:)``.
    @discardableResult
    static func requireOneRow(_ rows: [StoredRow], if single: Bool) throws(StoreError) -> [StoredRow] {
        if single && rows.count != 1 { throw notOneRow(rows.count) }
        return rows
    }

    /// The store itself failed (disk full, locked too long, corrupt file): a 503/500, never the client's fault.
    public static func unavailable(_ message: String) -> StoreError {
        StoreError(code: "XX000", message: message)
    }

    /// Whether the client caused it (a constraint, a bad value) rather than the store.
    public var isClientError: Bool { code != "XX000" }
}
