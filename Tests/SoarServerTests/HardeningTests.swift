import Foundation
import SoarCore
import SoarServer
import SoarTesting
import Testing

@testable import SoarStore

/// What an attack run found: each test failed before its fix.
@Suite(.timeLimit(.minutes(5))) struct HardeningTests {
    /// Makes every write of the fixture's store fail for the database's sake, as a full disk does
    /// (SQLite: the writer turned query-only; Postgres: the database turned read-only).
    static func refuseWrites(_ fixture: ServerFixture, _ refuse: Bool) throws {
        if let sqlite = fixture.server.store as? SQLiteStore {
            try sqlite.writer.betweenTransactions { connection throws(StoreError) in try connection.execute("PRAGMA query_only = \(refuse ? 1 : 0)") }
            return
        }
        let name = String(fixture.server.store.location.split(separator: "/").last ?? "")
        let cluster = try PostgresCluster.shared.get()
        _ = try cluster.psql("postgres", "ALTER DATABASE \(name) SET default_transaction_read_only = \(refuse ? "on" : "off")")
        // The pool's connections take the setting when they reconnect.
        _ = try cluster.psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)'")
    }

    @Test func healthSaysUnavailableWhileWritesFailAndSignOutAnswers503() async throws {
        let time = ManualTime()
        let fixture = try ServerFixture(now: time.now)
        let user = try await fixture.signUp("a@example.com")
        #expect(try await fixture.call("GET", "/health").status == 200)

        try Self.refuseWrites(fixture, true)
        time.advance(by: 2)
        // Reads still answer; /health does not say ok.
        _ = try? await fixture.call("GET", "/rest/v1/todos", bearer: user.token)
        #expect(try await fixture.call("GET", "/rest/v1/todos", bearer: user.token).status == 200)
        let health = try await fixture.call("GET", "/health")
        #expect(health.status == 503 && health.object["store"] == "unavailable")
        let insert = try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: #"{"title":"x"}"#)
        #expect(insert.status == 503 && insert.object["message"] == "the database is unavailable; try again shortly")
        let signOut = try await fixture.call("POST", "/auth/v1/logout", bearer: user.token)
        #expect(signOut.status == 503, "\(signOut.text)")
        #expect(signOut.object["msg"] == "the database is unavailable; try again shortly" && !signOut.text.contains("XX000"))

        try Self.refuseWrites(fixture, false)
        #expect(try await fixture.call("GET", "/health").status == 503, "answered from the last second's check")
        time.advance(by: 2)
        #expect(try await fixture.call("GET", "/health").status == 200)
        #expect(try await fixture.call("POST", "/rest/v1/todos", bearer: user.token, body: #"{"title":"x"}"#).status == 201)
    }
}
