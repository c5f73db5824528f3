import Foundation
import SoarCore
import SoarMigrations
import SoarSchema
@testable import SoarStore
import SoarTesting
import Testing

/// The SQLite store: migrations, ownership without RLS, constraints as Postgres codes, refresh rotation.
@Suite(.timeLimit(.minutes(5))) struct SQLiteStoreTests {
    let directory = TemporaryDirectory("soar-store")
    let time = ManualTime()
    var path: String { directory.path + "/test.db" }

    func open() throws -> SQLiteStore {
        try SQLiteStore(path: path, now: time.now)
    }

    func user(_ store: SQLiteStore, _ email: String) throws -> String {
        let id = RandomUUID.lowercase()
        var user = AuthUser(id: id, createdAt: Timestamp.postgres(Date()))
        user.email = email
        try store.createUser(user)
        return id
    }

    /// Statistics follow the data (Statistics): once a user's todos outnumber a read's ids, a
    /// read by id under the owner's equality walks the primary key, not every row the user has.
    /// 800 ids against 5,000 rows: a sample of the index's first thousand rows (all this user's)
    /// would count a thousand and walk the user's rows instead.
    @Test(.ownThread) func theQueryPlannersStatisticsFollowTheWrites() throws {
        let store = try open()
        let owner = try user(store, "stats@example.com")
        let ids = (0..<800).map { _ in RandomUUID.lowercase() }
        let plan = { () throws -> String in
            let list = ids.map { "'\($0)'" }.joined(separator: ",")
            return try store.read { connection throws(StoreError) in
                try connection.rows("EXPLAIN QUERY PLAN SELECT * FROM todos WHERE id IN (\(list)) AND user_id = '\(owner)'").compactMap { $0.last?.text }.joined()
            }
        }
        #expect(try plan().contains("todos_user_id_sort_order"), "a fresh file: SQLite guesses a user has ten rows")
        try store.write { connection throws(StoreError) in
            for index in 0..<5000 {
                try connection.rows("INSERT INTO todos (id, user_id, title) VALUES ($1, $2, $3)", [.text(RandomUUID.lowercase()), .text(owner), .text("todo \(index)")])
            }
        }
        #expect(eventually(within: .seconds(20)) { (try? plan())?.contains("sqlite_autoindex_todos_1") == true }, "\((try? plan()) ?? "")")
    }

    /// A read of listed ids walks the primary key whatever the statistics say: on a fresh file
    /// SQLite guesses a user has ten rows and would walk the owner's rows by `user_id` instead.
    @Test(.ownThread) func aReadOfListedKeysWalksThePrimaryKeyWhateverTheStatistics() throws {
        let store = try open()
        let owner = try user(store, "keys@example.com")
        let todos = try store.table("todos")
        let ids = try (0..<800).map { _ throws(StoreError) in try todos.column("id")!.storable(text: RandomUUID.lowercase()) }
        var query = RowQuery()
        query.condition = .all([.compare(column: "id", op: .in, operand: .list(ids)), .compare(column: "completed", op: .eq, operand: .value(.integer(0)))])
        let access = Access(role: .authenticated, userID: owner)
        let (rows, _) = try store.selection(todos, query, as: access, columns: ["id", "title"])
        let plan = try store.read { connection throws(StoreError) in
            connection.context.set(access, at: nil)
            return try connection.rows("EXPLAIN QUERY PLAN " + rows.text, rows.parameters).compactMap { $0.last?.text }.joined(separator: "\n")
        }
        #expect(plan.contains("sqlite_autoindex_todos_1") && !plan.contains("todos_user_id_sort_order"), "\(plan)")
        #expect(try store.select(todos, query, as: access, counting: false).rows.isEmpty)
        // A table keyed by its rowid (`id int primary key`) is looked up by it.
        let file = MigrationFile(version: "20990101000000", name: "plain", sql: """
            create table public.plain (id int primary key, owner uuid default auth.uid());
            create index plain_owner on public.plain (owner);
            alter table public.plain enable row level security;
            create policy "own" on public.plain for select using (auth.uid() = owner);
            grant select on public.plain to authenticated;
            """, path: "m/20990101000000_plain.sql")
        try store.migrateApp(AppSchema.starters + [file])
        let plain = try store.table("plain")
        query.condition = .compare(column: "id", op: .in, operand: .list([.integer(1), .integer(2)]))
        let byRowid = try store.selection(plain, query, as: access, columns: ["id"]).rows
        let rowidPlan = try store.read { connection throws(StoreError) in
            connection.context.set(access, at: nil)
            return try connection.rows("EXPLAIN QUERY PLAN " + byRowid.text, byRowid.parameters).compactMap { $0.last?.text }.joined(separator: "\n")
        }
        #expect(rowidPlan.contains("INTEGER PRIMARY KEY"), "\(rowidPlan)")
        #expect(try store.select(plain, query, as: access, counting: false).rows.isEmpty)
    }

    /// Reads inside `snapshot` share one read transaction: a commit made meanwhile is not seen
    /// until it ends (the change feed reads a batch's rows twice and relies on their cache).
    @Test(.ownThread) func readsInASnapshotSeeOneStateOfTheData() throws {
        let store = try open()
        let owner = try user(store, "snapshot@example.com")
        let count = { () throws(StoreError) -> String? in
            try store.read { connection throws(StoreError) in try connection.rows("SELECT count(*) FROM todos").first?.first?.text }
        }
        let insert = { () throws(StoreError) in
            try store.write { connection throws(StoreError) in
                try connection.rows("INSERT INTO todos (id, user_id, title) VALUES ($1, $2, 'a')", [.text(RandomUUID.lowercase()), .text(owner)])
            }
        }
        let seen = try store.snapshot { () throws(StoreError) -> [String?] in
            let before = try count()
            try insert()
            return [before, try count()]
        }
        #expect(seen == ["0", "0"])
        #expect(try count() == "1")
    }

    @Test func theWALIsCopiedIntoTheFileBesideTheWriter() throws {
        let store = try open()
        let owner = try user(store, "wal@example.com")
        let before = fileSize
        // About 6 MB through the writer, past the 1,000 pages that call for a checkpoint once the
        // writer is quiet.
        let big = String(repeating: "x", count: 20_000)
        for _ in 0..<300 {
            let id = RandomUUID.lowercase()
            try store.addNotifications([NewNotification(id: id, userID: owner, title: nil, body: nil, payload: "{\"pad\":\"\(big)\"}")], inboxSize: 500)
        }
        #expect(eventually(within: .seconds(30)) { fileSize > before + 4_000_000 }, "the checkpointer copied the pages into the file")
    }

    /// A writer that is never quiet for an hour: only the page limit can start a checkpoint, and
    /// past the limit each copy is flushed to disk.
    @Test func aWALPastItsLimitIsCopiedWhileTheWriterIsBusy() throws {
        let checkpointer = try Checkpointer(path: path, quiet: .seconds(3600), limit: 1_500)
        try walIsCopied(by: checkpointer)
        #expect(eventually(within: .seconds(30)) { checkpointer.flushCount > 0 }, "copies past the limit flush the file")
    }

    /// Under the limit, with the writer never quiet, the queue flushes the WAL every 2,000 pages and
    /// copies nothing into the file (later commits would change the same pages again).
    @Test func underTheLimitTheQueueFlushesTheWALAndCopiesNothing() throws {
        let checkpointer = try Checkpointer(path: path, quiet: .seconds(3600), limit: 1_000_000)
        let writer = try padWriter(reportingTo: checkpointer)
        let before = fileSize
        try pad(writer, megabytes: 18)
        checkpointer.waitForQueue()
        #expect(checkpointer.walFlushCount >= 1 && checkpointer.failed == nil, "\(String(describing: checkpointer.failed))")
        #expect(checkpointer.flushCount == 0 && fileSize == before, "nothing copied into the file")
    }

    /// A WAL flush the disk fails stops the checkpoints too.
    @Test func aFailedWALFlushStopsTheCheckpoints() throws {
        let checkpointer = try Checkpointer(path: path, quiet: .milliseconds(50), limit: 1_000_000, flushWAL: { _ throws(StoreError) in
            throw .unavailable("EIO")
        })
        let writer = try padWriter(reportingTo: checkpointer)
        let before = fileSize
        try pad(writer, megabytes: 9)
        #expect(eventually(within: .seconds(30)) { checkpointer.failed?.contains("EIO") == true })
        checkpointer.waitForQueue()
        #expect(fileSize == before, "no quiet checkpoint after the failure")
    }

    /// A flush the disk fails stops the checkpoints for good, so that no later one (whose fsync
    /// Linux may report clean) lets the WAL start over without the pages; the store says why.
    @Test func aDiskErrorStopsTheCheckpointsAndIsReported() throws {
        let checkpointer = try Checkpointer(path: path, quiet: .seconds(3600), limit: 1_500, flush: { _ throws(StoreError) in
            throw .unavailable("EIO")
        })
        try walIsCopied(by: checkpointer)
        #expect(eventually(within: .seconds(30)) { checkpointer.failed != nil })
        #expect(checkpointer.failed?.contains("EIO") == true && checkpointer.flushCount == 0)
        let writer = try SQLiteConnection(path: path, readOnly: false)
        writer.onCommit { checkpointer.committed(walPages: $0, writer: $1) }
        checkpointer.waitForQueue()
        let before = fileSize
        try pad(writer, megabytes: 8, letter: "y")
        checkpointer.waitForQueue()
        #expect(fileSize == before, "8 MB more stayed in the WAL")
    }

    /// A WAL far under its limit: the writer going quiet starts the checkpoint.
    @Test func aQuietWriterHasItsWALCopied() throws {
        try walIsCopied(by: Checkpointer(path: path, quiet: .milliseconds(50), limit: 1_000_000))
    }

    /// Writes `megabytes` (8 by default: 2,000 pages) through a writer of its own that reports to
    /// `checkpointer`, and expects the file to grow as the checkpointer copies the pages into it.
    func walIsCopied(by checkpointer: Checkpointer, megabytes: Int = 8) throws {
        let writer = try padWriter(reportingTo: checkpointer)
        let before = fileSize
        try pad(writer, megabytes: megabytes)
        #expect(eventually(within: .seconds(30)) { fileSize > before + megabytes * 500_000 }, "the checkpointer copied the pages into the file")
    }

    /// A writer of its own, with a `pad` table, whose commits report to `checkpointer`.
    func padWriter(reportingTo checkpointer: Checkpointer) throws -> SQLiteConnection {
        let writer = try SQLiteConnection(path: path, readOnly: false)
        writer.onCommit { checkpointer.committed(walPages: $0, writer: $1) }
        try writer.execute("CREATE TABLE pad (body TEXT)")
        return writer
    }

    /// Writes `megabytes` through `writer`, 100 KB a commit.
    func pad(_ writer: SQLiteConnection, megabytes: Int, letter: String = "x") throws {
        let big = String(repeating: letter, count: 100_000)
        for _ in 0..<(megabytes * 10) { try writer.statement("INSERT INTO pad (body) VALUES (?1)").run([.text(big)]) }
    }

    /// The database file's size (what checkpoints copy into it).
    var fileSize: Int { ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0 }

    /// A writer that commits without pause: the WAL still starts over once past its limit, where
    /// it used to grow without end (SQLite restarts it only at a transaction that begins with all
    /// of it copied, which the writer never found while the queue copied behind it).
    @Test func theWALOfAWriterThatNeverPausesStartsOver() throws {
        let checkpointer = try Checkpointer(path: path, quiet: .seconds(3600), limit: 1_500)
        let writer = try SQLiteConnection(path: path, readOnly: false)
        let sizes = Locked<[Int]>([])
        writer.onCommit { pages, connection in
            sizes.withLock { $0.append(pages) }
            checkpointer.committed(walPages: pages, writer: connection)
        }
        try writer.execute("CREATE TABLE pad (body TEXT)")
        let row = String(repeating: "x", count: 3_000)  // about a page a commit
        let startedOver = { sizes.withLock { zip($0, $0.dropFirst()).contains { $1 < $0 && $0 >= 1_500 } } }
        let largest = { sizes.withLock { $0.max() ?? 0 } }
        // Measured: 1,900-2,000 pages at the most, against 17,000-23,000 before the writer copied
        // the last pages itself.
        let deadline = ContinuousClock.now + .seconds(60)
        while !startedOver(), largest() < 12_000, ContinuousClock.now < deadline {
            try writer.statement("INSERT INTO pad (body) VALUES (?1)").run([.text(row)])
        }
        #expect(startedOver() && largest() < 6_000, "the WAL grew to \(largest()) pages before starting over")
    }

    /// The queue's checkpoints flush the file and the WAL through SQLite's handles on them (a
    /// handle of our own would drop SQLite's locks on the file when closed).
    @Test func theDatabaseFileAndItsWALAreSyncedThroughSQLitesOwnHandles() throws {
        let connection = try SQLiteConnection(path: path, readOnly: false)
        try connection.execute("CREATE TABLE pad (body TEXT); INSERT INTO pad VALUES ('x')")
        try connection.checkpoint()
        try connection.syncFile()
        try connection.syncFile(wal: true)
    }

    @Test func aFileAnotherProcessOwnsIsRefusedAndOneProcessesStoresShareIt() throws {
        let first = try open()
        let again = try open()  // the same process reopening it (a restart in a test)
        _ = (first, again)
        // Another process holding the file, as a second soar serve would.
        let other = directory.path + "/other.db"
        let release = directory.path + "/release"
        let holder = try BackgroundProcess("/usr/bin/python3", [
            "-c",
            "import fcntl,os,sys,time; f=open(sys.argv[1],'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True)\n"
                + "while not os.path.exists(sys.argv[2]): time.sleep(0.01)\nf.close(); print('released', flush=True)",
            other + ".lock", release,
        ])
        #expect(holder.readLine() == "held")
        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: other) }
        #expect(error?.message.contains("in use by another soar process") == true, "\(String(describing: error))")
        #expect(FileManager.default.createFile(atPath: release, contents: nil))
        #expect(holder.readLine() == "released")
        #expect(throws: Never.self) { try SQLiteStore(path: other) }
        let created = directory.path + "/new.db"
        _ = try SQLiteStore(path: created)
        #expect(try FileManager.default.attributesOfItem(atPath: created)[.posixPermissions] as? Int == 0o600)
    }

    @Test func aDatabaseFromBeforeTheAppsMigrationsIsUpgradedInPlaceWithEveryRow() throws {
        let path = directory.path + "/legacy.db"
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/legacy-sqlite.sql")
        try SQLiteConnection(path: path, readOnly: false).execute(try String(contentsOf: fixture, encoding: .utf8))
        let store = try SQLiteStore(path: path)
        #expect(try store.appliedAppMigrations().map(\.version) == AppSchema.starters.map(\.version))
        let alice = "a1a1a1a1-0000-4000-8000-000000000001", bob = "b2b2b2b2-0000-4000-8000-000000000002"
        let one = "ab" + String(repeating: "cd", count: 31), two = "ef" + String(repeating: "01", count: 31)
        let tokens = try store.read { connection throws(StoreError) in
            try connection.statement("SELECT user_id, token, updated_at FROM device_tokens ORDER BY token").rows([])
        }
        // Alice's two rows for one device are one (the newest); the second device is Bob's, its latest user.
        #expect(tokens == [[.text(alice), .text(one), .text("2026-01-02 00:00:00+00")], [.text(bob), .text(two), .text("2026-01-03 00:00:00+00")]])
        let todos = try store.select(try store.table("todos"), RowQuery(), as: .user(alice), counting: false).rows
        #expect(todos.count == 1 && todos[0][2] == .text("buy milk") && todos[0][3] == .integer(1) && todos[0][4] == .integer(3))
        #expect(try store.select(try store.table("profiles"), RowQuery(), as: .user(alice), counting: false).rows.first?[1] == .text("Alice"))
        #expect(try store.select(try store.table("payments"), RowQuery(), as: .user(bob), counting: false).rows.first?[2] == .integer(999))
        #expect(try store.select(try store.table("subscriptions"), RowQuery(), as: .user(bob), counting: false).rows.count == 1)
        #expect(try store.select(try store.table("notifications"), RowQuery(), as: .user(alice), counting: false).rows.first?[7] == .text("2026-11-02 10:05:00+00"))
        // The starter's rules hold on the upgraded tables: new rows get defaults and checks.
        let written = try store.insert(try store.table("todos"), [["title": .text("new")]], onConflict: nil, as: .user(alice))
        #expect(written.first?[1] == .text(alice))
        #expect(throws: StoreError.self) { try store.insert(try store.table("device_tokens"), [["token": .text("xyz")]], onConflict: nil, as: .user(alice)) }
        // And the one-owner rule is back: Bob's device registered by Alice is Alice's alone.
        _ = try store.insert(try store.table("device_tokens"), [["token": .text(two)]], onConflict: .merge(on: ["user_id", "token"]), as: .user(alice))
        #expect(try store.select(try store.table("device_tokens"), RowQuery(), as: .user(bob), counting: false).rows.isEmpty)
        store.close()
        #expect(try SQLiteStore(path: path).appliedAppMigrations().count == AppSchema.starters.count, "opened again, nothing more to do")
    }

    @Test func aPolicyNamingAnUnknownColumnIsRefusedNotReadAsAString() throws {
        let store = try open()
        let file = MigrationFile(version: "20990101000000", name: "docs", sql: """
            create table public.docs (id int primary key, user_id uuid, shared_with uuid);
            alter table public.docs enable row level security;
            create policy "own or shared" on public.docs for select using (auth.uid() = user_id or sharedwith is not null);
            """, path: "m/20990101000000_docs.sql")
        let error = #expect(throws: MigrationError.self) { try store.migrateApp(AppSchema.starters + [file]) }
        #expect(error?.message.contains("20990101000000_docs.sql:3:1: no such column: sharedwith") == true, "\(String(describing: error))")
        #expect(store.tables["docs"] == nil, "nothing of the file applied")
    }

    @Test func commitsAreSyncedBeforeTheyAreAcknowledgedUnlessAskedOtherwise() throws {
        func mode(_ store: SQLiteStore) throws -> SQLValue? {
            try store.writer.betweenTransactions { connection throws(StoreError) in try connection.statement("PRAGMA synchronous").rows([]).first?.first }
        }
        let durable = try open()
        #expect(try mode(durable) == .integer(2), "FULL: a commit survives a power cut")
        durable.close()
        let faster = try SQLiteStore(path: path, synchronous: .normal)
        #expect(try mode(faster) == .integer(1), "NORMAL: survives a killed process")
    }

    @Test func theWriterReadsTheFileThroughAMemoryMap() throws {
        let store = try open()
        let mapped = try store.writer.betweenTransactions { connection throws(StoreError) in
            try connection.statement("PRAGMA mmap_size").rows([]).first?.first
        }
        #expect(mapped == .integer(1 << 30), "SQLite as built here maps up to 1 GB: no read() per page missed in the cache")
    }

    @Test func seedRowsAreStoredAsTheDataAPIStoresThem() throws {
        let store = try open()
        let file = MigrationFile(version: "20990101000000", name: "seeds", sql: """
            create table public.plans (id uuid primary key, name text, live boolean, starts timestamptz, price numeric);
            grant select on public.plans to anon;
            insert into public.plans values ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 'Pro', 't', '2025-01-02 03:04:05+02', 9.5);
            insert into public.plans (id, name, live, starts) values ('b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12', 'Free', true, '2025-01-02');
            update public.plans set live = 'off' where name = 'Free';
            """, path: "m/20990101000000_seeds.sql")
        try store.migrateApp(AppSchema.starters + [file])
        let plans = try store.table("plans")
        var query = RowQuery()
        query.order = [RowQuery.Order(column: "name")]
        let rows = try store.select(plans, query, as: .anon, counting: false).rows
        let json = rows.map { row in plans.columns.enumerated().map { plans.columns[$0.offset].json(row[$0.offset]) } }
        #expect(json.map { $0[0] } == [.string("b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12"), .string("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")])
        #expect(json.map { $0[2] } == [.bool(false), .bool(true)])
        #expect(json.map { $0[3] } == [.string("2025-01-02T00:00:00.000000+00:00"), .string("2025-01-02T01:04:05.000000+00:00")])
        // A filter on the seeded values finds them as it finds the API's.
        query.condition = .compare(column: "id", op: .eq, operand: .value(try plans.column("id")!.storable(text: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")))
        #expect(try store.select(plans, query, as: .anon, counting: false).rows.count == 1)

        let bad = MigrationFile(version: "20990101000001", name: "bad", sql: "insert into public.plans (id, live) values (gen_random_uuid(), 'maybe');", path: "m/20990101000001_bad.sql")
        let error = #expect(throws: MigrationError.self) { try store.migrateApp(AppSchema.starters + [file, bad]) }
        #expect(error?.message.contains("invalid input syntax for type boolean: \"maybe\"") == true, "\(String(describing: error))")
    }

    /// A read written straight from SQLite's values (`selectJSON`) is the same JSON as one made
    /// from rows and ``Column/json(_:)``, for every kind and for values stored oddly: quotes,
    /// control characters, non-ASCII and invalid UTF-8 text, numbers kept as text, JSON, NULLs.
    @Test func aReadWrittenStraightAsJSONIsTheJSONOfItsRows() throws {
        let store = try open()
        let file = MigrationFile(version: "20990101000000", name: "kinds", sql: """
            create type public.mood as enum ('happy', 'sad');
            create table public.kinds (n int primary key, u uuid, t text, b boolean, i bigint, num numeric, d double precision,
              ts timestamptz, day date, j jsonb, raw bytea, m public.mood);
            grant select on public.kinds to anon;
            insert into public.kinds values (1, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'say "hi"\\ \t tab', true, 9007199254740993, 9.50,
              0.1, '2025-01-02 03:04:05+02', '2025-01-02', '{"b": [1, 2], "a": null}', '\\x00ff', 'happy');
            insert into public.kinds (n, t, b, d) values (2, 'été ✓ 🚀', false, 1e20);
            insert into public.kinds (n) values (3);
            """, path: "m/20990101000000_kinds.sql")
        try store.migrateApp(AppSchema.starters + [file])
        // What only SQL could store: control characters, invalid UTF-8, numbers as odd text.
        try store.write { connection throws(StoreError) in
            try connection.rows("INSERT INTO kinds (n, t, i, num, b, j) VALUES (4, char(1) || 'x' || char(31), '12x', 'abc', 't', 'not json')")
            try connection.rows("INSERT INTO kinds (n, t) VALUES (5, CAST(x'61ff62' AS TEXT))")
        }
        let kinds = try store.table("kinds")
        var query = RowQuery()
        query.order = [RowQuery.Order(column: "n")]
        for outputs in [[], [RowQuery.Output(column: "t", key: "text"), RowQuery.Output(column: "n", key: "n"), RowQuery.Output(column: "t", key: "again")]] {
            query.outputs = outputs
            var fast = JSONText()
            let written = try store.selectJSON(kinds, query, as: .anon, counting: true, into: &fast)
            let rows = try store.select(kinds, query, as: .anon, counting: true)
            let named = query.outputs(of: kinds.columns.map(\.name))
            var slow = JSONText()
            slow.beginArray()
            for row in rows.rows {
                slow.beginObject()
                for output in named { slow.field(output.key, kinds.column(output.column)!.json(row[kinds.position(of: output.column)!])) }
                slow.endObject()
            }
            slow.endArray()
            #expect(written.map { $0.rows == 5 && $0.total == 5 } == true)
            #expect(String(decoding: fast.bytes, as: UTF8.self) == String(decoding: slow.bytes, as: UTF8.self))
        }
        query.embeddings = [RowQuery.Embedding(relation: "todos", hint: nil, inner: false, query: RowQuery())]
        var none = JSONText()
        #expect(try store.selectJSON(kinds, query, as: .anon, counting: false, into: &none) == nil && none.bytes.isEmpty, "embeddings take the rows' path")
    }

    @Test func migrationsApplyOnceAndEveryFileIsListed() throws {
        let first = try open()
        #expect(try first.appliedMigrations() == Migrations.sqlite.map(\.name))
        first.close()
        let second = try open()
        #expect(try second.appliedMigrations() == Migrations.sqlite.map(\.name), "reopening applies nothing twice")
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../db/sqlite").standardized.path
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(files == Migrations.sqlite.map(\.name), "a new SQL file needs its line in db/Migrations.swift")
    }

    @Test func registeringADeviceLooksItsTokenUpByIndexNotByScanningEveryRow() throws {
        // The one-owner trigger runs on every registration; without the index it read the whole
        // table each time, and registering 100,000 devices took minutes.
        let store = try open()
        let plan = try store.read { connection throws(StoreError) in
            try connection.statement("EXPLAIN QUERY PLAN DELETE FROM device_tokens WHERE token = ?1 AND user_id <> ?2").rows([.text("00"), .text("u")])
        }
        let steps = plan.map { $0.map { "\($0)" }.joined(separator: " ") }.joined(separator: "\n")
        #expect(steps.contains("INDEX device_tokens_token"), "\(steps)")
    }

    @Test func upsertingTheSameTokenTwiceKeepsOneRow() throws {
        let store = try open()
        let alice = try user(store, "a@example.com")
        let row: RowValues = ["user_id": .text(alice), "token": .text("00aa112233445566"), "platform": .text("ios")]
        for _ in 0..<2 { _ = try store.insert(StarterTables.deviceTokens, [row], onConflict: .merge(on: ["user_id", "token"]), as: .user(alice)) }
        let rows = try store.select(StarterTables.deviceTokens, RowQuery(), as: .user(alice), counting: true)
        #expect(rows.total == 1)
    }

    @Test func emptyAndNonASCIITextIsStoredAndReadWhole() throws {
        let store = try open()
        let alice = try user(store, "a@example.com")
        let position = try #require(StarterTables.todos.position(of: "title"))
        for title in ["", "日本語 ✓ 🚀"] {
            let stored = try store.insert(StarterTables.todos, [["user_id": .text(alice), "title": .text(title)]], onConflict: nil, as: .user(alice))
            #expect(stored.first?[position] == .text(title))
        }
        let titles = try store.select(StarterTables.todos, RowQuery(), as: .user(alice), counting: false).rows.map { $0[position] }
        #expect(Set(titles) == [.text(""), .text("日本語 ✓ 🚀")])
    }

    @Test func ownershipHidesAndProtectsOtherUsersRows() throws {
        let store = try open()
        let alice = try user(store, "a@example.com")
        let bob = try user(store, "b@example.com")
        let todo = try store.insert(StarterTables.todos, [["title": .text("milk")]], onConflict: nil, as: .user(alice))
        #expect(todo.count == 1)
        #expect(try store.select(StarterTables.todos, RowQuery(), as: .user(bob), counting: false).rows.isEmpty)
        #expect(try store.select(StarterTables.todos, RowQuery(), as: .anon, counting: false).rows.isEmpty)
        #expect(try store.update(StarterTables.todos, set: ["title": .text("hacked")], where: nil, as: .user(bob)).isEmpty)
        #expect(try store.delete(StarterTables.todos, where: nil, as: .user(bob)).isEmpty)
        #expect(throws: StoreError.rowSecurity("todos")) {
            try store.insert(StarterTables.todos, [["title": .text("x"), "user_id": .text(alice)]], onConflict: nil, as: .user(bob))
        }
        // Upserting over Alice's row by its id, claiming it for Bob, is refused rather than silently ignored.
        let id = todo[0][0]
        #expect(throws: StoreError.rowSecurity("todos")) {
            try store.insert(StarterTables.todos, [["id": id, "title": .text("x")]], onConflict: .merge(on: ["id"]), as: .user(bob))
        }
        #expect(throws: StoreError.permissionDenied("payments")) {
            try store.insert(StarterTables.payments, [["amount_cents": .integer(1)]], onConflict: nil, as: .user(bob))
        }
        let all = try store.select(StarterTables.todos, RowQuery(), as: .service, counting: false).rows
        #expect(all.count == 1 && all[0][2] == .text("milk"), "nothing changed")
    }

    @Test func constraintsBecomePostgresCodes() throws {
        let store = try open()
        let alice = try user(store, "a@example.com")
        let id = SQLValue.text(RandomUUID.lowercase())
        _ = try store.insert(StarterTables.todos, [["id": id, "title": .text("a")]], onConflict: nil, as: .user(alice))
        do {
            _ = try store.insert(StarterTables.todos, [["id": id, "title": .text("b")]], onConflict: nil, as: .user(alice))
            Issue.record("duplicate accepted")
        } catch {
            #expect(error.code == "23505")
        }
        do {
            _ = try store.insert(StarterTables.todos, [["title": .null]], onConflict: nil, as: .user(alice))
            Issue.record("null accepted")
        } catch {
            #expect(error.code == "23502")
        }
    }

    @Test func aRefreshTokenIsSingleUseAndReuseEndsTheSession() throws {
        let store = try open()
        let alice = try user(store, "a@example.com")
        let now = time.date
        try store.createSession(id: "s1", userID: alice, refreshTokenHash: "h1", now: Timestamp.postgres(now))
        // Each token's successors, as the auth service derives them: h1 -> h2 -> h3 -> h4.
        let after = ["h1": ["h2", "h3", "h4"], "h2": ["h3", "h4", "h5"], "h3": ["h4", "h5", "h6"]]
        func refresh(_ hash: String, at seconds: TimeInterval) throws -> RefreshOutcome {
            try store.refresh(tokenHash: hash, successorHashes: after[hash] ?? ["x1", "x2"], now: now.addingTimeInterval(seconds), reuseGrace: 10)
        }
        #expect(try refresh("h1", at: 0) == .rotated(userID: alice, sessionID: "s1"))
        // A parallel refresh with the same token within the grace gets the live successor, not a second one.
        #expect(try refresh("h1", at: 5) == .liveSuccessor(userID: alice, sessionID: "s1", generation: 0))
        #expect(try refresh("h2", at: 6) == .rotated(userID: alice, sessionID: "s1"))
        #expect(try refresh("h1", at: 7) == .liveSuccessor(userID: alice, sessionID: "s1", generation: 1), "h3 is live now")
        #expect(try refresh("h1", at: 60) == .reused)
        #expect(try store.sessionExists("s1") == false, "reuse revoked the session")
        #expect(try refresh("h3", at: 61) == .notFound)
        #expect(try refresh("nope", at: 0) == .notFound)
    }

    @Test func timestampsAreStoredAsPostgRESTPrintsThem() {
        #expect(Timestamp.postgres(Date(timeIntervalSince1970: 1_714_566_600.123456)) == "2024-05-01T12:30:00.123456+00:00")
        #expect(Timestamp.postgres(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000000+00:00")
        #expect(Timestamp.postgres(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000000+00:00")
    }
}

