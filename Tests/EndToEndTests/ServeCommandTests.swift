import Foundation
import SoarCrypto
import SoarTesting
import Testing

/// `soar serve` and `soar migrate` as a user runs them, driven by the PyPI supabase client.
@Suite(.timeLimit(.minutes(5))) struct ServeCommandTests {
    /// Starts `soar serve` on a free port; returns the process, URL and anon key from its banner.
    func serve(_ dir: TemporaryDirectory, _ extra: [String] = [], environment: [String: String] = [:]) throws -> (BackgroundProcess, String, String) {
        let store = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0"] + store.arguments + extra, environment: store.environment.merging(environment) { $1 })
        let url = try #require(server.readLine()?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(server.readLine()?.replacingOccurrences(of: "anon key: ", with: ""))
        let service = try #require(server.readLine())
        let database = try #require(server.readLine())
        #expect(url.hasPrefix(extra.contains("--tls-cert") ? "https://127.0.0.1:" : "http://127.0.0.1:"))
        #expect(service.hasPrefix("service_role key: ey"))
        #expect(database == store.banner)
        return (server, url, anon)
    }

    @Test(.ownThread) func theSupabasePythonClientWorksUnchanged() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let (server, url, anon) = try serve(dir, ["--with-emulator", "--emulator-port", "0", "--emulator-dir", dir.path + "/emulator"])
        let push = try #require(server.readLine())
        let emulator = try #require(server.readLine())
        #expect(push.hasPrefix("push: APNs sandbox https://127.0.0.1:"), "\(push)")
        let control = try #require(emulator.components(separatedBy: "control ").last)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/supabase_e2e.py").standardized.path
        let run = try ProcessRunner.run("python3", [script, url, anon, control], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0, "SIGTERM stops it cleanly")
        #expect(server.standardError.contains("stopped"))
    }

    @Test(.ownThread) func servesHTTPSToCurlAndTheSupabasePythonClient() throws {
        let dir = TemporaryDirectory("soar-serve-tls")
        let ca = try CertificateAuthority.generate(commonName: "Soar test CA")
        let (certificate, key) = try ca.issueServer(dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"])
        try ca.certificatePEM.write(toFile: dir.path + "/ca.pem", atomically: true, encoding: .utf8)
        try certificate.write(toFile: dir.path + "/cert.pem", atomically: true, encoding: .utf8)
        try key.privatePEM().write(toFile: dir.path + "/key.pem", atomically: true, encoding: .utf8)
        let (server, url, anon) = try serve(dir, ["--tls-cert", dir.path + "/cert.pem", "--tls-key", dir.path + "/key.pem"])
        let trusted = try ProcessRunner.run("curl", ["-s", "--cacert", dir.path + "/ca.pem", "-o", "/dev/null", "-w", "%{http_code}", url + "/health"])
        #expect(trusted.stdout == "200", "\(trusted.stdout) \(trusted.stderr)")
        let untrusted = try ProcessRunner.run("curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", url + "/health"])
        #expect(untrusted.status != 0, "a client that does not trust the CA refuses the server")
        // Plain HTTP to the TLS port gets no answer a client could mistake for one.
        let plain = try ProcessRunner.run("curl", ["-s", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}", url.replacingOccurrences(of: "https:", with: "http:") + "/health"])
        #expect(plain.stdout != "200")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/supabase_e2e.py").standardized.path
        let run = try ProcessRunner.run("/usr/bin/env", ["SSL_CERT_FILE=" + dir.path + "/ca.pem", "python3", script, url, anon], timeout: 120)
        #expect(run.status == 0 && run.stdout.contains("ok"), "\(run.stdout)\n\(run.stderr)")
        #expect(server.stop() == 0)

        let missing = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/b.db", "--tls-cert", dir.path + "/none.pem", "--tls-key", dir.path + "/key.pem"])
        #expect(missing.status == 2 && missing.stderr.contains("cannot read the TLS certificate") && missing.stderr.contains("no such file"), "\(missing.stderr)")
        let swapped = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/b.db", "--tls-cert", dir.path + "/key.pem", "--tls-key", dir.path + "/cert.pem"])
        #expect(swapped.status == 2 && swapped.stderr.contains("is not PEM"), "\(swapped.stderr)")
        let alone = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--db", dir.path + "/b.db", "--tls-cert", dir.path + "/cert.pem"])
        #expect(alone.status == 2 && alone.stderr.contains("--tls-cert and --tls-key go together"), "\(alone.stderr)")
    }

    @Test(.ownThread) func theSecretIsKeptAndKeysSurviveARestart() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let (first, _, anon) = try serve(dir)
        #expect(first.stop() == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: dir.path + "/soar.db.jwt-secret")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let (second, _, again) = try serve(dir)
        #expect(again == anon, "one secret, the same keys")
        #expect(second.stop() == 0)
    }

    @Test(.ownThread) func configurationErrorsExit2WithTheReason() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let short = try ProcessRunner.run("/usr/bin/env", ["JWT_SECRET=short", SoarBinary.path, "serve", "--port", "0", "--db", dir.path + "/a.db"])
        #expect(short.status == 2 && short.stderr.contains("JWT_SECRET must be at least 32 characters"), "\(short.stderr)")
        let badKey = try ProcessRunner.run("/usr/bin/env", ["ANON_KEY=nonsense", SoarBinary.path, "serve", "--port", "0", "--db", dir.path + "/a.db"])
        #expect(badKey.status == 2 && badKey.stderr.contains("ANON_KEY"))
        let unwritable = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--db", "/nonexistent-dir/x.db"])
        #expect(unwritable.status == 2 && unwritable.stderr.contains("cannot open the database"))
        let port = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "70000"])
        #expect(port.status == 2)
        // Which database: never a guess. Both flags, or an empty one, are usage errors; --db wins over DATABASE_URL.
        let both = try ProcessRunner.run(SoarBinary.path, ["migrate", "--db", dir.path + "/b.db", "--database-url", "postgres://x@127.0.0.1:1/x"])
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let empty = try ProcessRunner.run(SoarBinary.path, ["serve", "--port", "0", "--database-url", ""])
        #expect(empty.status == 2 && empty.stderr.contains("--database-url is empty"), "\(empty.stderr)")
        let flagWins = try ProcessRunner.run("/usr/bin/env", ["DATABASE_URL=postgres://x@127.0.0.1:1/x", SoarBinary.path, "migrate", "--db", dir.path + "/c.db"])
        #expect(flagWins.status == 0 && FileManager.default.fileExists(atPath: dir.path + "/c.db"), "\(flagWins.stderr)")
    }

    @Test(.ownThread) func theDemoDeliversAFirstPushThroughTheEmulator() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let (server, url, _) = try serve(dir, ["--with-emulator", "--emulator-port", "0", "--emulator-dir", dir.path + "/emulator"])
        _ = server.readLine()
        let control = try #require(server.readLine()?.components(separatedBy: "control ").last)
        let demo = try ProcessRunner.run(SoarBinary.path, ["demo", "--url", url, "--db", dir.path + "/soar.db", "--control", control])
        #expect(demo.status == 0, "\(demo.stdout)\n\(demo.stderr)")
        #expect(demo.stdout.contains("3. send-test-push: delivered via sandbox"), "\(demo.stdout)")
        #expect(demo.stdout.contains("4. the APNs emulator recorded: {") && demo.stdout.contains(#""deeplink":"soar:///notifications""#))
        #expect(demo.stdout.contains("5. a tap opens: notifications"))
        #expect(server.stop() == 0)
    }

    @Test(.ownThread) func theDemoSaysWhatIsMissing() throws {
        let dir = TemporaryDirectory("soar-serve-e2e")
        let nobody = try ProcessRunner.run(SoarBinary.path, ["demo", "--url", "http://127.0.0.1:1", "--db", dir.path + "/soar.db"])
        #expect(nobody.status == 2 && nobody.stderr.contains("no anon key"), "\(nobody.stderr)")
        let (server, url, _) = try serve(dir)
        let unconfigured = try ProcessRunner.run("/usr/bin/env", ["-u", "APNS_TEAM_ID", SoarBinary.path, "demo", "--url", url, "--db", dir.path + "/soar.db"])
        #expect(unconfigured.status == 2 && unconfigured.stderr.contains("APNS_TEAM_ID"), "\(unconfigured.stderr)")
        #expect(server.stop() == 0)
        let stopped = try ProcessRunner.run(SoarBinary.path, ["demo", "--url", url, "--db", dir.path + "/soar.db"])
        #expect(stopped.status == 3 && stopped.stderr.contains("no soar serve answers"), "\(stopped.stderr)")
    }

    @Test(.ownThread) func migrateAppliesOnceAndReportsIt() throws {
        let dir = TemporaryDirectory("soar-migrate-e2e")
        let first = try ProcessRunner.run(SoarBinary.path, ["migrate", "--db", dir.path + "/m.db"])
        #expect(first.status == 0 && first.stdout.contains("applied 0001_auth.sql, 0002_app.sql, 0003_push.sql"), "\(first.stderr)")
        let second = try ProcessRunner.run(SoarBinary.path, ["migrate", "--db", dir.path + "/m.db"])
        #expect(second.status == 0 && second.stdout.contains("up to date"))
    }
}
