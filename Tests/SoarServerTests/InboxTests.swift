import Foundation
import SoarCore
import SoarEmulator
import SoarServer
import SoarTesting
import Testing

/// The server-side inbox: one row per notification per user, its id in the payload, readable and
/// markable by its owner only, capped, counted as opens and as the unread badge.
@Suite(.timeLimit(.minutes(5))) struct InboxTests {
    static let token = String(repeating: "9a", count: 32)
    static let other = String(repeating: "9b", count: 32)

    func register(_ fixture: ServerFixture, _ user: (token: String, refresh: String, id: String), _ device: String) async throws {
        let answer = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(device)"}"#)
        #expect(answer.status == 201, "\(answer.text)")
    }

    func inbox(_ fixture: ServerFixture, _ bearer: String) async throws -> [[String: JSONValue]] {
        try await fixture.call("GET", "/rest/v1/notifications?select=*&order=created_at.desc", bearer: bearer).rows
    }

    func sendPush(_ fixture: ServerFixture, _ body: String) async throws -> String {
        let answer = try await fixture.call("POST", "/functions/v1/send-push", bearer: fixture.serviceKey, body: body)
        let id = try #require(answer.object["send_id"]?.stringValue, "\(answer.text)")
        let deadline = ContinuousClock.now + .seconds(20)
        while try await fixture.call("GET", "/functions/v1/sends/\(id)", bearer: fixture.serviceKey).object["pending"] != 0 {
            guard ContinuousClock.now < deadline else { throw FixtureError("send \(id) did not finish") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return id
    }

    @Test func eachNotificationIsKeptWithItsIdInThePayload() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let alice = try await fixture.signUp("a@example.com")
        let bob = try await fixture.signUp("b@example.com")
        try await register(fixture, alice, Self.token)
        let sent = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: alice.token, body: #"{"title":"Hello","body":"Inbox"}"#)
        #expect(sent.object["delivered"] == 1, "\(sent.text)")
        let rows = try await inbox(fixture, alice.token)
        let row = try #require(rows.first)
        #expect(rows.count == 1 && row["title"] == "Hello" && row["body"] == "Inbox" && row["read_at"] == .null)
        let delivered = try #require(emulator.emulator.state.deliveries.first?.payload.objectValue)
        #expect(delivered["soar_id"] == row["id"], "the app reports opens with the id it received")
        #expect(row["payload"]?.objectValue?["soar_id"] == row["id"] && row["payload"]?.objectValue?["aps"] != nil)
        #expect(try await inbox(fixture, bob.token).isEmpty, "bob sees none of alice's notifications")
        let peek = try await fixture.call("GET", "/rest/v1/notifications?user_id=eq.\(alice.id)", bearer: bob.token)
        #expect(peek.rows.isEmpty)
    }

    @Test func ownersMarkAndDeleteButNeverWriteTheRest() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let alice = try await fixture.signUp("a@example.com")
        let bob = try await fixture.signUp("b@example.com")
        try await register(fixture, alice, Self.token)
        let sendID = try await sendPush(fixture, #"{"user_ids":["\#(alice.id)"],"title":"Sale","body":"Today"}"#)
        let id = try #require(try await inbox(fixture, alice.token).first?["id"]?.stringValue)
        let forged = try await fixture.call("POST", "/rest/v1/notifications", bearer: alice.token, body: #"{"user_id":"\#(alice.id)","title":"fake"}"#)
        #expect(forged.status == 403 && forged.object["code"] == "42501")
        let retitled = try await fixture.call("PATCH", "/rest/v1/notifications?id=eq.\(id)", bearer: alice.token, body: #"{"title":"changed"}"#)
        #expect(retitled.status == 403)
        let bobOpens = try await fixture.call(
            "PATCH", "/rest/v1/notifications?id=eq.\(id)", bearer: bob.token, headers: ["prefer": "return=representation"], body: #"{"opened_at":"now"}"#)
        #expect(bobOpens.rows.isEmpty, "bob cannot open alice's notification")
        let opened = try await fixture.call(
            "PATCH", "/rest/v1/notifications?id=eq.\(id)", bearer: alice.token, headers: ["prefer": "return=representation"],
            body: #"{"opened_at":"2026-12-03T10:00:00Z","read_at":"2026-12-03T10:00:00Z"}"#)
        #expect(opened.status == 200 && opened.rows.first?["opened_at"] == "2026-12-03T10:00:00.000000+00:00", "\(opened.text)")
        let status = try await fixture.call("GET", "/functions/v1/sends/\(sendID)", bearer: fixture.serviceKey)
        #expect(status.object["opens"] == 1 && status.object["delivered"] == 1, "\(status.text)")
        let removed = try await fixture.call("DELETE", "/rest/v1/notifications?id=eq.\(id)", bearer: alice.token)
        #expect(removed.status == 204)
        #expect(try await inbox(fixture, alice.token).isEmpty)
    }

    @Test func theInboxIsCappedAndTheBadgeCountsUnread() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(configure: { $0.inboxSize = 3 }, push: try emulator.pushSettings())
        let alice = try await fixture.signUp("a@example.com")
        let bob = try await fixture.signUp("b@example.com")
        try await register(fixture, alice, Self.token)
        try await register(fixture, bob, Self.other)
        for n in 1...4 { _ = try await sendPush(fixture, #"{"user_ids":["\#(alice.id)"],"title":"n\#(n)","body":"b"}"#) }
        let kept = try await inbox(fixture, alice.token)
        #expect(kept.map { $0["title"] } == ["n4", "n3", "n2"], "the newest 3 are kept")
        let first = try #require(kept.last?["id"]?.stringValue)
        _ = try await fixture.call("PATCH", "/rest/v1/notifications?id=eq.\(first)", bearer: alice.token, body: #"{"read_at":"2026-12-03T10:00:00Z"}"#)
        emulator.emulator.state.clearDeliveries()
        _ = try await sendPush(fixture, #"{"all":true,"title":"badge","body":"b","badge":"unread"}"#)
        var badges: [String: Int] = [:]
        for delivery in emulator.emulator.state.deliveries {
            badges[delivery.token] = delivery.payload.objectValue?["aps"]?.objectValue?["badge"]?.intValue
        }
        // Alice: 3 kept, 1 of them read, minus the one trimmed, plus this one: n3, n4, badge unread.
        #expect(badges == [Self.token: 3, Self.other: 1], "\(badges)")
    }
}
