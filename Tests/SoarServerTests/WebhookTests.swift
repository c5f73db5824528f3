import Foundation
import SoarClientTesting
import SoarCore
import SoarEmulator
import SoarServer
import SoarTesting
import Testing

/// Push's webhooks against a receiver that checks every signature with PyPI's `standardwebhooks`
/// (the Standard Webhooks reference implementation): every delivery event arrives at least once,
/// through a receiver that fails, hangs past the timeout and recovers; bad endpoints are refused.
@Suite(.timeLimit(.minutes(3))) struct WebhookTests {
    static let peer = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Peers/webhook_receiver.py").standardized.path
    static let secret = "whsec_" + Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString()
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "ab", count: 30) }

    /// The receiver's log: the events it took (each verified), by line.
    static func taken(_ path: String) -> [[String: JSONValue]] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { try? JSONValue.read(Data($0.utf8)).objectValue }
    }

    @Test(.ownThread) func everyEventReachesAReceiverThatFailsHangsAndRecovers() async throws {
        let time = ManualTime(Date())
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(configure: { $0.webhookTimeout = .seconds(1) }, push: try emulator.pushSettings(), now: time.now)
        let directory = TemporaryDirectory("soar-webhooks")
        let log = directory.path + "/taken.jsonl"
        // The first verified request is answered 500, the second hangs past the server's timeout.
        let receiver = try BackgroundProcess("/usr/bin/env", ["python3", Self.peer, Self.secret, log, "--fail", "1", "--hang", "2"])
        defer { receiver.stop() }
        let port = try #require(receiver.readLine(timeout: 30).flatMap { Int($0) }, "\(receiver.standardError)")
        let created = try await fixture.call(
            "POST", "/functions/v1/webhooks", bearer: fixture.serviceKey, body: #"{"url":"http://127.0.0.1:\#(port)/hooks","secret":"\#(Self.secret)"}"#)
        #expect(created.status == 201 && created.object["secret"] == .string(Self.secret), "\(created.text)")
        let endpoint = try #require(created.object["id"]?.stringValue)

        // Ada's device takes it, Bob's is gone (Apple: Unregistered), Cy muted the kind.
        var users: [(id: String, token: String)] = []
        for n in 1...3 {
            let user = try await fixture.signUp("hook\(n)@example.com")
            #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#).status == 201)
            users.append((user.id, user.token))
        }
        emulator.emulator.state.setMark(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), for: Self.token(2))
        #expect(try await fixture.call("POST", "/rest/v1/notification_preferences", bearer: users[2].token, body: #"{"kind":"news","enabled":false}"#).status == 201)
        let sent = try await fixture.sendPush(#"{"all":true,"title":"News","body":"Read it","kind":"news"}"#)
        #expect(sent.status == 202, "\(sent.text)")
        let send = try #require(sent.object["send_id"]?.stringValue)
        _ = try await fixture.finishedSend(send)

        // Ada opens it.
        let inbox = try await fixture.call("GET", "/rest/v1/notifications?select=id", bearer: users[0].token)
        let notification = try #require(inbox.rows.first?["id"]?.stringValue, "\(inbox.text)")
        let opened = try await fixture.call("PATCH", "/rest/v1/notifications?id=eq.\(notification)", bearer: users[0].token, body: #"{"opened_at":"2026-12-06T10:00:00Z"}"#)
        #expect(opened.status == 204 || opened.status == 200, "\(opened.text)")

        let expected: [String: Int] = ["push.sent": 1, "push.failed": 1, "push.token_removed": 1, "push.opened": 1, "push.suppressed": 1]
        func takenTypes() -> [String: Int] {
            var byID: [String: String] = [:]
            for entry in Self.taken(log) {
                if let id = entry["id"]?.stringValue, let type = entry["type"]?.stringValue { byID[id] = type }
            }
            return Dictionary(byID.values.map { ($0, 1) }, uniquingKeysWith: +)
        }
        // Whatever failed (the 500, the hang) is due again five seconds on.
        #expect(await fixture.outcomesRecorded(), "before the clock moves on")
        var rounds = 0
        while takenTypes() != expected, rounds < 10 {
            if await waitUntil(within: .seconds(3), { takenTypes() == expected }) { break }
            time.advance(by: 6)
            rounds += 1
        }
        #expect(takenTypes() == expected, "taken: \(Self.taken(log)), stderr: \(receiver.standardError)")

        let bodies = Dictionary(Self.taken(log).compactMap { entry in entry["type"]?.stringValue.map { ($0, entry["data"]?.objectValue ?? [:]) } }, uniquingKeysWith: { first, _ in first })
        #expect(bodies["push.sent"]?["user_id"] == .string(users[0].id) && bodies["push.sent"]?["send_id"] == .string(send) && bodies["push.sent"]?["kind"] == "news")
        #expect(bodies["push.failed"]?["reason"] == "Unregistered" && bodies["push.token_removed"]?["device_token"] == .string(Self.token(2)))
        #expect(bodies["push.opened"]?["notification_id"] == .string(notification))
        #expect(bodies["push.suppressed"]?["reason"] == "opted_out" && bodies["push.suppressed"]?["count"] == 1)

        // The send's detail and the endpoint's messages say what became of each, with its attempts.
        #expect(await waitUntil(within: .seconds(10)) {
            let status = try? await fixture.call("GET", "/functions/v1/sends/\(send)", bearer: fixture.serviceKey)
            return status?.object["webhooks"]?.objectValue?["delivered"] == 5
        })
        let messages = try await fixture.call("GET", "/functions/v1/sends/\(send)/webhooks", bearer: fixture.serviceKey)
        #expect(messages.rows.count == 5 && messages.rows.allSatisfy { $0["state"] == "delivered" }, "\(messages.text)")
        #expect(messages.rows.contains { ($0["attempts"]?.intValue ?? 0) >= 2 }, "the failed and hung ones went again: \(messages.text)")
        let byEndpoint = try await fixture.call("GET", "/functions/v1/webhooks/\(endpoint)/messages", bearer: fixture.serviceKey)
        #expect(byEndpoint.rows.count == 5, "\(byEndpoint.text)")
    }

    /// A receiver that answers 500 forever: the message is tried on Standard Webhooks' schedule,
    /// about a day, then given up, with its last answer kept; never more attempts than that.
    @Test(.ownThread) func aReceiverThatFailsForeverIsGivenUpAfterADay() async throws {
        let time = ManualTime(Date())
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings(), now: time.now)
        let directory = TemporaryDirectory("soar-webhooks-failing")
        let receiver = try BackgroundProcess("/usr/bin/env", ["python3", Self.peer, Self.secret, directory.path + "/taken.jsonl", "--fail", "1000"])
        defer { receiver.stop() }
        let port = try #require(receiver.readLine(timeout: 30).flatMap { Int($0) }, "\(receiver.standardError)")
        let created = try await fixture.call(
            "POST", "/functions/v1/webhooks", bearer: fixture.serviceKey,
            body: #"{"url":"http://127.0.0.1:\#(port)/hooks","secret":"\#(Self.secret)","events":["push.sent"]}"#)
        let endpoint = try #require(created.object["id"]?.stringValue, "\(created.text)")
        let user = try await fixture.signUp("forever@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(5))","platform":"ios"}"#).status == 201)
        let sent = try await fixture.sendPush(#"{"all":true,"title":"a","body":"b"}"#)
        _ = try await fixture.finishedSend(try #require(sent.object["send_id"]?.stringValue))
        #expect(await fixture.outcomesRecorded(), "before the clock moves on")
        func message() async throws -> [String: JSONValue] {
            try await fixture.call("GET", "/functions/v1/webhooks/\(endpoint)/messages", bearer: fixture.serviceKey).rows.first ?? [:]
        }
        // Seven waits (5 s to 10 h), each passed once its attempt is recorded.
        for attempt in 1...8 {
            let reached = await waitUntil(within: .seconds(10)) { (try? await message())?["attempts"] == .int(attempt) }
            let seen = try await message()
            #expect(reached, "attempt \(attempt): \(seen)")
            time.advance(by: 36_001)
        }
        let last = try await message()
        #expect(last["state"] == "failed" && last["attempts"] == 8 && last["last_status"] == 500 && last["next_attempt_at"] == .null, "\(last)")
        #expect(last["last_error"]?.stringValue?.contains("500") == true, "\(last)")
    }

    @Test func badEndpointsAreRefusedWithTheirReason() async throws {
        let fixture = try await ServerFixture.start()
        let own = URL(string: fixture.url)!.port!
        for (body, status, words) in [
            (#"{"url":"ftp://127.0.0.1:9/x"}"#, 400, "http or https"),
            (#"{"url":"not a url"}"#, 400, "http or https"),
            (#"{"url":"http://127.0.0.1:\#(own)/functions/v1/webhooks"}"#, 400, "this server itself"),
            (#"{"url":"http://localhost:\#(own)/x"}"#, 400, "this server itself"),
            (#"{"url":"http://127.0.0.1:9/x","events":["push.exploded"]}"#, 400, "Unknown event"),
            (#"{"url":"http://127.0.0.1:9/x","secret":"hunter2"}"#, 400, "whsec_"),
            (#"{"url":"http://127.0.0.1:9/x","colour":"red"}"#, 400, "Unknown field colour"),
            (#"{}"#, 400, "url is required"),
        ] {
            let answer = try await fixture.call("POST", "/functions/v1/webhooks", bearer: fixture.serviceKey, body: body)
            #expect(answer.status == status && answer.text.contains(words), "\(body): \(answer.text)")
        }
        let anon = try await fixture.call("POST", "/functions/v1/webhooks", bearer: fixture.anonKey, body: #"{"url":"http://127.0.0.1:9/x"}"#)
        #expect(anon.status == 401 || anon.status == 403)

        let made = try await fixture.call("POST", "/functions/v1/webhooks", bearer: fixture.serviceKey, body: #"{"url":"http://127.0.0.1:9/x","events":["push.opened"]}"#)
        #expect(made.status == 201 && (made.object["secret"]?.stringValue ?? "").hasPrefix("whsec_"), "\(made.text)")
        let id = try #require(made.object["id"]?.stringValue)
        let listed = try await fixture.call("GET", "/functions/v1/webhooks", bearer: fixture.serviceKey)
        #expect(listed.rows.count == 1 && listed.rows[0]["secret"] == nil && listed.rows[0]["events"] == ["push.opened"], "\(listed.text)")
        #expect(try await fixture.call("DELETE", "/functions/v1/webhooks/\(id)", bearer: fixture.serviceKey).status == 200)
        #expect(try await fixture.call("DELETE", "/functions/v1/webhooks/\(id)", bearer: fixture.serviceKey).status == 404)
    }
}
