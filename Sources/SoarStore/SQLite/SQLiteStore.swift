import Foundation
import SoarCore
import SoarMigrations
import SoarSchema
import Synchronization

/// When a commit to the SQLite file is on disk, and so what an acknowledged write survives.
public enum SQLiteSynchronous: String, Sendable, CaseIterable {
    /// Each commit is synced to the disk before it is acknowledged: it survives a power cut or an
    /// OS crash, as a commit to Postgres does (SQLite's `synchronous = FULL`). The default.
    case full
    /// A commit survives the process being killed, but the last ones before a power cut or an OS
    /// crash may be lost (SQLite's `NORMAL` in WAL mode); faster where syncing is slow.
    case normal
}

/// The store on one SQLite file: WAL mode, one writer connection, parallel readers.
///
/// Writes are serialized through the writer (SQLite allows one at a time anyway); reads take a
/// pooled read-only connection, so they never wait for a write to commit.
public final class SQLiteStore: Store, @unchecked Sendable {
    public let path: String
    /// The migrations this open applied (empty when the file was up to date).
    public private(set) var newlyApplied: [String] = []
    let now: @Sendable () -> Date
    private let ownership: FileOwnership
    let writer: WriteBatcher
    private let checkpointer: Checkpointer
    private let statistics = Statistics()
    /// Read-only connections not in use now.
    private let readers = Locked([SQLiteConnection]())
    /// Each table's primary-key index (nil: the key is the rowid), as ``keyLookup`` found it.
    let primaryKeyIndexes = Locked([String: String?]())
    /// The data API's reads as SQL, by role, table and ``RowQuery/cacheKey`` (emptied when the
    /// schema changes): a repeated request reuses its statements instead of writing them again.
    let preparedReads = BoundedCache<PreparedRead>()
    /// The data API's inserts' SQL text by role, table and ``DataSQL/insertShape(_:_:onConflict:returning:)``.
    let insertTexts = BoundedCache<(text: String, checked: Bool)>()
    /// The connection each thread inside ``snapshot(_:)`` reads through, and how many are.
    private let held = Locked([pthread_t: SQLiteConnection]())
    private let snapshots = Atomic(0)
    let liveSessions = LiveSessions()
    /// Push workers' claims on jobs (see ``JobClaims``).
    let jobClaims = Locked(JobClaims())
    /// The app's relations as its migrations left them (see ``tables``).
    let schema = Locked([String: Table]())
    /// The whole model, for the functions and their policies.
    let model = Locked(Schema())
    /// Soar's built-in relations (`storage.objects`) under the app's policies.
    let builtIns = Locked([String: Table]())

    /// Opens (creating) the file and applies pending migrations: Soar's own, then the app's.
    ///
    /// - Parameter app: the app's migrations (its `supabase/migrations`); the starter by default.
    /// - Throws: ``StoreError`` when the file cannot be opened or a migration fails (its message
    ///   names the app's file, line and column).
    public init(
        path: String, app: [MigrationFile] = AppSchema.starters, synchronous: SQLiteSynchronous = .full, now: @escaping @Sendable () -> Date = Date.init
    ) throws(StoreError) {
        self.path = path
        self.now = now
        ownership = try FileOwnership(path: path)
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("PRAGMA synchronous = \(synchronous.rawValue.uppercased())")
        try connection.mapForReading()
        let checkpointer = try Checkpointer(path: path)
        self.checkpointer = checkpointer
        let statistics = self.statistics
        connection.onCommit { pages, writer in
            checkpointer.committed(walPages: pages, writer: writer)
            statistics.committed(writer: writer)
        }
        writer = WriteBatcher(connection: connection)
        newlyApplied = try migrate()
        let loaded = try storedSchema()
        load(loaded)
        do { newlyApplied += try migrateApp(app).map(\.fileName) } catch { throw StoreError.unavailable(error.message) }
        try releaseLeases()
        try analyze()
        statistics.start { [weak self] () throws(StoreError) in try self?.analyze() }
    }

    /// Brings the query planner's statistics up to date (see ``Statistics``).
    private func analyze() throws(StoreError) {
        try write { connection throws(StoreError) in try connection.execute(Statistics.analyze) }
        statistics.generation.withLock { $0 += 1 }
        readers.withLock { $0.removeAll() }
    }

    public var location: String { "sqlite \(path)" }

    /// Commits the writes queued, stops the writer thread and drops the readers.
    public func close() {
        statistics.stop()
        writer.stop(waiting: true)
        readers.withLock { $0.removeAll() }
    }

