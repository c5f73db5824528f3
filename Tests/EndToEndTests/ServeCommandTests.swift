import Foundation
import SoarTesting
import Testing

/// `soar serve` and `soar migrate` as a user runs them, driven by the PyPI supabase client.
@Suite struct ServeCommandTests {
    /// Starts `soar serve` on a free port; returns the process, URL and anon key from its banner.
    func serve(_ dir: TemporaryDirectory, _ extra: [String] = [], environment: [String: String] = [:]) throws -> (BackgroundProcess, String, String) {
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/soar.db"] + extra, environment: environment)
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine())
        let database = try #require(server.readLine())
        #expect(url.hasPrefix("http://127.0.0.1:"))
        #expect(service.hasPrefix("service_role key: ey"))
        #expect(database == "database: sqlite \(dir.path)/soar.db")
        return (server, url, anon)
    }

    @Test func theSupabasePythonClientWorksUnchanged() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let (server, url, anon) = try serve(dir)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/supabase_e2e.py").standardized.path
        let run = try ProcessRunner.run("python3", [script, url, anon], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0, "SIGTERM stops it cleanly")
        #expect(server.standardError.contains("stopped"))
    }

    @Test func theSecretIsKeptAndKeysSurviveARestart() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let (first, _, anon) = try serve(dir)
        #expect(first.stop() == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.path + "/soar.db.jwt-secret")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let (second, _, again) = try serve(dir)
        #expect(again.split(separator: ".")[2] != "" && anon.split(separator: ".")[0] == again.split(separator: ".")[0])
        #expect(second.stop() == 0)
    }

    @Test func configurationErrorsExit2WithTheReason() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let short = try ProcessRunner.run("/usr/bin/env", ["JWT_SECRET=short", SoarBinary.path, "serve", "--port", "0", "--db", dir.path + "/a.db"])
        #expect(short.status == 2 && short.stderr.contains("JWT_SECRET must be at least 32 characters"), "\(short.stderr)")
        let badKey = try ProcessRunner.run("/usr/bin/env", ["ANON_KEY=nonsense", SoarBinary.path, "serve", "--port", "0", "--db", dir.path + "/a.db"])
        #expect(badKey.status == 2 && badKey.stderr.contains("ANON_KEY"))
        let unwritable = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--db", "/nonexistent-dir/x.db"])
        #expect(unwritable.status == 2 && unwritable.stderr.contains("cannot open the database"))
        let port = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "70000"])
        #expect(port.status == 2)
    }

    @Test func migrateAppliesOnceAndReportsIt() throws {
        let dir = TemporaryDirectory("soar-migrate-e2e")
        let first = try ProcessRunner.run(SoarBinary.path, ["migrate", "--db", dir.path + "/m.db"])
        #expect(first.status == 0 && first.stdout.contains("applied 0001_auth.sql, 0002_app.sql, 0003_push.sql"), "\(first.stderr)")
        let second = try ProcessRunner.run(SoarBinary.path, ["migrate", "--db", dir.path + "/m.db"])
        #expect(second.status == 0 && second.stdout.contains("up to date"))
    }
}
