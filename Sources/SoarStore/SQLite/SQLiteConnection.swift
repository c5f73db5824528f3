import CSQLite
import CSQLitePageCache
import CSQLiteVFS
import Foundation

/// One SQLite connection: the only type that calls SQLite's C API (with ``SQLiteStatement``).
///
/// Not thread-safe: the store hands each connection to one thread at a time. Statements are
/// prepared once per SQL text and reused.
final class SQLiteConnection: @unchecked Sendable {
    private(set) var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    private var commitHandler: CommitHandler?
    /// Whom the statements run for now (see ``SQLiteFunctions``).
    let context = RequestContext()

    /// Process-wide settings, made once before the first connection opens: no memory statistics,
    /// Soar's page cache (see CSQLitePageCache), and Soar's VFS (see CSQLiteVFS), or SQLite's
    /// default ones should they fail to install. Anything that opens SQLite outside this type (tests)
    /// reads it first: the page cache can only be installed before SQLite initializes.
    static let vfs: String? = {
        _ = CSQLite_disableMemoryStatistics()
        _ = CSQLitePageCache_install()
        return CSQLiteVFS_register() == SQLITE_OK ? String(cString: CSQLiteVFS_name) : nil
    }()

    /// Opens (creating if needed) the file with the settings every Soar connection shares.
    init(path: String, readOnly: Bool) throws(StoreError) {
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        let result = sqlite3_open_v2(path, &db, flags, Self.vfs)
        handle = db
        guard result == SQLITE_OK else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            handle = nil
            throw .unavailable("cannot open the database \(path): \(message)")
        }
        sqlite3_extended_result_codes(db, 1)
        _ = CSQLite_refuseDoubleQuotedStrings(db)
        SQLiteFunctions.register(on: db, context: context)
        sqlite3_busy_timeout(db, 5_000)
        try execute("PRAGMA foreign_keys = ON; PRAGMA case_sensitive_like = ON;")
        // The writer keeps up to 16 MB of pages: a send to many users writes tens of MB in one
        // transaction, and SQLite's default 2 MB cache would read back pages it just wrote.
        // The WAL file is cut back to ``Checkpointer/walBytesKept`` when it starts over.
        // A transaction's pages stay in memory up to 256 MB rather than spill into the WAL: SQLite
        // 3.40 writes a spilled page again in place, and after a ROLLBACK TO (WriteBatcher's, for a
        // failed write) leaves the next frames without checksums, so a recovery after a crash lost
        // that commit and every later one (SQLiteWALWritesTests shows it).
        if !readOnly {
            try execute(
                "PRAGMA journal_mode = WAL; PRAGMA cache_size = -16384; PRAGMA cache_spill = \(Self.spillPages); "
                    + "PRAGMA journal_size_limit = \(Checkpointer.walBytesKept);")
        }
    }

    /// Pages a writer's transaction keeps in memory before SQLite spills them into the WAL: 256 MB.
    static let spillPages = 65_536

    /// Reads the database file through a memory map of up to 1 GB instead of a `read` per page.
    ///
    /// For the writer: its inserts into large random indexes (a token, a UUID) miss its 16 MB cache
    /// on most leaf pages, and each miss was a system call and a copy. The mapped pages are the
    /// kernel's page cache, where those reads found them anyway; a larger cache would hold copies
    /// of them in the process's own memory. The cost of a map: a disk error while reading through
    /// it stops the process (SIGBUS) instead of failing the statement.
    func mapForReading() throws(StoreError) {
        try execute("PRAGMA mmap_size = \(Self.mapBytes)")
    }

    static let mapBytes = 1 << 30

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs SQL text with no parameters (migrations, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws(StoreError) {
        var error: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &error)
        if result != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_free(error)
            throw Self.error(result, message)
        }
    }

    /// Runs one parameterless statement through the statement cache (transaction control on hot paths).
    func run(_ sql: String) throws(StoreError) {
        try statement(sql).run([])
    }

    /// The prepared statement for `sql`, reset and ready to bind.
    func statement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        // Statement texts vary only with list lengths and column sets: a bounded cache is plenty.
        if statements.count >= 256 { statements.removeAll() }
        var raw: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard result == SQLITE_OK, let raw else { throw Self.error(result, String(cString: sqlite3_errmsg(handle))) }
        let statement = SQLiteStatement(raw, connection: self)
        statements[sql] = statement
        return statement
    }

    var lastMessage: String { String(cString: sqlite3_errmsg(handle)) }

    /// Rows inserted, updated or deleted through this connection since it opened.
    var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    /// A reader's ``Statistics/generation`` when it opened.
    var generation = 0

    /// Whether a transaction is open (one that could not be ended leaves it so).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Calls `handler` after each commit with the WAL's size in pages and this connection, on
    /// which the handler may checkpoint at once (as SQLite's own automatic checkpoints do). SQLite
    /// then no longer checkpoints on this connection by itself.
    func onCommit(_ handler: @escaping (_ walPages: Int, _ connection: SQLiteConnection) -> Void) {
        let box = CommitHandler(handler, connection: self)
        commitHandler = box
        sqlite3_wal_hook(handle, { context, _, _, pages in
            let box = Unmanaged<CommitHandler>.fromOpaque(context!).takeUnretainedValue()
            box.handler(Int(pages), box.connection)
            return SQLITE_OK
        }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Copies what it can of the WAL into the database file without waiting for readers or the
    /// writer (SQLite's PASSIVE checkpoint); on another connection, it blocks neither. Busy at once
    /// when another checkpoint runs.
    ///
    /// - Returns: the WAL's pages now copied into the file, counted from its start; nil when another
    ///   connection held the checkpoint (busy). Other failures (the disk's) throw.
    @discardableResult
    func checkpoint() throws(StoreError) -> Int? {
        var copied: Int32 = 0
        let result = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, nil, &copied)
        if result & 0xff == SQLITE_BUSY || result & 0xff == SQLITE_LOCKED { return nil }
        guard result == SQLITE_OK else { throw Self.error(result, lastMessage) }
        return Int(copied)
    }

    /// Flushes the database file (or its WAL) to disk, through SQLite's own handle on it.
    ///
    /// SQLite syncs the file only after a checkpoint that copies the whole WAL; the queue's copies
    /// past the limit sync it here, so that the writer's own last copy finds few pages to flush.
    func syncFile(wal: Bool = false) throws(StoreError) {
        // A connection opens the WAL at its first read: one that has only set its pragmas (a
        // checkpointer before its first checkpoint) has not yet.
        if wal, file(wal: true) == nil { try execute("SELECT count(*) FROM sqlite_schema") }
        guard let file = file(wal: wal), let sync = file.pointee.pMethods?.pointee.xSync else {
            throw .unavailable("cannot reach the database file to sync it")
        }
        let result = sync(file, SQLITE_SYNC_NORMAL)
        guard result == SQLITE_OK else { throw Self.error(result, "cannot sync the database file") }
    }

    /// SQLite's open handle on the database file or its WAL; nil when it has none open.
    func file(wal: Bool) -> UnsafeMutablePointer<sqlite3_file>? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        let found = sqlite3_file_control(handle, "main", wal ? SQLITE_FCNTL_JOURNAL_POINTER : SQLITE_FCNTL_FILE_POINTER, &file)
        return found == SQLITE_OK && file?.pointee.pMethods != nil ? file : nil
    }

    private final class CommitHandler {
        let handler: (Int, SQLiteConnection) -> Void
        unowned let connection: SQLiteConnection
        init(_ handler: @escaping (Int, SQLiteConnection) -> Void, connection: SQLiteConnection) {
            self.handler = handler
            self.connection = connection
        }
    }

    /// SQLite's extended constraint codes (macros Swift does not import): SQLITE_CONSTRAINT | (n << 8).
    enum Constraint {
        static let check = SQLITE_CONSTRAINT | (1 << 8)
        static let trigger = SQLITE_CONSTRAINT | (7 << 8)
        static let foreignKey = SQLITE_CONSTRAINT | (3 << 8)
        static let notNull = SQLITE_CONSTRAINT | (5 << 8)
        static let primaryKey = SQLITE_CONSTRAINT | (6 << 8)
        static let unique = SQLITE_CONSTRAINT | (8 << 8)
    }

    /// SQLite's result code as a store error in Postgres' terms.
    static func error(_ code: Int32, _ message: String) -> StoreError {
        switch code {
        case Constraint.primaryKey, Constraint.unique:
            // "UNIQUE constraint failed: todos.id" -> the Postgres-style constraint name todos_pkey.
            let columns = message.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            let table = columns.split(separator: ".").first.map(String.init) ?? "table"
            let names = columns.split(separator: ",").compactMap { $0.split(separator: ".").last }.map { $0.trimmingCharacters(in: .whitespaces) }
            let constraint = code == Constraint.primaryKey ? "\(table)_pkey" : "\(table)_\(names.joined(separator: "_"))_key"
            return .uniqueViolation(constraint, details: "Key (\(names.joined(separator: ", "))) already exists.")
        case Constraint.notNull:
            let column = message.split(separator: ".").last.map(String.init) ?? "?"
            let table = message.split(separator: ":").last?.split(separator: ".").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
            return .notNull(column, table: table)
        case Constraint.foreignKey:
            return StoreError(code: "23503", message: "insert or update violates a foreign key constraint")
        case Constraint.trigger where message == "FOREIGN KEY constraint failed":
            // A row still referenced under ON DELETE RESTRICT (SQLite raises it as a trigger).
            return StoreError(code: "23503", message: "update or delete violates a foreign key constraint")
        case Constraint.trigger where message == AppSchema.tooManyMoves:
            return StoreError(code: "P0001", message: message)
        case Constraint.check, Constraint.trigger:
            // "CHECK constraint failed: todos_title_check" (or raised so by an added constraint's trigger).
            let name = message.components(separatedBy: "CHECK constraint failed: ").last ?? message
            return StoreError(code: "23514", message: "new row violates check constraint \"\(name)\"")
        default:
            return StoreError(functionMessage: message) ?? .unavailable("database error: \(message)")
        }
    }
}
