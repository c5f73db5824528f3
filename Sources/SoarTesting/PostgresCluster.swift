import Foundation
import SoarCore
import SoarStore
import Synchronization

/// A throwaway PostgreSQL 15 cluster for this test process: `initdb` in a temporary directory as
/// an unprivileged user (`postgres` when the tests run as root), on a free port of 127.0.0.1,
/// stopped and removed when the process exits. Each caller gets a database of its own.
public final class PostgresCluster: Sendable {
    /// The process's cluster, started on first use; nil (with the reason) when Postgres is not installed.
    public static let shared: Result<PostgresCluster, FixtureError> = Result { () throws(FixtureError) in try PostgresCluster() }

    /// Whether the tests run against Postgres (`SOAR_TEST_STORE=postgres`) instead of SQLite.
    public static var selected: Bool { ProcessInfo.processInfo.environment["SOAR_TEST_STORE"] == "postgres" }

    public let port: Int
    public let directory: String
    private let binaries: String
    private let databases = Locked(0)
    private let templateReady = Locked(false)
    private static let running = Locked<String?>(nil)

    private init() throws(FixtureError) {
        guard let binaries = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0 + "/initdb") })
        else { throw FixtureError("PostgreSQL is not installed (no initdb under /usr/lib/postgresql): ./scripts/test installs it") }
        self.binaries = binaries
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("soar-pg-\(UUID().uuidString.prefix(8))").path
        port = Self.freePort()
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            if getuid() == 0 { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: directory) }
            try Self.check(Self.asOwner(binaries + "/initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"]), "initdb")
            let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=1000"
            try Self.check(Self.asOwner(binaries + "/pg_ctl", ["-D", directory + "/data", "-o", options, "-l", directory + "/log", "-w", "start"]), "pg_ctl start")
        } catch let error as FixtureError {
            throw error
        } catch {
            throw FixtureError("could not start PostgreSQL: \(error)")
        }
        Self.running.withLock { $0 = directory + "|" + binaries }
        atexit { PostgresCluster.stopRunning() }
    }

    /// A new, empty database; returns its URL (`postgres://postgres@127.0.0.1:PORT/NAME`).
    public func createDatabase() throws -> String {
        try create("")
    }

    /// A new database with every migration applied, copied from a template migrated once per
    /// process: creating one is a file copy, with no migrations (and no lock) per test.
    public func createMigratedDatabase() throws -> String {
        try Self.migrations.withLock { _ in
            guard !templateReady.withLock({ $0 }) else { return }
            let template = "soar_template_\(getpid())"
            try Self.check(try ProcessRunner.run("/usr/bin/psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-q", "-c", "CREATE DATABASE \(template)"]), "CREATE DATABASE")
            // Migrated, then closed: a template must have no connections when it is copied.
            try PostgresStore(url: url(template), poolSize: 1).close()
            templateReady.withLock { $0 = true }
        }
        return try create(" TEMPLATE soar_template_\(getpid())")
    }

    private func create(_ suffix: String) throws -> String {
        let name = "soar_test_\(getpid())_\(databases.withLock { $0 += 1; return $0 })"
        var last: ProcessResult?
        // Two copies of one template at the same instant can collide ("being accessed by other users").
        for _ in 0..<20 {
            let run = try ProcessRunner.run("/usr/bin/psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-q", "-c", "CREATE DATABASE \(name)\(suffix)"])
            if run.status == 0 { return url(name) }
            last = run
            guard run.stderr.contains("being accessed by other users") else { break }
            usleep(50_000)
        }
        try Self.check(last!, "CREATE DATABASE")
        return url(name)
    }

    public func url(_ database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    private static let migrations = Locked(())

    /// Runs `open` (which migrates a new database) one at a time in this process: the roles that
    /// migrations create belong to the whole cluster.
    public static func migrating<T>(_ open: () throws -> T) rethrows -> T {
        try migrations.withLock { _ in try open() }
    }

    /// Runs SQL through `psql` as the superuser; returns its output (unaligned, tuples only).
    public func psql(_ database: String, _ sql: String) throws -> String {
        let run = try ProcessRunner.run("/usr/bin/psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-q", "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
        try Self.check(run, "psql")
        return run.stdout
    }

    /// Stops the cluster and removes its files (at exit).
    ///
    /// Runs inside `exit()`, where threads and Dispatch may be gone: no child process, only
    /// signals to the postmaster named in `postmaster.pid`.
    static func stopRunning() {
        guard let running = running.withLock({ $0 }) else { return }
        let directory = String(running.split(separator: "|")[0])
        if let text = try? String(contentsOfFile: directory + "/data/postmaster.pid", encoding: .utf8),
            let pid = text.split(separator: "\n").first.flatMap({ Int32($0) })
        {
            kill(pid, SIGQUIT)  // immediate shutdown
            for _ in 0..<500 where kill(pid, 0) == 0 { usleep(10_000) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func asOwner(_ program: String, _ arguments: [String]) throws -> ProcessResult {
        // Postgres refuses to run as root: the cluster belongs to the unprivileged `postgres` user.
        getuid() == 0 ? try ProcessRunner.run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
            : try ProcessRunner.run(program, arguments)
    }

    private static func check(_ result: ProcessResult, _ what: String) throws(FixtureError) {
        guard result.status == 0 else { throw FixtureError("\(what) failed (\(result.status)): \(result.stderr)\(result.stdout)") }
    }

    private static func freePort() -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
