import CSQLite
import CSQLitePageCache
import Foundation
@testable import SoarStore
import SoarTesting
import Testing

/// Soar's page cache (CSQLitePageCache): a commit no longer has SQLite walk the whole cache after
/// a split renumbered pages, and every truncation that has pages to drop still drops them.
///
/// The counters are the calling thread's: each test runs its connection on its own thread.
@Suite(.timeLimit(.minutes(2))) struct SQLitePageCacheTests {
    let directory = TemporaryDirectory("soar-page-cache")
    var path: String { directory.path + "/cache.db" }

    /// Random keys in an index split its pages in every few commits, moving pages through the lock
    /// page's number; SQLite's own cache then walked all its pages at each commit.
    @Test(.ownThread) func commitsAfterSplitsDropNothingAndWalkNothing() throws {
        let writer = try keyedWriter(cachePages: 2_000)
        var random = SeededRandom(seed: 7)
        let passed = CSQLitePageCache_truncationsPassed(), skipped = CSQLitePageCache_truncationsSkipped()
        for _ in 0..<40 {
            try writer.run("BEGIN IMMEDIATE")
            for _ in 0..<50 { try insert(key: random.next(), into: writer) }
            try writer.run("COMMIT")
        }
        #expect(CSQLitePageCache_truncationsSkipped() - skipped >= 40, "Soar's cache is the one in use")
        #expect(CSQLitePageCache_truncationsPassed() - passed == 0, "no page lay past the end")
        #expect(try value(writer, "SELECT count(*) FROM keyed") == .integer(2_000))
    }

    /// A rolled-back transaction that grew the file leaves pages past the end: they are dropped,
    /// and the pages written next at those numbers are read as written, not as they were.
    @Test(.ownThread) func aRollbackThatShrinksTheDatabaseDropsItsPages() throws {
        let writer = try keyedWriter(cachePages: 2_000)
        var random = SeededRandom(seed: 11)
        for _ in 0..<200 { try insert(key: random.next(), into: writer) }
        let pages = try value(writer, "PRAGMA page_count")
        try writer.run("BEGIN IMMEDIATE")
        for _ in 0..<500 { try insert(key: random.next(), into: writer) }
        let passed = CSQLitePageCache_truncationsPassed()
        try writer.run("ROLLBACK")
        #expect(CSQLitePageCache_truncationsPassed() - passed >= 1, "the pages past the end are dropped")
        #expect(try value(writer, "PRAGMA page_count") == pages)
        try writer.run("BEGIN IMMEDIATE")
        for _ in 0..<500 { try writer.statement("INSERT INTO keyed (key, body) VALUES (?1, 'second')").run([.integer(random.next())]) }
        try writer.run("COMMIT")
        #expect(try value(writer, "SELECT count(*) FROM keyed WHERE body = 'second'") == .integer(500))
        #expect(try value(writer, "PRAGMA integrity_check") == .text("ok"))
    }

    /// A VACUUM that shrinks the file leaves no page past its end in the cache.
    @Test(.ownThread) func aVacuumThatShrinksTheDatabaseLeavesNoPagePastItsEndCached() throws {
        let writer = try keyedWriter(cachePages: 2_000)
        var random = SeededRandom(seed: 5)
        try writer.run("BEGIN IMMEDIATE")
        for _ in 0..<2_000 { try insert(key: random.next(), into: writer) }
        try writer.run("COMMIT")
        #expect(try value(writer, "SELECT count(*) FROM keyed WHERE body LIKE 'k%'") == .integer(2_000))
        let grown = try pageCount(writer)
        try writer.run("DELETE FROM keyed WHERE id % 10 <> 0")
        try writer.execute("VACUUM")
        let pages = try pageCount(writer)
        #expect(pages * 4 < grown, "the file shrank: \(grown) pages, then \(pages)")
        #expect(cachedPages(writer) <= pages + 2, "no page past the end is cached (skipping every truncation left 54 for 7)")
        #expect(try value(writer, "SELECT count(*) FROM keyed") == .integer(200))
    }

    /// Seeded random transactions over a small cache (evictions), with savepoints rolled back,
    /// whole transactions rolled back, deletes and VACUUMs that shrink the file: after each, the
    /// table holds what a model of it says, and the file is sound.
    @Test(.ownThread) func randomTransactionsKeepWhatAModelOfThemKeeps() throws {
        let writer = try keyedWriter(cachePages: 16)
        var random = SeededRandom(seed: 3)
        var model: [Int64: Int] = [:]
        for round in 0..<120 {
            var next = model
            try writer.run("BEGIN IMMEDIATE")
            for _ in 0..<(1 + random.below(60)) {
                switch random.below(10) {
                case 0..<6:
                    let key = random.next(), size = 10 + random.below(900)
                    try writer.statement("INSERT OR REPLACE INTO keyed (key, body) VALUES (?1, ?2)")
                        .run([.integer(key), .text(String(repeating: "x", count: size))])
                    next[key] = size
                case 6..<8:
                    guard let key = next.keys.min() else { continue }
                    try writer.statement("DELETE FROM keyed WHERE key = ?1").run([.integer(key)])
                    next[key] = nil
                default:
                    let before = next
                    try writer.run("SAVEPOINT part")
                    for _ in 0..<(random.below(30)) {
                        let key = random.next()
                        try writer.statement("INSERT OR REPLACE INTO keyed (key, body) VALUES (?1, 'gone')").run([.integer(key)])
                        next[key] = 4
                    }
                    if random.below(2) == 0 {
                        try writer.run("ROLLBACK TO part")
                        next = before
                    }
                    try writer.run("RELEASE part")
                }
            }
            if random.below(5) == 0 {
                try writer.run("ROLLBACK")
            } else {
                try writer.run("COMMIT")
                model = next
            }
            if round % 30 == 29 {
                try writer.run("DELETE FROM keyed WHERE key % 3 = 0")
                model = model.filter { $0.key % 3 != 0 }
                try writer.execute("VACUUM")
            }
            #expect(try value(writer, "SELECT count(*) FROM keyed") == .integer(Int64(model.count)), "round \(round)")
            #expect(try value(writer, "SELECT coalesce(sum(length(body)), 0) FROM keyed") == .integer(Int64(model.values.reduce(0, +))), "round \(round)")
        }
        #expect(try value(writer, "PRAGMA integrity_check") == .text("ok"))
    }

    // MARK: - Helpers

    /// A writer with a `keyed` table indexed on a random key, and a cache of `cachePages` pages.
    private func keyedWriter(cachePages: Int) throws -> SQLiteConnection {
        let writer = try SQLiteConnection(path: path, readOnly: false)
        try writer.execute("""
            PRAGMA synchronous = NORMAL; PRAGMA cache_size = \(cachePages);
            CREATE TABLE IF NOT EXISTS keyed (id INTEGER PRIMARY KEY, key INTEGER UNIQUE, body TEXT)
            """)
        return writer
    }

    private func insert(key: Int64, into writer: SQLiteConnection) throws {
        try writer.statement("INSERT INTO keyed (key, body) VALUES (?1, ?2)").run([.integer(key), .text(String(repeating: "k", count: 60))])
    }

    private func pageCount(_ connection: SQLiteConnection) throws -> Int {
        guard case .integer(let pages) = try value(connection, "PRAGMA page_count") else { return -1 }
        return Int(pages)
    }

    /// About the pages the connection's cache holds: its bytes (pages, their headers, its tables) over a page's.
    private func cachedPages(_ connection: SQLiteConnection) -> Int {
        var bytes: Int32 = 0, highest: Int32 = 0
        sqlite3_db_status(connection.handle, SQLITE_DBSTATUS_CACHE_USED, &bytes, &highest, 0)
        return Int(bytes) / 4_096
    }

    private func value(_ connection: SQLiteConnection, _ sql: String) throws -> SQLValue? {
        try connection.statement(sql).rows([]).first?.first
    }
}

/// A small deterministic generator (SplitMix64), so that a failure replays.
private struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> Int64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int64(bitPattern: (z ^ (z >> 31)) >> 1)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % Int64(bound)) }
}
