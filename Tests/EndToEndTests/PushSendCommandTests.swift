import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// `soar push send` as a user runs it, against the emulator.
@Suite(.timeLimit(.minutes(5))) struct PushSendCommandTests {
    func environment(_ fixture: EmulatorFixture) -> [String: String] {
        [
            "APNS_URL": fixture.url, "APNS_CA_FILE": fixture.caFile, "APNS_TEAM_ID": fixture.teamID, "APNS_KEY_ID": fixture.keyID,
            "APNS_PRIVATE_KEY": (try? String(contentsOfFile: fixture.keyFile, encoding: .utf8)) ?? "", "APNS_BUNDLE_ID": EmulatorFixture.topic,
        ]
    }

    func soar(_ arguments: [String], environment: [String: String], input: Data? = nil, timeout: TimeInterval = 60) throws -> ProcessResult {
        let pairs = environment.map { "\($0.key)=\($0.value)" }
        return try ProcessRunner.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin"] + pairs + [SoarBinary.path] + arguments, input: input, timeout: timeout)
    }

    @Test(.ownThread) func sendsToEveryTokenAndReportsEachLine() throws {
        let fixture = try EmulatorFixture { $0.unregistered = ["dead"] }
        let result = try soar(["push", "send", "--token", "00aa,dead", "--title", "Hello", "--body", "World", "--deeplink", "soar:///notifications"], environment: environment(fixture))
        #expect(result.status == 1, "one token failed: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").sorted()
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("delivered 00aa apns-id="))
        #expect(lines[1].hasPrefix("failed dead 410 Unregistered") && lines[1].hasSuffix("[invalid token: remove it]"))
        let delivery = try #require(fixture.emulator.state.deliveries.first)
        let payload = try JSONSerialization.jsonObject(with: delivery.payload.jsonData) as? [String: Any]
        #expect(payload?["deeplink"] as? String == "soar:///notifications")
    }

    @Test(.ownThread) func jsonLinesFromATokensFileAndAPayloadFile() throws {
        let fixture = try EmulatorFixture()
        let dir = TemporaryDirectory()
        let tokens = try dir.write("tokens.txt", "\u{FEFF}# staging devices\n00aa\n\n00bb\n00AA\n")
        let payload = try dir.write("p.apns", #"{"Simulator Target Bundle":"x","aps":{"content-available":1},"kind":"sync"}"#)
        let result = try soar(["push", "send", "--tokens-file", tokens, "--payload", payload, "--push-type", "background", "--json"], environment: environment(fixture))
        #expect(result.status == 0, "\(result.stderr)")
        let objects = result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.compactMap { $0["token"] as? String }.sorted() == ["00aa", "00bb"], "a byte-order mark skipped, a duplicate sent once")
        #expect(result.stderr.contains("1 duplicate token(s) skipped"))
        #expect(objects.allSatisfy { $0["status"] as? Int == 200 })
        let headers = fixture.emulator.state.deliveries.first?.headers ?? []
        #expect(headers.contains { $0 == ("apns-priority", "5") } && headers.contains { $0 == ("apns-push-type", "background") })
    }

    @Test(.ownThread) func flagsWinOverVariables() throws {
        let fixture = try EmulatorFixture()
        var environment = environment(fixture)
        environment["APNS_URL"] = "https://127.0.0.1:1"
        let result = try soar(["push", "send", "--apns-url", fixture.url, "--token", "00aa", "--title", "t", "--body", "b"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test(.ownThread) func benchAPNsTimesTheLibraryAfterAWarmUp() throws {
        let fixture = try EmulatorFixture { $0.deliveryLog = nil }
        let tokens = (0..<60).map { String(format: "%064x", $0) }.joined(separator: ",")
        let result = try soar(["bench", "apns", "--token", tokens, "--title", "a", "--body", "b", "--warmup", "10", "--json"], environment: environment(fixture))
        #expect(result.status == 0, "\(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(object?["sent"] as? Int == 50 && object?["failed"] as? Int == 0 && (object?["per_second"] as? Int ?? 0) > 0)
        #expect(fixture.emulator.state.counters.accepted == 60)
        let tooFew = try soar(["bench", "apns", "--token", "00aa", "--title", "a", "--body", "b"], environment: environment(fixture))
        #expect(tooFew.status == 2 && tooFew.stderr.contains("more tokens than --warmup"))
    }

    @Test(.ownThread) func anUnreachableServerWithSeveralTokensEndsAtOnceWithThree() throws {
        // Used to hang: the second token was queued from the loop's own thread with nothing to wake it.
        let fixture = try EmulatorFixture()
        let result = try soar(
            ["push", "send", "--apns-url", "https://127.0.0.1:1", "--retries", "0", "--connections", "1", "--streams", "1", "--token", "00aa,00bb", "--title", "a", "--body", "b"],
            environment: environment(fixture), timeout: 20)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == 2)
    }

    @Test(.ownThread) func aCertificateThatDoesNotVerifyFailsFastAsConfigurationNotRetried() throws {
        let fixture = try EmulatorFixture()
        let other = try EmulatorFixture()
        let result = try soar(["push", "send", "--ca-file", other.caFile, "--token", "00aa,00bb", "--title", "a", "--body", "b", "--json"], environment: environment(fixture), timeout: 20)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("certificate verification failed"))
        let lines = result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.count == 2 && lines.allSatisfy { $0["class"] as? String == "permanent" && $0["attempts"] as? Int == 1 })
    }

    @Test(.ownThread) func credentialsAPNsRefusesAreAConfigurationErrorWithAHint() throws {
        let fixture = try EmulatorFixture()
        var environment = environment(fixture)
        environment["APNS_KEY_ID"] = "WRONGKEY01"
        let result = try soar(["push", "send", "--token", "00aa,00bb", "--title", "a", "--body", "b"], environment: environment, timeout: 20)
        #expect(result.status == 2 && result.stderr.contains("APNs refused the credentials (InvalidProviderToken)"), "\(result.stderr)")
        #expect(!result.stderr.contains("--help"))
    }

    @Test(.ownThread) func anEncryptedKeyIsRefusedWithAReasonNeverAPrompt() throws {
        let fixture = try EmulatorFixture()
        let dir = TemporaryDirectory()
        let encrypted = dir.path + "/encrypted.p8"
        let made = try ProcessRunner.run("openssl", ["pkcs8", "-topk8", "-in", fixture.keyFile, "-out", encrypted, "-v2", "aes-256-cbc", "-passout", "pass:secret"])
        #expect(made.status == 0, "\(made.stderr)")
        var environment = environment(fixture)
        environment["APNS_PRIVATE_KEY"] = nil
        environment["APNS_PRIVATE_KEY_FILE"] = encrypted
        let result = try soar(["push", "send", "--token", "00aa", "--title", "a", "--body", "b"], environment: environment, timeout: 20)
        #expect(result.status == 2 && result.stderr.contains("encrypted"), "\(result.stderr)")
        #expect(!result.stderr.contains("secret"))
    }

    @Test(.ownThread) func configurationAndUsageErrorsExitTwoAndUnreachableThree() throws {
        let missing = try soar(["push", "send", "--token", "00", "--title", "t", "--body", "b"], environment: [:])
        #expect(missing.status == 2 && missing.stderr.contains("APNs is not configured: set APNS_TEAM_ID, APNS_KEY_ID"))
        let fixture = try EmulatorFixture()
        let noToken = try soar(["push", "send", "--title", "t", "--body", "b"], environment: environment(fixture))
        #expect(noToken.status == 2 && noToken.stderr.contains("no device token"))
        let badPriority = try soar(["push", "send", "--token", "00", "--title", "t", "--body", "b", "--priority", "7"], environment: environment(fixture))
        #expect(badPriority.status == 2 && badPriority.stderr.contains("--priority must be 10, 5 or 1"))
        var environment = environment(fixture)
        environment["APNS_URL"] = "https://127.0.0.1:1"
        let down = try soar(["push", "send", "--token", "00", "--title", "t", "--body", "b", "--retries", "0"], environment: environment)
        #expect(down.status == 3 && down.stderr.contains("could not reach"))
        let tooBig = try soar(["push", "send", "--token", "00", "--title", "t", "--body", String(repeating: "x", count: 5000)], environment: self.environment(fixture))
        #expect(tooBig.status == 2 && tooBig.stderr.contains("over the 4096-byte limit") && tooBig.stdout.isEmpty, "checked once, before any token")
        #expect(fixture.emulator.state.counters.requests == 0, "nothing went on the wire")
    }
}
