@testable import SoarStore
import SoarTesting
import Testing

/// Soar's VFS (CSQLiteVFS): a transaction's WAL frames reach the file in one write, and every
/// commit is in the file, for every other connection, when it returns.
@Suite(.timeLimit(.minutes(5))) struct SQLiteWALWritesTests {
    let directory = TemporaryDirectory("soar-wal-writes")
    var path: String { directory.path + "/wal.db" }

    @Test func aCommitOfTwentyFivePagesReachesTheWALInOneWrite() throws {
        let writer = try SQLiteConnection(path: path, readOnly: false)
        try writer.execute("PRAGMA synchronous = NORMAL; CREATE TABLE pad (body TEXT)")
        let before = try #require(writer.walWrites)
        try writer.run("BEGIN IMMEDIATE")
        for _ in 0..<25 { try writer.statement("INSERT INTO pad (body) VALUES (?1)").run([.text(String(repeating: "x", count: 3_000))]) }
        try writer.run("COMMIT")
        let after = try #require(writer.walWrites)
        #expect(after.frames - before.frames >= 25)
        #expect(after.writes - before.writes == 1, "SQLite alone writes each frame in two")
    }

    /// Commits of one page to a few MB, with a writer cache of a few pages, so that large
    /// transactions spill pages into the WAL early and then write some of them again in place:
    /// another connection reads every commit as soon as it returns, and the file stays sound. With
    /// synchronous = NORMAL, no sync of the WAL at commits writes out what was gathered.
    @Test func anotherConnectionReadsEveryCommitAtOnce() throws {
        let writer = try SQLiteConnection(path: path, readOnly: false)
        try writer.execute("PRAGMA synchronous = NORMAL; PRAGMA cache_size = 8; CREATE TABLE pad (id INTEGER PRIMARY KEY, body TEXT)")
        let reader = try SQLiteConnection(path: path, readOnly: true)
        var expected = 0
        var sizes: [Int] = [1, 2, 700, 3, 40, 1_500, 1, 90]
        sizes += sizes.reversed()
        for (round, rows) in sizes.enumerated() {
            try writer.run("BEGIN IMMEDIATE")
            for row in 0..<rows {
                try writer.statement("INSERT INTO pad (body) VALUES (?1)").run([.text(String(repeating: "\(row % 10)", count: 2_000))])
            }
            // Pages written earlier in this transaction (spilled into the WAL) written again.
            try writer.statement("UPDATE pad SET body = body || ?1 WHERE id % 7 = ?2").run([.text("\(round)"), .integer(Int64(round % 7))])
            try writer.run("COMMIT")
            expected += rows
            let counted = try reader.statement("SELECT count(*), sum(length(body)) FROM pad").rows([]).first
            #expect(counted?.first == .integer(Int64(expected)), "round \(round)")
        }
        #expect(try reader.statement("PRAGMA integrity_check").rows([]).first?.first == .text("ok"))
        let frames = try #require(writer.walWrites).frames
        #expect(frames > 0, "the writer's frames went through Soar's VFS")
    }

    @Test func aRolledBackTransactionLeavesNothingBehind() throws {
        let writer = try SQLiteConnection(path: path, readOnly: false)
        try writer.execute("PRAGMA synchronous = NORMAL; PRAGMA cache_size = 8; CREATE TABLE pad (body TEXT); INSERT INTO pad VALUES ('kept')")
        try writer.run("BEGIN IMMEDIATE")
        for _ in 0..<300 { try writer.statement("INSERT INTO pad (body) VALUES (?1)").run([.text(String(repeating: "y", count: 2_000))]) }
        try writer.run("ROLLBACK")
        try writer.execute("INSERT INTO pad VALUES ('after')")
        let reader = try SQLiteConnection(path: path, readOnly: true)
        #expect(try reader.statement("SELECT body FROM pad ORDER BY rowid").rows([]).map { $0.first } == [.text("kept"), .text("after")])
        #expect(try reader.statement("PRAGMA integrity_check").rows([]).first?.first == .text("ok"))
    }
}
