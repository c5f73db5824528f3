import Foundation
import SoarCore
import SoarSchema

/// A table row as stored: one value per declared column, in declaration order.
public typealias StoredRow = [SQLValue]

/// Values to write, by column name. A column left out gets its default.
public typealias RowValues = [String: SQLValue]

/// How an insert treats a row whose conflict columns match an existing one.
public enum ConflictResolution: Sendable, Equatable {
    /// Update the existing row with the columns the request gave (`resolution=merge-duplicates`).
    case merge(on: [String])
    /// Keep the existing row (`resolution=ignore-duplicates`).
    case ignore(on: [String])
}

/// The data API's storage: rows of the app's tables, with grants and policies applied for `access`.
///
/// SQLite applies the policies itself (translated from the app's migrations); Postgres enforces
/// its own row-level security.
public protocol DataStore: Sendable {
    /// The tables and views the data API serves now (the app's schema), by name.
    var tables: [String: Table] { get }
    /// One of Soar's built-in relations (`storage.objects`, `storage.buckets`: ``Schema/builtIns``)
    /// under the app's grants and policies; the data API does not serve them.
    func builtIn(_ name: String) -> Table
    /// The functions `/rest/v1/rpc/<name>` calls, by name.
    var functions: [String: Function] { get }
    /// Calls `function` as `access` with a value for each of its arguments (nil: its default);
    /// `query` filters, orders, limits and picks the columns of the rows it returns.
    ///
    /// - Returns: its answer as PostgREST writes it (rows as objects, a scalar, an array), or
    ///   nil when it returns `void`.
    func call(_ function: Function, _ arguments: [SQLValue?], query: RowQuery, as access: Access) throws(StoreError) -> JSONValue?
    /// Rows matching the query, and the number matching without limit and offset when `counting`.
    func select(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool) throws(StoreError) -> (rows: [StoredRow], total: Int?)
    /// The same read, its rows written straight into `json` as the data API's array of objects
    /// (the query's outputs as keys, each value as ``Column/json(_:)`` renders it), without making
    /// values first. Nil, with nothing written, where the store has no such path or the query
    /// embeds other tables.
    func selectJSON(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool, into json: inout JSONText) throws(StoreError) -> (rows: Int, total: Int?)?
    /// Inserts rows in one transaction (all or none) and returns those written. Each write takes
    /// `single`: when set, a write of any other number of rows than one is rolled back and fails
    /// with ``StoreError/notOneRow(_:)`` (PostgREST's answer to `vnd.pgrst.object+json`); and
    /// `returning`: when set, the rows come back, and so must meet the table's SELECT policies, as
    /// Postgres requires of `RETURNING`; when not, the rows returned are empty (only their number
    /// counts), as PostgREST's `return=minimal` asks nothing of the SELECT policies.
    func insert(_ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool) throws(StoreError) -> [StoredRow]
    /// The same insert without waiting for it: `completion` is called once, on any thread, when it
    /// is committed or has failed. The default runs the insert above and calls it at once.
    func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool,
        completion: @escaping @Sendable (Result<[StoredRow], StoreError>) -> Void)
    /// Updates the matching rows and returns them as they are now (see `returning` above).
    func update(
        _ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool, returning: Bool
    ) throws(StoreError) -> [StoredRow]
    /// Deletes the matching rows and returns them.
    func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access, single: Bool) throws(StoreError) -> [StoredRow]
    /// Whether the store answers a read (for `/health`).
    func ping() throws(StoreError)
    /// Whether it takes a write: one row of Soar's own rewritten (for `/health`: a full disk, a
    /// read-only file or a standby database fail it while reads still answer).
    func probeWrite() throws(StoreError)
}

extension DataStore {
    public func selectJSON(_ table: Table, _ query: RowQuery, as access: Access, counting: Bool, into json: inout JSONText) throws(StoreError) -> (rows: Int, total: Int?)? {
        nil
    }

    public func call(_ function: Function, _ arguments: [SQLValue?], as access: Access) throws(StoreError) -> JSONValue? {
        try call(function, arguments, query: RowQuery(), as: access)
    }

    /// A relation of the app's schema.
    ///
    /// - Throws: ``StoreError`` 42P01 when there is none (a migration removed it, or never made it).
    public func table(_ name: String) throws(StoreError) -> Table {
        guard let table = tables[name] else { throw .undefinedTable(name) }
        return table
    }

    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool, returning: Bool,
        completion: @escaping @Sendable (Result<[StoredRow], StoreError>) -> Void
    ) {
        completion(Result { () throws(StoreError) in try insert(table, rows, onConflict: onConflict, as: access, single: single, returning: returning) })
    }

    /// The writes whose rows come back.
    public func insert(_ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool = false) throws(StoreError) -> [StoredRow] {
        try insert(table, rows, onConflict: onConflict, as: access, single: single, returning: true)
    }

    public func insert(
        _ table: Table, _ rows: [RowValues], onConflict: ConflictResolution?, as access: Access, single: Bool,
        completion: @escaping @Sendable (Result<[StoredRow], StoreError>) -> Void
    ) {
        insert(table, rows, onConflict: onConflict, as: access, single: single, returning: true, completion: completion)
    }

    public func update(
        _ table: Table, set values: RowValues, where condition: RowQuery.Condition?, as access: Access, single: Bool = false
    ) throws(StoreError) -> [StoredRow] {
        try update(table, set: values, where: condition, as: access, single: single, returning: true)
    }

    public func delete(_ table: Table, where condition: RowQuery.Condition?, as access: Access) throws(StoreError) -> [StoredRow] {
        try delete(table, where: condition, as: access, single: false)
    }
}

/// Everything `soar serve` keeps.
public protocol Store: DataStore, AuthStore, PushJobStore, WebhookStore, AdminStore, ConsoleCounting, ChangeLog, ChannelAuthorizing {
    /// Where the data lives, for the start-up banner (never with a password).
    var location: String { get }
    /// The migrations this open applied, Soar's own then the app's (empty when up to date).
    var newlyApplied: [String] { get }
    /// Every migration of Soar's own applied, in order.
    func appliedMigrations() throws(StoreError) -> [String]
    /// Applies the app's migrations not yet applied, each in its own transaction, and reloads the
    /// schema the data API serves.
    ///
    /// - Returns: the files applied now, in order.
    /// - Throws: ``MigrationError`` naming the file (and line and column) that failed; it and the
    ///   files after it are not applied.
    @discardableResult
    func migrateApp(_ files: [MigrationFile]) throws(MigrationError) -> [MigrationFile]
    /// The app's migrations applied so far, in order.
    func appliedAppMigrations() throws(StoreError) -> [AppliedMigration]
    /// Runs `body`, the reads the calling thread makes in it seeing one state of the data where
    /// the store can do that cheaply (SQLite: one read transaction on one connection, whose page
    /// cache then serves every read of it; elsewhere each read as usual).
    func snapshot<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T
    func close()
}

extension Store {
    public func snapshot<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T { try body() }
}
