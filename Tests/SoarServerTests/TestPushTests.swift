import Foundation
import SoarCore
import SoarEmulator
import SoarHTTP
import SoarServer
import SoarStore
import SoarTesting
import Testing

/// `send-test-push` against the APNs emulator: the caller's own devices only, dead tokens
/// removed as APNs says, and a safe no-op answer when APNs is not configured.
@Suite(.timeLimit(.minutes(5))) struct TestPushTests {
    static func token(_ n: Int) -> String { String(format: "%02x", n) + String(repeating: "ab", count: 31) }

    /// Registers `tokens` for a new user through the data API, as the seed's registrar does.
    func user(_ fixture: ServerFixture, _ email: String, tokens: [String]) async throws -> (token: String, refresh: String, id: String) {
        let user = try await fixture.signUp(email)
        for token in tokens {
            let answer = try await fixture.call(
                "POST", "/rest/v1/device_tokens?on_conflict=user_id,token", bearer: user.token,
                headers: ["prefer": "resolution=merge-duplicates"], body: #"{"user_id":"\#(user.id)","token":"\#(token)","platform":"ios"}"#)
            #expect(answer.status == 201, "\(answer.text)")
        }
        return user
    }

    func deviceCount(_ fixture: ServerFixture, _ user: (token: String, refresh: String, id: String)) async throws -> Int {
        try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: user.token).rows.count
    }

    @Test func eachUserReachesOnlyTheirOwnDevices() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let alice = try await user(fixture, "a@example.com", tokens: [Self.token(1), Self.token(2)])
        let bob = try await user(fixture, "b@example.com", tokens: [Self.token(3)])
        let answer = try await fixture.call(
            "POST", "/functions/v1/send-test-push", bearer: alice.token,
            body: #"{"title":"Hi","body":"From the test","deeplink":"soar:///notifications","environment":"sandbox"}"#)
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.object["sent"] == 2 && answer.object["delivered"] == 2 && answer.object["removed"] == 0)
        let results = answer.object["results"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(results.allSatisfy { $0["status"] == "delivered" && $0["apns_id"]?.stringValue?.count == 36 })
        #expect(results.first?["token"] == "01ababab…abab", "tokens are shortened in answers")
        let delivered = Set(emulator.emulator.state.deliveries.map(\.token))
        #expect(delivered == [Self.token(1), Self.token(2)])
        let payload = try #require(emulator.emulator.state.deliveries.first?.payload)
        #expect(payload.objectValue?["deeplink"] == "soar:///notifications", "\(payload)")
        #expect(payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"] == "Hi", "\(payload)")
        _ = bob
    }

    @Test func deadTokensAreRemovedButARegistrationAfterApplesTimestampSurvives() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let alice = try await user(fixture, "a@example.com", tokens: [Self.token(1), Self.token(2), Self.token(3), Self.token(4)])
        let state = emulator.emulator.state
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        state.setMark(.bad, for: Self.token(1))
        state.setMark(.unregistered(since: now + 60_000), for: Self.token(2))
        // Apple learned token 3 was gone an hour ago; the app registered it again since.
        state.setMark(.unregistered(since: now - 3_600_000), for: Self.token(3))
        let answer = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: "{}")
        #expect(answer.status == 200, "\(answer.text)")
        let results = answer.object["results"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(results.map { $0["reason"] } == ["BadDeviceToken", "Unregistered", "Unregistered", .null])
        #expect(results.map { $0["removed"] } == [true, true, false, false])
        #expect(answer.object["removed"] == 2 && answer.object["delivered"] == 1)
        let left = try await fixture.call("GET", "/rest/v1/device_tokens?select=token&order=token", bearer: alice.token)
        #expect(left.rows.map { $0["token"] } == [.string(Self.token(3)), .string(Self.token(4))])
    }

    @Test func aTokenSentToTheWrongEnvironmentIsHealedNotDeleted() async throws {
        let emulator = try EmulatorFixture { $0.productionPort = 0 }
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        // A TestFlight build's token (production) and a debug build's (sandbox), neither recorded yet.
        let alice = try await user(fixture, "a@example.com", tokens: [Self.token(1), Self.token(2)])
        #expect(try emulator.control("POST", "/tokens/\(Self.token(1))/environment", body: #"{"environment":"production"}"#).status == 0)
        #expect(try emulator.control("POST", "/tokens/\(Self.token(2))/environment", body: #"{"environment":"sandbox"}"#).status == 0)
        let answer = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: #"{"environment":"sandbox"}"#)
        #expect(answer.object["delivered"] == 2 && answer.object["removed"] == 0, "\(answer.text)")
        let results = answer.object["results"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(results.map { $0["environment"] } == ["production", "sandbox"])
        #expect(results[0]["environment_healed"]?.stringValue?.contains("BadDeviceToken in sandbox") == true)
        #expect(results[1]["environment_healed"] == nil)
        let rows = try await fixture.call("GET", "/rest/v1/device_tokens?select=token,environment&order=token", bearer: alice.token)
        #expect(rows.rows.map { $0["environment"] } == ["production", .null], "the healed row records where it works")
        let deliveries = emulator.emulator.state.deliveries.map { [$0.token: $0.environment ?? "?"] }
        #expect(deliveries.contains([Self.token(1): "production"]) && deliveries.contains([Self.token(2): "sandbox"]))
        // The next send goes straight to production for the healed device: no new BadDeviceToken.
        let before = emulator.emulator.state.counters.rejected["BadDeviceToken"] ?? 0
        let again = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: #"{"environment":"sandbox"}"#)
        #expect(again.object["delivered"] == 2)
        #expect(emulator.emulator.state.counters.rejected["BadDeviceToken"] ?? 0 == before)
    }

    @Test func aSilentAPNsHoldsAWorkerOnlyUntilTheDeadline() async throws {
        let emulator = try EmulatorFixture { $0.faults.latencyMilliseconds = 3000 }
        let fixture = try await ServerFixture.start(configure: { $0.testPushDeadline = .milliseconds(300) }, push: try emulator.pushSettings())
        let alice = try await user(fixture, "a@example.com", tokens: [Self.token(1)])
        let answer = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: "{}")
        #expect(answer.status == 504 && answer.object["error"] == "apns_timeout", "\(answer.text)")
        #expect(answer.object["message"]?.stringValue?.contains("may still be delivered") == true)
    }

    @Test func slowAPNsHoldsNoWorkerSoOtherRequestsAreAnsweredMeanwhile() async throws {
        // One HTTP worker thread and an APNs that takes a second and a half: the sends wait
        // without it (each from its own arrival), so a health check is answered first.
        let emulator = try EmulatorFixture { $0.faults.latencyMilliseconds = 1500 }
        let fixture = try await ServerFixture.start(configure: { $0.limits.threads = 1 }, push: try emulator.pushSettings())
        let alice = try await user(fixture, "a@example.com", tokens: [Self.token(1)])
        let order = Locked([String]())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    let answer = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: "{}")
                    order.withLock { $0.append("push \(answer.status)") }
                }
            }
            // Once every send is waiting for APNs, the one worker answers another request.
            #expect(await waitUntil(within: .seconds(10)) { emulator.emulator.state.counters.requests >= 1 })
            let health = try await fixture.call("GET", "/health")
            order.withLock { $0.append("health \(health.status)") }
            try await group.waitForAll()
        }
        let answers = order.withLock { $0 }
        #expect(answers.first == "health 200", "\(answers)")
        #expect(answers.filter { $0 == "push 200" }.count == 3, "\(answers)")
    }

    /// Makes the one-owner rule's recorded moves older than `seconds` (the store's clock times them).
    static func ageMoves(_ fixture: ServerFixture, _ time: ManualTime, by seconds: Int) throws {
        if PostgresCluster.selected {
            let name = String(fixture.server.store.location.split(separator: "/").last ?? "")
            _ = try PostgresCluster.shared.get().psql(name, "UPDATE soar.device_moves SET moved_at = moved_at - make_interval(secs => \(seconds))")
        } else {
            time.advance(by: TimeInterval(seconds))
        }
    }

    @Test func aTokenTakenOverGetsOnlyTheDefaultTextAndTakeoversAreLimited() async throws {
        let time = ManualTime(Date())
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings(), now: time.now)
        _ = try await user(fixture, "victim@example.com", tokens: [Self.token(1)])
        // Mallory learned the victim's token and registers it (in another case): the row moves to her.
        let mallory = try await fixture.signUp("mallory@example.com")
        let taken = try await fixture.call(
            "POST", "/api/creator/device_tokens", bearer: mallory.token, body: #"{"token":"\#(Self.token(1).uppercased())","platform":"ios"}"#)
        #expect(taken.status == 201, "\(taken.text)")
        let phishing = #"{"title":"Your bank","body":"Sign in again","deeplink":"https://evil.example/login"}"#
        let first = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: mallory.token, body: phishing)
        #expect(first.status == 200 && first.object["default_text"] == 1, "\(first.text)")
        let shown = try #require(emulator.emulator.state.deliveries.last).payload
        #expect(shown.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["title"] == "Test notification", "\(shown)")
        #expect(shown.objectValue?["deeplink"] == "soar:///notifications")

        // Past the quarantine the device is hers like any other.
        try Self.ageMoves(fixture, time, by: 601)
        let later = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: mallory.token, body: phishing)
        #expect(later.status == 200 && later.object["default_text"] == nil, "\(later.text)")
        #expect(emulator.emulator.state.deliveries.last?.payload.objectValue?["deeplink"] == "https://evil.example/login")

        // Taking over other users' tokens is limited to 10 an hour.
        try Self.ageMoves(fixture, time, by: 3601)
        let signedIn = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"mallory@example.com","password":"correct-horse"}"#)
        let fresh = try #require(signedIn.object["access_token"]?.stringValue)
        for n in 2...12 { _ = try await user(fixture, "victim\(n)@example.com", tokens: [Self.token(n)]) }
        var statuses: [Int] = []
        for n in 2...12 {
            statuses.append(try await fixture.call("POST", "/api/creator/device_tokens", bearer: fresh, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#).status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 201 } && statuses.last == 400, "\(statuses)")
        let refused = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: fresh, body: #"{"user_id":"\#(mallory.id)","token":"\#(Self.token(12))","platform":"ios"}"#)
        #expect(refused.status == 400 && refused.text.contains("10 times in the last hour"), "\(refused.text)")
        // The 11th victim keeps the device.
        let victim = try await fixture.call("POST", "/auth/v1/token?grant_type=password", body: #"{"email":"victim12@example.com","password":"correct-horse"}"#)
        let victimToken = try #require(victim.object["access_token"]?.stringValue)
        #expect(try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: victimToken).rows.count == 1)
    }

    @Test func notConfiguredIsASafeNoOp() async throws {
        let fixture = try await ServerFixture.start()
        let alice = try await user(fixture, "a@example.com", tokens: [Self.token(1)])
        let answer = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: #"{"title":"x"}"#)
        #expect(answer.status == 503 && answer.object["error"] == "apns_not_configured", "\(answer.text)")
        let message = answer.object["message"]?.stringValue ?? ""
        #expect(message.contains("APNS_TEAM_ID") && message.contains("APNS_BUNDLE_ID"))
        #expect(try await deviceCount(fixture, alice) == 1, "nothing changed")
    }

    @Test func aNotificationAPNsWouldRefuseIsRefusedBeforeItsInboxRowIsStored() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let alice = try await user(fixture, "a@example.com", tokens: [Self.token(1)])
        let title = String(repeating: "T", count: 100_000)
        let answer = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: #"{"title":"\#(title)"}"#)
        #expect(answer.status == 400 && answer.object["message"]?.stringValue?.contains("4096") == true, "\(answer.text.prefix(300))")
        let inbox = try await fixture.call("GET", "/rest/v1/notifications?select=id", bearer: alice.token)
        #expect(inbox.rows.isEmpty)
        #expect(emulator.emulator.state.deliveries.isEmpty)
    }

    @Test func callersAndBodiesAreChecked() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let alice = try await user(fixture, "a@example.com", tokens: [])
        let anon = try await fixture.call("POST", "/functions/v1/send-test-push", body: "{}")
        #expect(anon.status == 401)
        let noKey = try await fixture.call("POST", "/functions/v1/send-test-push", headers: ["apikey": ""], body: "{}")
        #expect(noKey.status == 401)
        let service = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: fixture.serviceKey, body: "{}")
        #expect(service.status == 403)
        for (body, words) in [
            (#"{"title":5}"#, "title must be a string"), (#"{"environment":"staging"}"#, "sandbox"), ("[]", "JSON object"), ("{", "not JSON"),
        ] {
            let answer = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: body)
            #expect(answer.status == 400 && answer.object["message"]?.stringValue?.contains(words) == true, "\(body): \(answer.text)")
        }
        let none = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: "{}")
        #expect(none.status == 200 && none.object["sent"] == 0 && none.object["message"]?.stringValue?.contains("No iOS device") == true)
        #expect(emulator.emulator.state.deliveries.isEmpty)
    }
}
