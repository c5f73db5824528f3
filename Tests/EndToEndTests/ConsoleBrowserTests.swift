import Foundation
import SoarTesting
import Testing

/// The console as an administrator meets it: `soar admin add` beside a running server, then
/// headless Chromium (Debian's) driven by Selenium (PyPI's) signs in, finds the device, composes a
/// push with a deep link, sees it delivered and, once the app reports it, opened. Screenshots of
/// each step are kept in the test's output directory (`.build/console-screenshots`).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ConsoleBrowserTests {
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers").standardized.path
    static let shots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/console-screenshots").standardized.path

    @Test(.ownThread) func anAdministratorSendsAPushAndSeesItDeliveredAndOpened() throws {
        let dir = TemporaryDirectory("soar-console")
        let emulator = try EmulatorProcess(directory: dir.path + "/emu", ["--keep", "1000"])
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0", "--console-port", "0"] + database.arguments,
            environment: emulator.apnsEnvironment.merging(database.environment) { $1 })
        defer { server.stop() }
        var lines: [String] = []
        while let line = server.readLine(timeout: 30) {
            lines.append(line)
            if line.hasPrefix("console: ") { break }
        }
        let url = try #require(lines.first?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(lines.first { $0.hasPrefix("anon key: ") }?.replacingOccurrences(of: "anon key: ", with: ""))
        let consoleLine = try #require(lines.last, "\(lines)")
        #expect(consoleLine.contains("no administrator yet: soar admin add"), "\(consoleLine)")
        let console = String(consoleLine.dropFirst("console: ".count).split(separator: " ")[0])

        // An administrator, added while the server runs; the CLI says what it did and refuses a second.
        let added = try ProcessRunner.run(
            SoarBinary.path, ["admin", "add", "ops@example.com", "--password-stdin"] + database.arguments,
            input: Data("console-password-1\n".utf8), environment: database.environment)
        #expect(added.status == 0 && added.stdout.contains("added administrator ops@example.com"), "\(added.stdout)\(added.stderr)")
        let again = try ProcessRunner.run(
            SoarBinary.path, ["admin", "add", "ops@example.com", "--password-stdin"] + database.arguments,
            input: Data("console-password-1\n".utf8), environment: database.environment)
        #expect(again.status == 2 && again.stderr.contains("already"), "\(again.stderr)")
        let listed = try ProcessRunner.run(SoarBinary.path, ["admin", "list"] + database.arguments, environment: database.environment)
        #expect(listed.stdout.contains("ops@example.com"), "\(listed.stdout)\(listed.stderr)")

        // The app: a user whose device registered, as the seed's registrar does.
        let token = String(repeating: "c0", count: 32)
        let app = try ProcessRunner.run("python3", ["-c", Self.app, url, anon, token, "register"])
        #expect(app.status == 0, "\(app.stdout)\(app.stderr)")
        let session = app.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        try FileManager.default.createDirectory(atPath: Self.shots, withIntermediateDirectories: true)
        let browser = try ProcessRunner.run(
            "python3", [Self.peers + "/console_browser.py", console, "ops@example.com", "console-password-1", token, Self.shots,
                        "python3", "-c", Self.app, url, anon, session, "open"], timeout: 150)
        #expect(browser.status == 0 && browser.stdout.contains("ok"), "\(browser.stdout)\n\(browser.stderr)")

        let removed = try ProcessRunner.run(SoarBinary.path, ["admin", "remove", "ops@example.com"] + database.arguments, environment: database.environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(server.stop() == 0)
        #expect(emulator.stop() == 0)
    }

    /// The app's side, through the supabase client: `register` signs a user up and upserts the
    /// device token (printing the session's access token); `open` reports the newest inbox row opened.
    static let app = """
        import sys, uuid
        from datetime import datetime, timezone
        from supabase import create_client
        url, anon, value, action = sys.argv[1:5]
        client = create_client(url, anon)
        if action == "register":
            signed = client.auth.sign_up({"email": f"device-{uuid.uuid4().hex[:8]}@example.com", "password": "correct-horse-1"})
            client.table("device_tokens").upsert({"user_id": signed.user.id, "token": value, "platform": "ios"}, on_conflict="user_id,token").execute()
            print(signed.session.access_token)
        else:
            client.postgrest.auth(value)
            newest = client.table("notifications").select("id").order("created_at", desc=True).limit(1).execute().data[0]
            client.table("notifications").update({"opened_at": datetime.now(timezone.utc).isoformat()}).eq("id", newest["id"]).execute()
        """
}
