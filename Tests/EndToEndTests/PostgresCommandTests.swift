import Foundation
import SoarTesting
import Testing

/// A value several threads write.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}

/// `soar migrate` and `soar serve` on PostgreSQL, several processes on one database.
@Suite(.timeLimit(.minutes(2))) struct PostgresCommandTests {
    @Test func threeProcessesMigrateOneDatabaseTogetherEachMigrationOnce() throws {
        let cluster = try PostgresCluster.shared.get()
        let url = try cluster.createDatabase()
        let database = String(url.split(separator: "/").last!)
        let results = Locked<[ProcessResult?]>(Array(repeating: nil, count: 3))
        DispatchQueue.concurrentPerform(iterations: 3) { index in
            let result = try? ProcessRunner.run(SoarBinary.path, ["migrate", "--database-url", url])
            results.withLock { $0[index] = result }
        }
        let runs = results.withLock { $0 }.compactMap { $0 }
        #expect(runs.count == 3 && runs.allSatisfy { $0.status == 0 }, "\(runs.map(\.stderr))")
        let lines = runs.map { $0.stdout.trimmingCharacters(in: .newlines) }
        #expect(lines.filter { $0.contains(": applied 0001_supabase_base.sql") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.hasSuffix("up to date (3 migrations)") }.count == 2, "\(lines)")
        #expect(try cluster.psql(database, "SELECT count(*) FROM public.soar_migrations") == "3\n")
        let again = try ProcessRunner.run(SoarBinary.path, ["migrate", "--database-url", url])
        #expect(again.status == 0 && again.stdout.hasSuffix("up to date (3 migrations)\n"), "\(again.stdout)\(again.stderr)")
    }

    @Test func anUnreachableDatabaseStopsServeWithTheReason() throws {
        let run = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--database-url", "postgres://nobody:hunter2@127.0.0.1:1/none"])
        #expect(run.status == 2 && run.stderr.contains("cannot connect to Postgres"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2"), "the password never shows")
    }
}