extension SQLiteStoreTests {
    @Test func anonInsertsNothingEvenNamingAnOwner() throws {
        let store = try open()
        let alice = try user(store, "a@example.com")
        #expect(throws: StoreError.rowSecurity("todos")) {
            try store.insert(StarterTables.todos, [["title": .text("x"), "user_id": .text(alice)]], onConflict: nil, as: .anon)
        }
        #expect(throws: StoreError.rowSecurity("todos"), "naming no owner: the policy, not the missing user_id") {
            try store.insert(StarterTables.todos, [["title": .text("x")]], onConflict: nil, as: .anon)
        }
        #expect(throws: StoreError.rowSecurity("device_tokens")) {
            try store.insert(StarterTables.deviceTokens, [["token": .text("00aa112233445566"), "user_id": .text(alice)]], onConflict: .merge(on: ["user_id", "token"]), as: .anon)
        }
        #expect(try store.select(StarterTables.todos, RowQuery(), as: .service, counting: false).rows.isEmpty)
    }
}

extension SQLiteStoreTests {
    /// Writes from many threads share transactions (group commit), yet each succeeds or fails alone.
    @Test func concurrentWritesFailAloneInASharedCommit() async throws {
        let store = try open()
        let alice = try user(store, "a@example.com")
        let taken = SQLValue.text(RandomUUID.lowercase())
        _ = try store.insert(StarterTables.todos, [["id": taken, "title": .text("first")]], onConflict: nil, as: .user(alice))
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    // Every fourth write reuses the taken id and must fail; a failing bulk insert keeps none of its rows.
                    let rows: [RowValues] =
                        index % 4 == 0
                        ? [["title": .text("ok-part \(index)")], ["id": taken, "title": .text("dup \(index)")]]
                        : [["title": .text("row \(index)")]]
                    return (try? store.insert(StarterTables.todos, rows, onConflict: nil, as: .user(alice))) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 48)
        let titles = try store.select(StarterTables.todos, RowQuery(), as: .user(alice), counting: false).rows.map { $0[2] }
        #expect(titles.count == 49, "48 single rows and the first")
        #expect(!titles.contains { if case .text(let t) = $0 { t.hasPrefix("ok-part") } else { false } })
    }

    /// Bulk writes (chunks of sends) commit alone, and transactions alternate: small writes queued
    /// while a bulk one commits go together next, ahead of bulk ones queued before them.
    @Test func smallWritesWaitForOneBulkWriteAtMost() {
        #expect(WriteBatcher.nextBatch([], afterBulk: true) == [])
        #expect(WriteBatcher.nextBatch([false, false], afterBulk: false) == [0, 1])
        #expect(WriteBatcher.nextBatch([false, true, false], afterBulk: true) == [0, 2])
        #expect(WriteBatcher.nextBatch([false, true, false], afterBulk: false) == [1])
        #expect(WriteBatcher.nextBatch([true, true], afterBulk: true) == [0])
    }

    @Test func smallWritesGoAheadOfAQueuedBulkWrite() throws {
        let batcher = WriteBatcher(connection: try SQLiteConnection(path: path, readOnly: false))
        let order = Locked<[String]>([])
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        func write(_ name: String, bulk: Bool, holding: Bool = false) {
            done.enter()
            Thread.detachNewThread {
                _ = try? batcher.perform(bulk: bulk) { _ throws(StoreError) in
                    order.withLock { $0.append(name) }
                    if holding { release.wait() }
                }
                done.leave()
            }
        }
        write("bulk 1", bulk: true, holding: true)
        #expect(eventually { order.withLock { $0 } == ["bulk 1"] })
        for (index, (name, bulk)) in [("small 1", false), ("bulk 2", true), ("small 2", false)].enumerated() {
            write(name, bulk: bulk)
            #expect(eventually { batcher.queued == index + 1 })
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(order.withLock { $0 } == ["bulk 1", "small 1", "small 2", "bulk 2"])
    }
}

