import Foundation
import SoarCore
import SoarMigrations
@testable import SoarStore
import SoarTesting
import Synchronization
import Testing
import SoarSchema

/// The Postgres store against the test cluster: ownership from RLS, migrations, lost connections.
@Suite(.timeLimit(.minutes(2))) struct PostgresStoreTests {
    let cluster: PostgresCluster
    init() throws { cluster = try PostgresCluster.shared.get() }

    func store() throws -> (PostgresStore, String) {
        let url = try cluster.createDatabase()
        return (try PostgresCluster.migrating { try PostgresStore(url: url, poolSize: 4) }, String(url.split(separator: "/").last!))
    }

    func user(_ store: PostgresStore) throws -> String {
        let id = RandomUUID.lowercase()
        try store.createUser(AuthUser(id: id, createdAt: Timestamp.postgres(Date())))
        return id
    }

    /// A statement run through psql as a user's claims, the way the server runs it.
    func asUser(_ database: String, _ id: String, _ statement: String) throws -> String {
        try cluster.psql(database, """
            BEGIN; SET LOCAL ROLE authenticated;
            SET LOCAL "request.jwt.claims" TO '{"role":"authenticated","sub":"\(id)"}';
            \(statement);
            COMMIT;
            """)
    }

    @Test(.ownThread) func theServersOwnStatementsReachNothingOfAnotherUser() throws {
        let (store, database) = try store()
        let alice = try user(store), bob = try user(store)
        let written = try store.insert(StarterTables.todos, [["title": .text("alice's secret")]], onConflict: nil, as: .user(alice))
        #expect(written.count == 1)

        // The SQL the store sends for a filtered read: the request's condition, no ownership one.
        var read = DataSQL(StarterTables.todos, .postgres)
        let filtered = read.whereClause(.compare(column: "completed", op: .eq, operand: .value(.integer(0))), .select)
        #expect(filtered == " WHERE \"completed\" = $1" && read.parameters == [.integer(0)], "\(filtered)")
        let select = "SELECT \(read.allColumns) FROM \(read.tableName) WHERE \"completed\" = false"
        #expect(try asUser(database, bob, select).isEmpty, "RLS alone keeps Bob out")
        #expect(try asUser(database, alice, select).contains("alice's secret"))
        let update = "UPDATE public.\"todos\" SET \"title\" = 'stolen' RETURNING \"id\""
        #expect(try asUser(database, bob, update).isEmpty)
        #expect(try asUser(database, bob, "DELETE FROM public.\"todos\" RETURNING \"id\"").isEmpty)
        #expect(try cluster.psql(database, "SELECT title FROM public.todos") == "alice's secret\n")

        // Through the store: Bob reads nothing, his insert as Alice is refused by the policy.
        #expect(try store.select(StarterTables.todos, RowQuery(), as: .user(bob), counting: true).total == 0)
        #expect { try store.insert(StarterTables.todos, [["title": .text("x"), "user_id": .text(alice)]], onConflict: nil, as: .user(bob)) }
            throws: { ($0 as? StoreError)?.code == "42501" }
        #expect { try store.insert(StarterTables.payments, [["amount_cents": .integer(1), "currency": .text("usd"), "status": .text("paid")]], onConflict: nil, as: .user(bob)) }
            throws: { ($0 as? StoreError)?.message == "permission denied for table payments" }
    }

    @Test(.ownThread) func notifyPgrstReloadsTheSchemaAndAReloadUnderLoadFailsNoRequest() throws {
        let (store, database) = try store()
        defer { store.close() }
        #expect(store.tables["late"] == nil)
        _ = try cluster.psql(database, "CREATE TABLE public.late (id int PRIMARY KEY, note text); NOTIFY pgrst, 'reload schema'")
        #expect(eventually(within: .seconds(10)) { store.tables["late"] != nil }, "PostgREST's reload signal is heard")
        #expect(store.tables["late"]?.columns.map(\.name) == ["id", "note"] && store.tables["late"]?.primaryKey == ["id"])
        let alice = try user(store)
        let failures = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for _ in 0..<50 {
                if worker == 0 {
                    if (try? store.reloadSchema()) == nil { failures.add(1, ordering: .relaxed) }
                } else if (try? store.select(try store.table("todos"), RowQuery(), as: .user(alice), counting: false)) == nil {
                    failures.add(1, ordering: .relaxed)
                }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }

    @Test(.ownThread) func migrationsApplyOnceAndAgainIsNothing() throws {
        let (first, database) = try store()
        #expect(first.newlyApplied == Migrations.postgres.map(\.name) + AppSchema.starters.map(\.fileName))
        let again = try PostgresCluster.migrating { try PostgresStore(url: cluster.url(database), poolSize: 1) }
        #expect(again.newlyApplied.isEmpty)
        #expect(try again.appliedMigrations() == Migrations.postgres.map(\.name))
    }

    @Test(.ownThread) func aLostConnectionFailsWhatRanOnItAndThePoolReconnects() throws {
        let (store, database) = try store()
        let terminate = "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'"
        try store.ping()
        // Closed while idle in the pool (a restart): the next request goes on a new connection.
        _ = try cluster.psql("postgres", terminate)
        try store.ping()
        // Closed in the middle of a request: that request fails as unavailable, the next works.
        #expect {
            try store.run { connection throws(StoreError) in
                _ = try connection.query("SELECT 1")
                _ = try? cluster.psql("postgres", terminate)
                _ = try connection.query("SELECT 1")
            }
        } throws: { ($0 as? StoreError)?.isClientError == false }
        try store.ping()
    }

    @Test(.ownThread) func nothingOneRequestSetsReachesTheNext() throws {
        let url = try cluster.createDatabase()
        let store = try PostgresCluster.migrating { try PostgresStore(url: url, poolSize: 1) }
        let alice = try user(store)
        _ = try store.insert(StarterTables.todos, [["title": .text("hers")]], onConflict: nil, as: .user(alice))
        // One connection: the same one serves Alice, then anon, then the server itself.
        #expect(try store.select(StarterTables.todos, RowQuery(), as: .anon, counting: true).total == 0)
        let role = try store.run { connection throws(StoreError) in
            try connection.query("SELECT current_user || ':' || coalesce(auth.uid()::text, 'none')").first?.first ?? nil
        }
        #expect(role == "postgres:none")
        // A role the login may not take fails that request only; the connection stays usable.
        #expect(throws: StoreError.self) {
            try store.pool.with { connection throws(StoreError) in _ = try connection.execute("BEGIN; SET LOCAL ROLE pg_read_server_files_nope") }
        }
        #expect(try store.select(StarterTables.todos, RowQuery(), as: .user(alice), counting: false).rows.count == 1)
    }

    @Test(.ownThread) func anUnreachableDatabaseIsAClearError() {
        #expect { try PostgresStore(url: "postgres://nobody@127.0.0.1:1/none") } throws: { error in
            (error as? StoreError)?.message.contains("cannot connect to Postgres") == true
        }
    }

    /// A send that counted `total` devices and stored `stored` jobs; its id.
    func send(_ store: PostgresStore, total: Int, stored: Int) throws -> String {
        let send = RandomUUID.lowercase()
        try store.createSend(id: send, request: "{}", total: total)
        let jobs = (1...stored).map { NewPushJob(userID: nil, token: String(format: "%064x", $0), environment: nil, bundleID: nil, apnsID: RandomUUID.lowercase()) }
        try store.appendToSend(id: send, jobs: jobs, notifications: [], inboxSize: 500, badgeUnread: false)
        return send
    }

    @Test(.ownThread) func workersClaimSideBySideAndADeadWorkersJobsAreTakenOver() throws {
        let (store, _) = try store()
        let send = try send(store, total: 3, stored: 3)
        let a = try store.claimJobs(owner: "a", limit: 2, leaseSeconds: 60)
        let b = try store.claimJobs(owner: "b", limit: 2, leaseSeconds: 0)
        #expect(a.count == 2 && b.count == 1 && Set(a.map(\.id)).isDisjoint(with: b.map(\.id)))
        // b stops renewing (its lease of 0 s is already over): c takes its job over.
        let c = try store.claimJobs(owner: "c", limit: 10, leaseSeconds: 60)
        #expect(c.map(\.id) == b.map(\.id) && c.first?.attempts == 2)
        try store.renewLeases(owner: "a", leaseSeconds: 60)
        #expect(try store.claimJobs(owner: "d", limit: 10, leaseSeconds: 60).isEmpty, "a's renewed leases hold")
        try store.finishJobs((a + c).map { PushJobResult(jobID: $0.id, delivered: true, reason: nil, environment: nil, removed: false) })
        let summary = try #require(try store.sendSummary(id: send))
        #expect(summary.delivered == 3 && summary.redelivered == 1 && summary.finishedAt != nil)
    }

    @Test(.ownThread) func aSendsTotalIsSettledOnWhatWasStored() throws {
        let (store, _) = try store()
        let send = try send(store, total: 3, stored: 2)
        let claimed = try store.claimJobs(owner: "a", limit: 10, leaseSeconds: 60)
        try store.finishJobs(claimed.map { PushJobResult(jobID: $0.id, delivered: true, reason: nil, environment: nil, removed: false) })
        #expect(try store.sendSummary(id: send)?.finishedAt == nil)
        try store.finishStoring(id: send)
        let summary = try #require(try store.sendSummary(id: send))
        #expect(summary.total == 2 && summary.pending == 0 && summary.finishedAt != nil)
    }

    @Test func storingJobsWakesListeners() async throws {
        let (store, _) = try store()
        let signals = try #require(store.jobSignals())
        let send = RandomUUID.lowercase()
        try store.createSend(id: send, request: "{}", total: 1)
        // The listener connects on its own thread: a thread stores again and again until it hears one.
        let heard = Flag()
        Thread.detachNewThread {
            while !heard.isSet {
                try? store.appendToSend(id: send, jobs: [], notifications: [], inboxSize: 500, badgeUnread: false)
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        defer { heard.set() }
        // Heard by this test's own task (bounded by the suite's time limit), however busy the machine.
        for await _ in signals { break }
    }
}

/// A flag one task sets and another reads.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
