import CSQLite
import CSQLiteVFS
import Foundation
@testable import SoarStore
import SoarTesting
import Testing

/// Soar's VFS (CSQLiteVFS): a transaction's WAL frames reach the file in one write; every commit
/// is in the file, for every other connection and for a recovery, when it returns; what a
/// transaction gathered and did not commit never reaches the file; a lost write fails the commit.
@Suite(.timeLimit(.minutes(5))) struct SQLiteWALWritesTests {
    let directory = TemporaryDirectory("soar-wal-writes")
    var path: String { directory.path + "/wal.db" }

    @Test func aCommitOfTwentyFivePagesReachesTheWALInOneWrite() throws {
        let writer = try padWriter()
        let wal = try #require(writer.file(wal: true))
        let before = CSQLiteVFS_fileWrites(wal)
        try insert(25, into: writer, transaction: true)
        #expect(before >= 0, "the WAL is linked to its database")
        #expect(CSQLiteVFS_fileWrites(wal) - before == 1, "SQLite alone writes each frame in two")
    }

    /// Commits of one page to a few MB, with a writer cache of a few pages, so that large
    /// transactions spill pages into the WAL early and then write some of them again in place:
    /// another connection reads every commit as soon as it returns, and the file stays sound. With
    /// synchronous = NORMAL, no sync of the WAL at commits writes out what was gathered; and no
    /// write was left for the memory barrier, which could not report its error (the checksums
    /// SQLite rewrites at commit, after pages written again in place, go straight to the file).
    @Test func anotherConnectionReadsEveryCommitAtOnce() throws {
        let writer = try padWriter(cachePages: 8)
        let reader = try SQLiteConnection(path: path, readOnly: true)
        var expected = 0
        var sizes = [1, 2, 700, 3, 40, 1_500, 1, 90]
        sizes += sizes.reversed()
        for (round, rows) in sizes.enumerated() {
            try writer.run("BEGIN IMMEDIATE")
            try insert(rows, into: writer)
            // Pages written earlier in this transaction (spilled into the WAL) written again.
            try writer.statement("UPDATE pad SET body = body || ?1 WHERE id % 7 = ?2").run([.text("\(round)"), .integer(Int64(round % 7))])
            try writer.run("COMMIT")
            expected += rows
            #expect(try count(reader) == expected, "round \(round)")
        }
        #expect(try integrity(reader) == "ok")
        #expect(CSQLiteVFS_lateWrites(try #require(writer.file(wal: true))) == 0)
    }

    /// The case that corrupts a database when gathered frames outlive their transaction: a
    /// transaction too large for the cache spills frames and rolls back, another connection
    /// commits more frames than that, over where they were, then the first connection writes again.
    @Test func framesARolledBackTransactionGatheredNeverReachTheFile() throws {
        let first = try padWriter(cachePages: 8)
        let other = try SQLiteConnection(path: path, readOnly: false)
        // An empty WAL: the rollback reads the pages it restores from the database file, not the WAL.
        try first.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        try first.run("BEGIN IMMEDIATE")
        try insert(300, into: first)
        #expect(try gathered(first) > 0, "spilled frames are held")
        try first.run("ROLLBACK")
        try insert(400, into: other, transaction: true)
        try insert(1, into: first)
        let reader = try SQLiteConnection(path: path, readOnly: true)
        #expect(try count(reader) == 401)
        #expect(try integrity(reader) == "ok")
    }

    /// A connection in locking_mode = EXCLUSIVE takes no lock SQLite's VFS sees, so it gathers
    /// nothing: back in NORMAL mode, a rollback after spills, then another connection's commit over
    /// where they were, leave the file sound.
    @Test func aConnectionLeavingExclusiveLockingLeavesNothingBehind() throws {
        let first = try padWriter(cachePages: 8)
        try first.execute("PRAGMA locking_mode = EXCLUSIVE")
        try insert(1, into: first)
        try first.execute("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA locking_mode = NORMAL")
        try first.run("BEGIN IMMEDIATE")
        try insert(300, into: first)
        #expect(try gathered(first) == 0)
        try first.run("ROLLBACK")
        let other = try SQLiteConnection(path: path, readOnly: false)
        try insert(400, into: other, transaction: true)
        #expect(try count(first) == 401)
        #expect(try integrity(first) == "ok")
        try insert(2, into: first, transaction: true)
        #expect(try count(other) == 403)
    }

    @Test func aFailedWriteOfTheCommitFailsTheCommitAndLosesNothing() throws {
        let writer = try padWriter()
        try insert(3, into: writer, transaction: true)
        try writer.run("BEGIN IMMEDIATE")
        try insert(25, into: writer)
        CSQLiteVFS_failNextFlushes(try #require(writer.file(wal: true)), 1)
        #expect(throws: StoreError.self) { try writer.run("COMMIT") }
        if writer.inTransaction { try writer.run("ROLLBACK") }
        let reader = try SQLiteConnection(path: path, readOnly: true)
        #expect(try count(reader) == 3)
        try insert(2, into: writer, transaction: true)
        #expect(try count(reader) == 5, "the next transaction commits")
        #expect(try integrity(reader) == "ok")
    }

    /// Spilled frames lost by a write that SQLite does not see fail (here a sync of the WAL): the
    /// transaction they belonged to cannot commit.
    @Test func aTransactionWhoseSpilledFramesWereLostCannotCommit() throws {
        let writer = try padWriter(cachePages: 8)
        try insert(3, into: writer, transaction: true)
        try writer.run("BEGIN IMMEDIATE")
        try insert(300, into: writer)
        #expect(try gathered(writer) > 0, "spilled frames are held")
        CSQLiteVFS_failNextFlushes(try #require(writer.file(wal: true)), 1)
        #expect(throws: StoreError.self) { try writer.syncFile(wal: true) }
        #expect(throws: StoreError.self) { try writer.run("COMMIT") }
        if writer.inTransaction { try writer.run("ROLLBACK") }
        let reader = try SQLiteConnection(path: path, readOnly: true)
        #expect(try count(reader) == 3)
        try insert(2, into: writer, transaction: true)
        #expect(try count(reader) == 5)
        #expect(try integrity(reader) == "ok")
    }

    /// The database and WAL files as a crash would leave them, right after each commit, read back
    /// with SQLite's own VFS: every commit is there. With synchronous = FULL and 512-byte pages,
    /// SQLite also pads commits to the disk's sector and splits frames around its syncs.
    @Test(arguments: [("NORMAL", 4_096), ("FULL", 512)])
    func aCrashRightAfterACommitKeepsIt(synchronous: String, pageSize: Int) throws {
        try createDatabase(pageSize: pageSize)
        let writer = try padWriter(cachePages: 16, synchronous: synchronous)
        var expected = 0
        for (round, rows) in [1, 40, 3, 200, 7].enumerated() {
            try insert(rows, into: writer, transaction: true)
            expected += rows
            let recovered = try afterACrash("crash-\(round)")
            #expect(recovered.count == "\(expected)", "round \(round)")
            #expect(recovered.integrity == "ok")
        }
    }

    /// SQLite 3.40 appends frames without checksums while it owes a rewrite of checksums from a
    /// frame it wrote again in place (a page it had spilled); a ROLLBACK TO before that frame
    /// leaves the frames appended next outside the rewrite, so a recovery stops at them and loses
    /// the commit, and every later one. Soar's writer keeps a transaction's pages in memory up to
    /// 256 MB instead of spilling them (`cache_spill`), so SQLite writes no frame twice in one.
    @Test func aCommitAfterRollingBackToASavepointSurvivesACrash() throws {
        let writer = try padWriter(cachePages: 8, spilling: false)
        try insert(3, into: writer, transaction: true)
        try writer.run("BEGIN IMMEDIATE")
        try insert(10, into: writer)
        try writer.run("SAVEPOINT write")
        try insert(300, into: writer)
        try writer.statement("UPDATE pad SET body = body || 'x' WHERE id > 13").run([])
        try writer.run("ROLLBACK TO write")
        try writer.run("RELEASE write")
        try insert(50, into: writer)
        try writer.run("COMMIT")
        #expect(try count(writer) == 63)
        let recovered = try afterACrash("crash")
        #expect(recovered.count == "63")
        #expect(recovered.integrity == "ok")
    }

    // MARK: - Helpers

    /// A writer with a `pad` table and a cache of `cachePages` pages, which large transactions
    /// spill from unless `spilling` is false (Soar's own writers' setting, see SQLiteConnection),
    /// syncing the WAL as `synchronous` says (at no commit by default).
    private func padWriter(cachePages: Int = 2_000, spilling: Bool = true, synchronous: String = "NORMAL") throws -> SQLiteConnection {
        let writer = try SQLiteConnection(path: path, readOnly: false)
        let spill = spilling ? "PRAGMA cache_spill = \(cachePages);" : ""
        try writer.execute("""
            PRAGMA synchronous = \(synchronous); PRAGMA cache_size = \(cachePages); \(spill)
            CREATE TABLE IF NOT EXISTS pad (id INTEGER PRIMARY KEY, body TEXT)
            """)
        return writer
    }

    /// A database in WAL mode with a `pad` table and the given page size, made with SQLite's own VFS.
    private func createDatabase(pageSize: Int) throws {
        _ = SQLiteConnection.vfs
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        #expect(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK)
        let sql = "PRAGMA page_size = \(pageSize); CREATE TABLE pad (id INTEGER PRIMARY KEY, body TEXT); PRAGMA journal_mode = WAL"
        #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK)
    }

    /// Inserts `rows` rows of 2,000 bytes (two a page), in a transaction of their own if asked.
    private func insert(_ rows: Int, into connection: SQLiteConnection, transaction: Bool = false) throws {
        if transaction { try connection.run("BEGIN IMMEDIATE") }
        for row in 0..<rows {
            try connection.statement("INSERT INTO pad (body) VALUES (?1)").run([.text(String(repeating: "\(row % 10)", count: 2_000))])
        }
        if transaction { try connection.run("COMMIT") }
    }

    private func count(_ connection: SQLiteConnection) throws -> Int {
        guard case .integer(let count) = try connection.statement("SELECT count(*) FROM pad").rows([]).first?.first else { return -1 }
        return Int(count)
    }

    private func integrity(_ connection: SQLiteConnection) throws -> String? {
        guard case .text(let result) = try connection.statement("PRAGMA integrity_check").rows([]).first?.first else { return nil }
        return result
    }

    private func gathered(_ connection: SQLiteConnection) throws -> Int64 {
        Int64(CSQLiteVFS_gatheredBytes(try #require(connection.file(wal: true))))
    }

    /// The row count and integrity check of a copy of the database and WAL files as they are now
    /// (as a crash would leave them), opened with SQLite's own VFS, which recovers from the WAL.
    private func afterACrash(_ name: String) throws -> (count: String?, integrity: String?) {
        let copy = directory.path + "/\(name).db"
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
        var db: OpaquePointer?
        defer { sqlite3_close_v2(db) }
        guard sqlite3_open_v2(copy, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { return (nil, nil) }
        return (try plainValue(db, "SELECT count(*) FROM pad"), try plainValue(db, "PRAGMA integrity_check"))
    }

    /// The first column of the first row, as text, through SQLite's C API alone.
    private func plainValue(_ db: OpaquePointer?, _ sql: String) throws -> String? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW,
            let text = sqlite3_column_text(statement, 0)
        else { return nil }
        return String(cString: text)
    }
}
