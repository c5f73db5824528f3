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

    public init(directory: String) throws {
        if PostgresCluster.selected {
            let url = try PostgresCluster.shared.get().createMigratedDatabase()
            arguments = ["--database-url", url]
            environment = ["JWT_SECRET": "an-end-to-end-test-secret-0123456789abcdef"]
            banner = "database: postgres \(url)"
        } else {
            arguments = ["--db", directory + "/soar.db"]
            environment = [:]
            banner = "database: sqlite \(directory)/soar.db"
        }
    }
}
