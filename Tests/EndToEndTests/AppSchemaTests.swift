import Foundation
import SoarTesting
import Testing

/// The app's own schema: `soar init`, its migrations plus one of the app's (teams, members,
/// notes under a membership policy, a view, an enum, a table nobody is granted), applied by
/// `soar serve` to SQLite and to Postgres, and the same requests by several users through the
/// PyPI supabase client answered the same on both.
@Suite(.timeLimit(.minutes(5))) struct AppSchemaTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/20250601000000_teams_notes.sql").standardized.path
    static let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/schema_parity.py").standardized.path

    /// The starter (from `soar init`) and the fixture, in a folder of their own.
    func migrations(_ dir: TemporaryDirectory) throws -> String {
        let folder = dir.path + "/supabase/migrations"
        let written = try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", folder])
        #expect(written.status == 0, "\(written.stderr)")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: folder + "/20250601000000_teams_notes.sql")
        return folder
    }

    /// The peer's transcript against `soar serve` on `database`.
    func transcript(_ database: [String], environment: [String: String] = [:]) throws -> [String] {
        let dir = TemporaryDirectory("soar-app-schema")
        let folder = try migrations(dir)
        let server = try BackgroundProcess(SoarBinary.path, ["serve", "--port", "0", "--migrations", folder] + database, environment: environment)
        defer { _ = server.stop() }
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine()?.replacingOccurrences(of: "service_role key: ", with: ""))
        var line = server.readLine()
        while let read = line, !read.hasPrefix("schema: ") { line = server.readLine() }
        #expect(line == "schema: \(folder)")
        let run = try ProcessRunner.run("python3", [Self.peer, url, anon, service], timeout: 120)
        #expect(run.status == 0 && run.stdout.hasSuffix("ok\n"), "\(run.stdout)\n\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    @Test(.ownThread) func theSameMigrationsAnswerTheSameOnSQLiteAndPostgres() throws {
        let dir = TemporaryDirectory("soar-app-schema")
        let sqlite = try transcript(["--db", dir.path + "/soar.db"])
        let url = try PostgresCluster.shared.get().createDatabase()
        let postgres = try transcript(["--database-url", url], environment: ["JWT_SECRET": "an-app-schema-test-secret-0123456789abcdef"])
        #expect(sqlite.count > 20)
        for (line, (left, right)) in zip(sqlite, postgres).enumerated() {
            #expect(left == right, "request \(line + 1): SQLite answered \(left), Postgres \(right)")
        }
        #expect(sqlite.count == postgres.count)
    }

    @Test(.ownThread) func theFilesArePlainSupabaseMigrationsThatPsqlRunsAlone() throws {
        let dir = TemporaryDirectory("soar-app-schema")
        let folder = try migrations(dir)
        let cluster = try PostgresCluster.shared.get()
        let url = try cluster.createDatabase()
        let database = String(url.split(separator: "/").last!)
        // What every Supabase project has before its migrations: roles, the auth schema, its helpers.
        let base = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../db/postgres/0001_supabase_base.sql").standardized.path
        try PostgresCluster.migrating {
            for file in [base, folder + "/" + (try FileManager.default.contentsOfDirectory(atPath: folder).sorted()[0]), folder + "/20250601000000_teams_notes.sql"] {
                let run = try ProcessRunner.run("/usr/bin/psql", ["-h", "127.0.0.1", "-p", String(cluster.port), "-U", "postgres", "-d", database, "-q", "-v", "ON_ERROR_STOP=1", "-f", file])
                #expect(run.status == 0, "\(file): \(run.stderr)")
            }
        }
        #expect(try cluster.psql(database, "SELECT count(*) FROM pg_policies WHERE tablename = 'notes'") == "5\n")
    }

    @Test(.ownThread) func aFailingMigrationIsNamedWithItsPlaceAndNothingOfItIsApplied() throws {
        let dir = TemporaryDirectory("soar-app-schema")
        let folder = try migrations(dir)
        let database = ["--db", dir.path + "/soar.db"]
        #expect(try ProcessRunner.run(SoarBinary.path, ["migrate", "--migrations", folder] + database).status == 0)
        let bad = folder + "/20250701000000_more.sql"
        try "create table public.kept (id int primary key);\n\ncreate table public.broken (id int primary key, x text references public.nowhere (id));\n"
            .write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try ProcessRunner.run(SoarBinary.path, ["migrate", "--migrations", folder] + database)
        #expect(refused.status == 2 && refused.stderr.contains("20250701000000_more.sql:3:"), "\(refused.stderr)")
        try "create table public.kept (id int primary key);\ncreate tabel oops;\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let syntax = try ProcessRunner.run(SoarBinary.path, ["migrate", "--migrations", folder] + database)
        #expect(syntax.status == 2 && syntax.stderr.contains("20250701000000_more.sql:2:8: syntax error at or near \"tabel\""), "\(syntax.stderr)")
        try "create table public.kept (id int primary key);\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let fixed = try ProcessRunner.run(SoarBinary.path, ["migrate", "--migrations", folder] + database)
        #expect(fixed.status == 0 && fixed.stdout.contains("applied 20250701000000_more.sql"), "nothing of the failed attempts was kept: \(fixed.stderr)")
        // An applied file that changes is an error naming it; the database is left as it was.
        try "create table public.kept (id int primary key, more text);\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let changed = try ProcessRunner.run(SoarBinary.path, ["migrate", "--migrations", folder] + database)
        #expect(changed.status == 2 && changed.stderr.contains("20250701000000_more.sql was applied and has changed since"), "\(changed.stderr)")
    }

    @Test(.ownThread) func generatedSwiftTypesCompileAndMatchOnBothStores() throws {
        let dir = TemporaryDirectory("soar-app-schema")
        let folder = try migrations(dir)
        let sqlite = try ProcessRunner.run(SoarBinary.path, ["gen", "types", "swift", "--db", dir.path + "/soar.db", "--migrations", folder])
        #expect(sqlite.status == 0, "\(sqlite.stderr)")
        let url = try PostgresCluster.shared.get().createDatabase()
        let postgres = try ProcessRunner.run(SoarBinary.path, ["gen", "types", "swift", "--database-url", url, "--migrations", folder])
        if postgres.stdout != sqlite.stdout {
            try sqlite.stdout.write(toFile: dir.path + "/sqlite.swift", atomically: true, encoding: .utf8)
            try postgres.stdout.write(toFile: dir.path + "/postgres.swift", atomically: true, encoding: .utf8)
            let diff = try ProcessRunner.run("diff", [dir.path + "/sqlite.swift", dir.path + "/postgres.swift"])
            Issue.record("the same types from either store: \(diff.stdout)\(postgres.stderr)")
        }
        let source = sqlite.stdout
        #expect(source.contains("public struct Note: Codable, Hashable, Identifiable, Sendable {"))
        #expect(source.contains("public var kind: NoteKind") && source.contains("case authorId = \"author_id\""))
        #expect(source.contains("public struct NotificationRow:"), "no clash with Foundation's Notification")
        #expect(source.contains("public struct TeamNoteCount:") && source.contains("public var notes: Int?"))
        #expect(!source.contains("TeamNoteCountRow"))
        let file = dir.path + "/Types.swift"
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let usage = dir.path + "/Use.swift"
        try """
            import Foundation
            func use() throws {
                let note = try JSONDecoder().decode(Database.Note.self, from: Data(#"{"id":1,"team_id":"6e1e5a8f-1a4b-4c66-9d2b-2f1f0e7d9a10","author_id":"6e1e5a8f-1a4b-4c66-9d2b-2f1f0e7d9a11","kind":"idea","body":"x","pinned":false,"created_at":0}"#.utf8))
                _ = note.kind == .idea && note.id == 1
            }
            """.write(toFile: usage, atomically: true, encoding: .utf8)
        let modules = URL(fileURLWithPath: SoarBinary.path).deletingLastPathComponent().appendingPathComponent("Modules").path
        let compiled = try ProcessRunner.run("swiftc", ["-typecheck", "-I", modules, file, usage], timeout: 120)
        #expect(compiled.status == 0, "\(compiled.stderr)")
    }

    @Test(.ownThread) func migrationNewMakesTheNextFile() throws {
        let dir = TemporaryDirectory("soar-app-schema")
        let folder = try migrations(dir)
        let made = try ProcessRunner.run(SoarBinary.path, ["migration", "new", "add_tags", "--migrations", folder])
        #expect(made.status == 0, "\(made.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(files.count == 9 && files[8].hasSuffix("_add_tags.sql") && files[8] > files[7], "\(files)")
        #expect(try ProcessRunner.run(SoarBinary.path, ["migration", "new", "Bad Name", "--migrations", folder]).status == 2)
        let again = try ProcessRunner.run(SoarBinary.path, ["init", "--migrations", folder])
        #expect(again.status == 2 && again.stderr.contains("already holds 9 migration"), "\(again.stderr)")
    }
}
