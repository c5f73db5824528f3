import Foundation
import SoarTesting
import Testing

/// What a first-time reader ran into: each mistake gets its exit code and a reason to act on.
@Suite(.timeLimit(.minutes(5))) struct MessagesTests {
    static let soar = SoarBinary.path

    func soar(_ arguments: [String], environment: [String] = []) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/env", environment + [Self.soar] + arguments)
    }

    @Test(.ownThread) func pushSendRefusesBadInputBeforeSendingWithExit2AndTheReason() throws {
        let dir = TemporaryDirectory("soar-messages")
        _ = try soar(["keys", "generate", "--out", dir.path])
        let key = try #require(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasSuffix(".p8") && $0.hasPrefix("AuthKey") })
        let base = ["push", "send", "--title", "a", "--body", "b", "--team-id", "T", "--key-id", "K"]
        let noBundle = try soar(base + ["--token", "00aa", "--key-file", dir.path + "/" + key])
        #expect(noBundle.status == 2 && noBundle.stderr.contains("no topic: give --bundle-id"), "\(noBundle.stderr)")
        let notHex = try soar(base + ["--token", "zz", "--key-file", dir.path + "/" + key, "--bundle-id", "com.x"])
        #expect(notHex.status == 2 && notHex.stderr.contains("not hex"), "\(notHex.stderr)")
        let missing = try soar(base + ["--token", "00aa", "--key-file", dir.path + "/none.p8", "--bundle-id", "com.x"])
        #expect(missing.status == 2 && missing.stderr.contains("none.p8: no such file"), "\(missing.stderr)")
        let directory = try soar(base + ["--token", "00aa", "--key-file", dir.path, "--bundle-id", "com.x"])
        #expect(directory.stderr.contains("a directory, not a file"), "\(directory.stderr)")
        try "not a key".write(toFile: dir.path + "/junk.p8", atomically: true, encoding: .utf8)
        let junk = try soar(base + ["--token", "00aa", "--key-file", dir.path + "/junk.p8", "--bundle-id", "com.x"])
        #expect(junk.status == 2 && !junk.stderr.contains("error:") && junk.stderr.contains("not a PEM private key"), "OpenSSL's words, not its codes: \(junk.stderr)")
        let certificate = try soar(["push", "send", "--title", "a", "--body", "b", "--token", "00aa", "--cert", dir.path + "/none.pem", "--bundle-id", "com.x"])
        #expect(certificate.status == 2 && certificate.stderr.contains("none.pem: no such file"), "\(certificate.stderr)")
    }

    @Test(.ownThread) func serveAndDemoSayWhatIsWrongAndAFailedStartLeavesNothingBehind() throws {
        let dir = TemporaryDirectory("soar-messages")
        let mysql = try soar(["serve", "--port", "0", "--database-url", "mysql://x"])
        #expect(mysql.status == 2 && mysql.stderr.contains("must be PostgreSQL's") && !mysql.stderr.contains("connect_timeout"), "\(mysql.stderr)")
        let scheme = try soar(["demo", "--url", "127.0.0.1:54400"])
        #expect(scheme.status == 2 && scheme.stderr.contains("--url must start with http://"), "\(scheme.stderr)")
        let badKey = try soar(["serve", "--port", "0", "--db", dir.path + "/a.db"], environment: ["ANON_KEY=abc"])
        #expect(badKey.status == 2 && badKey.stderr.contains("ANON_KEY is not a JWT at all"), "\(badKey.stderr)")
        // A port already taken: the start fails, and neither database nor secret is left.
        let taken = try BackgroundProcess(Self.soar, ["serve", "--port", "0", "--db", dir.path + "/first.db", "--storage-dir", dir.path + "/first-storage"])
        let url = try #require(taken.readLine()?.replacingOccurrences(of: "API URL: ", with: ""))
        let port = String(url.split(separator: ":").last ?? "")
        let second = try soar(["serve", "--port", port, "--db", dir.path + "/second.db"])
        #expect(second.status == 2 && second.stderr.contains("is the port in use?"), "\(second.stderr)")
        #expect(taken.stop() == 0)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix("first") }
        #expect(left.isEmpty, "\(left)")
        // On Postgres the secret soar serve keeps is ./soar.jwt-secret, and demo looks there.
        let postgres = try ProcessRunner.run("/bin/sh", ["-c", "cd '\(dir.path)' && '\(Self.soar)' demo --database-url postgres://x@127.0.0.1:1/x"])
        #expect(postgres.status == 2 && postgres.stderr.contains("\(dir.path)/soar.jwt-secret does not exist"), "\(postgres.stderr)")
    }

    @Test(.ownThread) func demoFailsWhenItCannotSeeTheDeliveryAndFindsItWithTheControlURL() throws {
        let dir = TemporaryDirectory("soar-messages")
        let server = try BackgroundProcess(
            Self.soar, ["serve", "--port", "0", "--db", dir.path + "/soar.db", "--with-emulator", "--emulator-port", "0", "--emulator-dir", dir.path + "/emulator"])
        var lines: [String] = []
        while let line = server.readLine(), !line.hasPrefix("schema:") { lines.append(line) }
        let url = try #require(lines.first?.replacingOccurrences(of: "API URL: ", with: ""))
        let control = try #require(lines.first { $0.hasPrefix("APNs emulator:") }?.components(separatedBy: "control ").last)
        // Without --control, demo looks at the default control URL, where no emulator answers (or
        // another one does, should a `soar serve --with-emulator` run on this machine): either way
        // it cannot see the delivery, and says where to look.
        let blind = try soar(["demo", "--url", url, "--db", dir.path + "/soar.db"])
        let hinted = blind.stderr.contains("pass --control") || blind.stderr.contains("is it the one soar serve sends to?")
        #expect(blind.status == 1 && hinted, "\(blind.stdout)\n\(blind.stderr)")
        let seen = try soar(["demo", "--url", url, "--db", dir.path + "/soar.db", "--control", control])
        #expect(seen.status == 0 && seen.stdout.contains("4. the APNs emulator recorded"), "\(seen.stdout)\n\(seen.stderr)")
        #expect(server.stop() == 0)
    }

    @Test(.ownThread) func theSampleNotificationFileAndAnEmptyOneReadRight() throws {
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/examples/hello.apns").standardized.path
        let valid = try soar(["payload", "validate", sample])
        #expect(valid.status == 0 && valid.stdout.contains("route: notifications"), "\(valid.stdout)\(valid.stderr)")
        let dir = TemporaryDirectory("soar-messages")
        try #"{"aps":{}}"#.write(toFile: dir.path + "/empty.apns", atomically: true, encoding: .utf8)
        let empty = try soar(["simulate", dir.path + "/empty.apns"])
        #expect(empty.stdout.contains("nothing is shown and the app is not woken") && !empty.stdout.contains("background notification"), "\(empty.stdout)")
    }
}
