import Foundation
import SoarTesting
import Testing

/// The console as an administrator meets it: `soar admin add` beside a running server, then
/// headless Chromium (Debian's) driven by Selenium (PyPI's): the administrator signs in, a second
/// tab is the user's iPhone (signs in, allows notifications, registers its token), the console
/// lists the device, composes a push with a deep link and sees it delivered, the device tab shows
/// the banner and a tap its route, and the console sees the open. Screenshots of each step are
/// kept in `.build/console-screenshots`.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ConsoleBrowserTests {
    static let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers").standardized.path
    static let shots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/console-screenshots").standardized.path

    @Test(.ownThread) func anAdministratorSendsAPushAndSeesItDeliveredAndOpened() throws {
        let dir = TemporaryDirectory("soar-console")
        let database = try TestDatabase(directory: dir.path)
        let server = try BackgroundProcess(
            SoarBinary.path, ["serve", "--port", "0", "--console-port", "0", "--with-emulator", "--emulator-port", "0", "--emulator-dir", dir.path + "/emu"]
                + database.arguments,
            environment: database.environment)
        defer { server.stop() }
        var lines: [String] = []
        while let line = server.readLine(timeout: 30) {
            lines.append(line)
            if line.hasPrefix("console: ") { break }
        }
        let url = try #require(lines.first?.replacingOccurrences(of: "API URL: ", with: ""), "\(server.standardError)")
        let anon = try #require(lines.first { $0.hasPrefix("anon key: ") }?.replacingOccurrences(of: "anon key: ", with: ""))
        let consoleLine = try #require(lines.last, "\(lines)")
        #expect(consoleLine.contains("no administrator yet: ") && consoleLine.contains("soar admin add EMAIL --password-stdin"), "\(consoleLine)")
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

        // The app's user, signed up as the app does; the device tab signs in as them.
        let signedUp = try ProcessRunner.run("curl", [
            "-s", "-X", "POST", url + "/auth/v1/signup", "-H", "apikey: \(anon)", "-H", "content-type: application/json",
            "-d", #"{"email":"device@example.com","password":"correct-horse-1"}"#,
        ])
        #expect(signedUp.stdout.contains("access_token"), "\(signedUp.stdout)")

        try FileManager.default.createDirectory(atPath: Self.shots, withIntermediateDirectories: true)
        let browser = try ProcessRunner.run(
            "python3", [Self.peers + "/console_browser.py", console, "ops@example.com", "console-password-1", "device@example.com", "correct-horse-1", Self.shots],
            timeout: 150)
        #expect(browser.status == 0 && browser.stdout.contains("ok"), "\(browser.stdout)\n\(browser.stderr)")

        let removed = try ProcessRunner.run(SoarBinary.path, ["admin", "remove", "ops@example.com"] + database.arguments, environment: database.environment)
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(server.stop() == 0)
    }
}