    deinit {
        statistics.cancel()
        writer.stop(waiting: false)
    }

    /// Also unhealthy once the disk failed a checkpoint (see ``Checkpointer/failed``).
    public func ping() throws(StoreError) {
        if let failed = checkpointer.failed { throw .unavailable(failed) }
        try read { connection throws(StoreError) in _ = try connection.statement("SELECT 1").rows([]) }
    }

    /// Through the writer like any write; unhealthy too while the last transaction it wrote failed
    /// for the database's sake (``WriteBatcher/failure``), whatever this one did.
    public func probeWrite() throws(StoreError) {
        let time = Timestamp.postgres(now())
        _ = try write { connection throws(StoreError) in try connection.rows("UPDATE soar_health SET checked_at = $1 WHERE id = 1", [.text(time)]) }
        if let failed = writer.failure.withLock({ $0 }) { throw .unavailable(failed) }
    }

    /// The migrations applied, in order (for `soar migrate`).
    public func appliedMigrations() throws(StoreError) -> [String] {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT name FROM soar_migrations ORDER BY name").rows([]).compactMap {
                if case .text(let name) = $0[0] { name } else { nil }
            }
        }
    }

    /// Applies each migration not yet recorded, each all or nothing.
    @discardableResult
    func migrate() throws(StoreError) -> [String] {
        try write { connection throws(StoreError) in
            try connection.execute("CREATE TABLE IF NOT EXISTS soar_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
        }
        let applied = Set(try appliedMigrations())
        var done: [String] = []
        for file in Migrations.sqlite where !applied.contains(file.name) {
            let time = Timestamp.postgres(now())
            try write { connection throws(StoreError) in
                do throws(StoreError) {
                    try connection.execute(file.sql)
                } catch {
                    throw StoreError.unavailable("migration \(file.name) failed: \(error.message)")
                }
                try connection.statement("INSERT INTO soar_migrations (name, applied_at) VALUES (?1, ?2)")
                    .run([.text(file.name), .text(time)])
            }
            done.append(file.name)
        }
        return done
    }

    /// Runs `body` on the writer connection, in a transaction it may share with concurrent writes
    /// (group commit). All or nothing: when `body` throws, none of its changes are kept; when it
    /// returns, they are committed. A `bulk` write (thousands of rows) gets a transaction of its
    /// own, and small writes never wait for more than one of them (see ``WriteBatcher``).
    func write<T>(bulk: Bool = false, _ body: @escaping (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try writer.perform(bulk: bulk) { connection throws(StoreError) in
            defer { connection.context.set(nil, at: nil) }
            return try body(connection)
        }
    }

    /// Runs `body` on a read-only connection of the pool.
    func read<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        if snapshots.load(ordering: .acquiring) > 0, let held = held.withLock({ $0[pthread_self()] }) {
            defer { held.context.set(nil, at: nil) }
            return try body(held)
        }
        let pooled = readers.withLock { $0.popLast() }
        let generation = statistics.generation.withLock { $0 }
        let connection: SQLiteConnection
        if let pooled { connection = pooled } else {
            connection = try SQLiteConnection(path: path, readOnly: true)
            connection.generation = generation
        }
        defer {
            connection.context.set(nil, at: nil)
            // One opened before the latest statistics is let go (see ``Statistics``), and one
            // still in a transaction (a snapshot that could not end), which would read the past.
            if connection.generation == statistics.generation.withLock({ $0 }), !connection.inTransaction { readers.withLock { $0.append(connection) } }
        }
        return try body(connection)
    }

    /// Every read the calling thread makes in `body` goes through one connection in one read
    /// transaction. A read transaction that starts after another connection's commit starts with
    /// an empty page cache; realtime's change feed reads the same rows several times a turn while
    /// the writer commits every few milliseconds, and read them cold each time.
    public func snapshot<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let thread = pthread_self()
        if held.withLock({ $0[thread] }) != nil { return try body() }
        return try read { connection throws(StoreError) in
            try connection.execute("BEGIN")
            held.withLock { $0[thread] = connection }
            snapshots.add(1, ordering: .releasing)
            defer {
                snapshots.subtract(1, ordering: .releasing)
                held.withLock { $0[thread] = nil }
                if (try? connection.execute("COMMIT")) == nil { try? connection.execute("ROLLBACK") }
            }
            return try body()
        }
    }
}
