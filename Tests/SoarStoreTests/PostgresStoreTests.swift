import Foundation
import SoarCore
import SoarMigrations
@testable import SoarStore
import SoarTesting
import Testing

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

    @Test func theServersOwnStatementsReachNothingOfAnotherUser() throws {
        let (store, database) = try store()
        let alice = try user(store), bob = try user(store)
        let written = try store.insert(AppTables.todos, [["title": .text("alice's secret")]], onConflict: nil, as: .user(alice))
        #expect(written.count == 1)

        // The SQL the store sends for a read, an update and a delete: no ownership condition in it.
        var read = PostgresSQL(AppTables.todos)
        let select = "SELECT \(read.allColumns) FROM \(read.tableName)\(read.whereClause(nil))"
        #expect(!select.contains("user_id\" ="), "\(select)")
        #expect(try asUser(database, bob, select).isEmpty, "RLS alone keeps Bob out")
        #expect(try asUser(database, alice, select).contains("alice's secret"))
        let update = "UPDATE public.\"todos\" SET \"title\" = 'stolen' RETURNING \"id\""
        #expect(try asUser(database, bob, update).isEmpty)
        #expect(try asUser(database, bob, "DELETE FROM public.\"todos\" RETURNING \"id\"").isEmpty)
        #expect(try cluster.psql(database, "SELECT title FROM public.todos") == "alice's secret\n")

        // Through the store: Bob reads nothing, his insert as Alice is refused by the policy.
        #expect(try store.select(AppTables.todos, RowQuery(), as: .user(bob), counting: true).total == 0)
        #expect(throws: StoreError.self) {
            try store.insert(AppTables.todos, [["title": .text("x"), "user_id": .text(alice)]], onConflict: nil, as: .user(bob))
        }
        #expect { try store.insert(AppTables.payments, [["amount_cents": .integer(1), "currency": .text("usd"), "status": .text("paid")]], onConflict: nil, as: .user(bob)) }
            throws: { ($0 as? StoreError)?.message == "permission denied for table payments" }
    }

    @Test func migrationsApplyOnceAndAgainIsNothing() throws {
        let (first, database) = try store()
        #expect(first.newlyApplied == Migrations.postgres.map(\.name))
        let again = try PostgresCluster.migrating { try PostgresStore(url: cluster.url(database), poolSize: 1) }
        #expect(again.newlyApplied.isEmpty)
        #expect(try again.appliedMigrations() == Migrations.postgres.map(\.name))
    }

    @Test func aLostConnectionFailsAsUnavailableAndThePoolReconnects() throws {
        let (store, database) = try store()
        try store.ping()
        _ = try cluster.psql("postgres", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(database)'")
        #expect { try store.ping() } throws: { ($0 as? StoreError)?.isClientError == false }
        try store.ping()
    }

    @Test func anUnreachableDatabaseIsAClearError() {
        #expect { try PostgresStore(url: "postgres://nobody@127.0.0.1:1/none") } throws: { error in
            (error as? StoreError)?.message.contains("cannot connect to Postgres") == true
        }
    }
}
