import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// `send-push` for the service role: stored first (202), delivered in the background, counted.
@Suite(.timeLimit(.minutes(5))) struct SendPushTests {
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "cd", count: 30) }

    /// Signs up `count` users with one registered token each; returns their ids in order.
    func users(_ fixture: ServerFixture, _ count: Int, from first: Int = 0) async throws -> [String] {
        var ids: [String] = []
        for n in first..<(first + count) {
            let user = try await fixture.signUp("u\(n)@example.com")
            let answer = try await fixture.call(
                "POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#)
            #expect(answer.status == 201, "\(answer.text)")
            ids.append(user.id)
        }
        return ids
    }

    func send(_ fixture: ServerFixture, _ body: String) async throws -> ServerFixture.Answer {
        try await fixture.sendPush(body)
    }

    func finished(_ fixture: ServerFixture, _ id: String) async throws -> [String: JSONValue] {
        try await fixture.finishedSend(id)
    }

    @Test func usersTokensAndEveryoneAreEachReachedOnce() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let ids = try await users(fixture, 4)
        let stranger = String(repeating: "ef", count: 32)

        let toUsers = try await send(fixture, #"{"user_ids":["\#(ids[0])","\#(ids[1])"],"title":"Hi","body":"There","priority":10}"#)
        #expect(toUsers.status == 202 && toUsers.object["devices"] == 2, "\(toUsers.text)")
        let first = try await finished(fixture, try #require(toUsers.object["send_id"]?.stringValue))
        #expect(first["total"] == 2 && first["delivered"] == 2 && first["failed"] == 0)
        #expect(Set(emulator.emulator.state.deliveries.map(\.token)) == [Self.token(0), Self.token(1)])

        emulator.emulator.state.clearDeliveries()
        let toTokens = try await send(fixture, #"{"tokens":["\#(Self.token(2))","\#(stranger)","\#(stranger.uppercased())"],"payload":{"aps":{"content-available":1},"k":1},"push_type":"background","priority":5}"#)
        #expect(toTokens.status == 202 && toTokens.object["devices"] == 2, "\(toTokens.text)")
        _ = try await finished(fixture, try #require(toTokens.object["send_id"]?.stringValue))
        let background = emulator.emulator.state.deliveries
        #expect(Set(background.map(\.token)) == [Self.token(2), stranger], "an unregistered token is sent to as well")
        #expect(background.allSatisfy { delivery in delivery.headers.contains { $0 == ("apns-push-type", "background") } })

        // A device that changed hands: user 1 registers user 0's token; it is user 1's alone now.
        let second = try await fixture.signUp("u1-again@example.com")
        _ = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: second.token, body: #"{"token":"\#(Self.token(0))"}"#)
        emulator.emulator.state.clearDeliveries()
        let everyone = try await send(fixture, #"{"all":true,"title":"All","body":"of you","collapse_id":"news"}"#)
        #expect(everyone.object["devices"] == 4, "\(everyone.text)")
        let summary = try await finished(fixture, try #require(everyone.object["send_id"]?.stringValue))
        #expect(summary["delivered"] == 4)
        let deliveries = emulator.emulator.state.deliveries
        #expect(deliveries.count == 4 && Set(deliveries.map(\.apnsID)).count == 4, "one apns-id per device")
    }

    @Test func deadTokensAreCountedByReasonAndRemoved() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        _ = try await users(fixture, 3)
        emulator.emulator.state.setMark(.bad, for: Self.token(0))
        emulator.emulator.state.setMark(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), for: Self.token(1))
        let answer = try await send(fixture, #"{"all":true,"title":"x","body":"y"}"#)
        let summary = try await finished(fixture, try #require(answer.object["send_id"]?.stringValue))
        #expect(summary["delivered"] == 1 && summary["failed"] == 2 && summary["removed"] == 2, "\(summary)")
        #expect(summary["reasons"] == ["BadDeviceToken": 1, "Unregistered": 1])
        #expect(summary["removed_by_reason"] == ["BadDeviceToken": 1, "Unregistered": 1], "\(summary)")
        let left = try await fixture.call("GET", "/rest/v1/device_tokens?select=token", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey])
        #expect(left.rows.map { $0["token"] } == [.string(Self.token(2))])
        let metrics = try await fixture.call("GET", "/metrics", bearer: fixture.serviceKey, headers: ["apikey": fixture.serviceKey]).text
        for line in [
            #"soar_push_notifications_total{outcome="failed",reason="BadDeviceToken"} 1"#, #"soar_push_notifications_total{outcome="delivered",reason=""} 1"#,
            "soar_push_rows_removed_total 2", "soar_push_queue_depth 0", "soar_push_send_duration_seconds_count 3",
        ] {
            #expect(metrics.contains(line + "\n"), "\(line) in /metrics")
        }
    }

    @Test func injected503sAreRetriedAndNothingIsCountedTwice() async throws {
        let emulator = try EmulatorFixture { $0.faults.status = 503; $0.faults.every = 10 }
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let body = #"{"tokens":[\#((0..<300).map { "\"\(Self.token($0))\"" }.joined(separator: ","))],"title":"x","body":"y"}"#
        let answer = try await send(fixture, body)
        let summary = try await finished(fixture, try #require(answer.object["send_id"]?.stringValue, "\(answer.text)"))
        // Each token ends once: delivered, or (rarely, when every retry met an injected 503) failed with that reason.
        let delivered = summary["delivered"]?.intValue ?? 0
        #expect(summary["total"] == 300 && delivered + (summary["failed"]?.intValue ?? 0) == 300 && delivered >= 290, "\(summary)")
        #expect(summary["reasons"]?.objectValue?.keys.allSatisfy { $0 == "ServiceUnavailable" } != false, "\(summary)")
        #expect(Set(emulator.emulator.state.deliveries.map(\.token)).count == delivered, "each delivered token reached the emulator once")
    }

    @Test func onlyTheServiceRoleSendsAndBadBodiesChangeNothing() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let alice = try await fixture.signUp("a@example.com")
        let anon = try await fixture.call("POST", "/functions/v1/send-push", body: #"{"all":true,"title":"x","body":"y"}"#)
        #expect(anon.status == 401)
        let user = try await fixture.call("POST", "/functions/v1/send-push", bearer: alice.token, body: #"{"all":true,"title":"x","body":"y"}"#)
        #expect(user.status == 403 && user.object["error"] == "forbidden")
        let peek = try await fixture.call("GET", "/functions/v1/sends/\(RandomUUID.lowercase())", bearer: alice.token)
        #expect(peek.status == 403)
        let unknown = try await fixture.call("GET", "/functions/v1/sends/\(RandomUUID.lowercase())", bearer: fixture.serviceKey)
        #expect(unknown.status == 404)
        for (body, words) in [
            (#"{"title":"x","body":"y"}"#, "exactly one of"), (#"{"all":true,"tokens":["00"],"title":"x","body":"y"}"#, "exactly one of"),
            (#"{"user_ids":["nope"],"title":"x","body":"y"}"#, "not a uuid"), (#"{"tokens":["xyz1"],"title":"x","body":"y"}"#, "hex"),
            (#"{"all":true}"#, "title and body"), (#"{"all":true,"title":"x","body":"y","payload":{"aps":{}}}"#, "not both"),
            (#"{"all":true,"payload":{"k":1}}"#, "payload"), (#"{"all":true,"title":"x","body":"y","priority":7}"#, "priority"),
            (#"{"all":true,"title":"x","body":"y","push_type":"fax"}"#, "push_type"), (#"{"all":true,"title":"x","body":"y","colour":1}"#, "unknown field"),
            (#"{"all":false,"title":"x","body":"y"}"#, "all must be true"), (#"{"all":true,"title":"x","body":"y","expiration":-1}"#, "expiration"),
            (#"{"all":true,"title":"x","body":"y","expiration":9223372036854775807}"#, "expiration"),
            // What APNs would refuse is refused before anything is stored.
            (#"{"all":true,"title":"x","body":"y","collapse_id":"\#(String(repeating: "c", count: 65))"}"#, "collapse-id"),
            (#"{"all":true,"payload":{"aps":{"content-available":1}},"push_type":"background","priority":10}"#, "priority 10"),
            (#"{"all":true,"title":"\#(String(repeating: "t", count: 5000))","body":"y"}"#, "4096"),
            (#"{"tokens":["\#(String(repeating: "ab", count: 300))"],"title":"x","body":"y"}"#, "at most 256 bytes"),
            (#"{"all":true,"payload":{"aps":{"alert":"x"},"soar_id":"mine"}}"#, "soar_id"),
        ] {
            let answer = try await send(fixture, body)
            #expect(answer.status == 400 && answer.object["message"]?.stringValue?.contains(words) == true, "\(body): \(answer.text)")
        }
        #expect(emulator.emulator.state.deliveries.isEmpty)
        let inbox = try await fixture.call("GET", "/rest/v1/notifications?select=id", bearer: fixture.serviceKey)
        #expect(inbox.rows.isEmpty, "no inbox row for a refused send")
        let unconfigured = try await ServerFixture.start()
        let refused = try await send(unconfigured, #"{"all":true,"title":"x","body":"y"}"#)
        #expect(refused.status == 503 && refused.object["error"] == "apns_not_configured")
    }
}
