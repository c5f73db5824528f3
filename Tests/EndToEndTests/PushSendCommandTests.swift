import Foundation
import SoarTesting
import Testing

/// `soar push send` as a user runs it, against the emulator.
@Suite struct PushSendCommandTests {
    func environment(_ fixture: EmulatorFixture) -> [String: String] {
        [
            "APNS_URL": fixture.url, "APNS_CA_FILE": fixture.caFile, "APNS_TEAM_ID": fixture.teamID, "APNS_KEY_ID": fixture.keyID,
            "APNS_PRIVATE_KEY": (try? String(contentsOfFile: fixture.keyFile, encoding: .utf8)) ?? "", "APNS_BUNDLE_ID": EmulatorFixture.topic,
        ]
    }

    func soar(_ arguments: [String], environment: [String: String], input: Data? = nil) throws -> ProcessResult {
        let pairs = environment.map { "\($0.key)=\($0.value)" }
        return try ProcessRunner.run("/usr/bin/env", ["-i", "PATH=/usr/bin:/bin"] + pairs + [SoarBinary.path] + arguments, input: input)
    }

    @Test func sendsToEveryTokenAndReportsEachLine() throws {
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

    @Test func jsonLinesFromATokensFileAndAPayloadFile() throws {
        let fixture = try EmulatorFixture()
        let dir = TemporaryDirectory()
        let tokens = try dir.write("tokens.txt", "# staging devices\n00aa\n\n00bb\n")
        let payload = try dir.write("p.apns", #"{"Simulator Target Bundle":"x","aps":{"content-available":1},"kind":"sync"}"#)
        let result = try soar(["push", "send", "--tokens-file", tokens, "--payload", payload, "--push-type", "background", "--json"], environment: environment(fixture))
        #expect(result.status == 0, "\(result.stderr)")
        let objects = result.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(Set(objects.compactMap { $0["token"] as? String }) == ["00aa", "00bb"])
        #expect(objects.allSatisfy { $0["status"] as? Int == 200 })
        let headers = fixture.emulator.state.deliveries.first?.headers ?? []
        #expect(headers.contains { $0 == ("apns-priority", "5") } && headers.contains { $0 == ("apns-push-type", "background") })
    }

    @Test func flagsWinOverVariables() throws {
        let fixture = try EmulatorFixture()
        var environment = environment(fixture)
        environment["APNS_URL"] = "https://127.0.0.1:1"
        let result = try soar(["push", "send", "--apns-url", fixture.url, "--token", "00aa", "--title", "t", "--body", "b"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
    }

    @Test func configurationAndUsageErrorsExitTwoAndUnreachableThree() throws {
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
        #expect(tooBig.status == 1 && tooBig.stdout.contains("over the 4096-byte limit"))
        #expect(fixture.emulator.state.counters.requests == 0, "nothing went on the wire")
    }
}
