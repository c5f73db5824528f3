import Foundation

/// How an end-to-end test points the `soar` binary at this run's store: a SQLite file in the
/// test's directory, or (with `SOAR_TEST_STORE=postgres`) a fresh database of the test cluster.
public struct TestDatabase: Sendable {
    /// Arguments for `soar serve` or `soar migrate`.
    public let arguments: [String]
    /// Variables to add: with Postgres a fixed JWT_SECRET, so no secret file is written and a
    /// restarted server keeps its keys.
    public let environment: [String: String]
    /// The start-up banner's `database:` line.
    public let banner: String
    /// Where it is: a SQLite file, or a Postgres URL.
    private let location: (sqlite: String?, postgres: String?)

    public init(directory: String) throws {
        if PostgresCluster.selected {
            let url = try PostgresCluster.shared.get().createMigratedDatabase()
            arguments = ["--database-url", url]
            environment = ["JWT_SECRET": "an-end-to-end-test-secret-0123456789abcdef"]
            banner = "database: postgres \(url)"
            location = (nil, url)
        } else {
            arguments = ["--db", directory + "/soar.db"]
            environment = [:]
            banner = "database: sqlite \(directory)/soar.db"
            location = (directory + "/soar.db", nil)
        }
    }

    /// Runs SQL statements in one transaction as another client of the database would: psql, or
    /// Python's sqlite3 (SQLite's own functions only: give what Soar's defaults would fill).
    public func execute(_ sql: String) throws {
        let run: ProcessResult
        if let url = location.postgres {
            run = try ProcessRunner.run("/usr/bin/psql", [url, "-q", "-v", "ON_ERROR_STOP=1", "-1", "-c", sql])
        } else {
            let script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1], isolation_level=None)\nc.execute('pragma busy_timeout = 10000')\nc.executescript('BEGIN;' + sys.argv[2] + ';COMMIT;')\n"
            run = try ProcessRunner.run("python3", ["-c", script, location.sqlite ?? "", sql])
        }
        guard run.status == 0 else { throw TestDatabaseError(message: "SQL failed: \(run.stderr)") }
    }
}

public struct TestDatabaseError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