extension SQLiteStoreTests {
    /// Queued inserts (the REST path) are committed by the writer thread, in transactions shared
    /// with each other, and each completes once, with its own outcome.
    @Test func queuedInsertsCompleteAfterTheirCommitEachWithItsOwnOutcome() throws {
        let store = try open()
        let alice = try user(store, "q@example.com")
        let taken = SQLValue.text(RandomUUID.lowercase())
        _ = try store.insert(StarterTables.todos, [["id": taken, "title": .text("first")]], onConflict: nil, as: .user(alice))
        let outcomes = Locked<[Int: Bool]>([:])
        let done = DispatchGroup()
        for index in 0..<200 {
            done.enter()
            let row: RowValues = index % 10 == 0 ? ["id": taken, "title": .text("dup")] : ["title": .text("row \(index)")]
            store.insert(StarterTables.todos, [row], onConflict: nil, as: .user(alice), single: false) { result in
                outcomes.withLock { $0[index] = (try? result.get()) != nil }
                done.leave()
            }
        }
        #expect(done.wait(timeout: .now() + 20) == .success)
        #expect(outcomes.withLock { $0.count } == 200)
        #expect(outcomes.withLock { $0.values.filter { $0 }.count } == 180, "each duplicate failed alone")
        #expect(try store.select(StarterTables.todos, RowQuery(), as: .user(alice), counting: false).rows.count == 181)
    }

    /// `close` commits what is queued before it returns; an insert queued after it fails at once.
    @Test func closingCommitsTheQueuedInsertsAndRefusesLaterOnes() throws {
        let store = try open()
        let alice = try user(store, "c@example.com")
        let committed = Locked(0)
        for index in 0..<50 {
            store.insert(StarterTables.todos, [["title": .text("row \(index)")]], onConflict: nil, as: .user(alice), single: false) { result in
                if (try? result.get()) != nil { committed.withLock { $0 += 1 } }
            }
        }
        store.close()
        #expect(committed.withLock { $0 } == 50)
        let late = Locked<StoreError?>(nil)
        store.insert(StarterTables.todos, [["title": .text("late")]], onConflict: nil, as: .user(alice), single: false) { result in
            if case .failure(let error) = result { late.withLock { $0 = error } }
        }
        #expect(late.withLock { $0 }?.message.contains("closed") == true)
        #expect(try open().select(StarterTables.todos, RowQuery(), as: .user(alice), counting: false).rows.count == 50)
        // A store closed before any insert was queued refuses them too.
        let unused = try open()
        unused.close()
        let refused = Locked<StoreError?>(nil)
        unused.insert(StarterTables.todos, [["title": .text("late")]], onConflict: nil, as: .user(alice), single: false) { result in
            if case .failure(let error) = result { refused.withLock { $0 = error } }
        }
        #expect(refused.withLock { $0 }?.message.contains("closed") == true)
    }
}
