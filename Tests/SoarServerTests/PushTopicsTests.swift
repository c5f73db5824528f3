import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// `send-push` to a topic: the devices of the users who follow it, no one else; a topic nobody
/// follows says so; users follow and unfollow only for themselves.
@Suite(.timeLimit(.minutes(3))) struct PushTopicsTests {
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "dd", count: 30) }

    @Test func aTopicReachesItsFollowersOnly() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try ServerFixture(push: try emulator.pushSettings())
        var users: [(token: String, refresh: String, id: String)] = []
        for n in 0..<3 {
            let user = try await fixture.signUp("t\(n)@example.com")
            let answer = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#)
            #expect(answer.status == 201, "\(answer.text)")
            users.append(user)
        }
        for user in users.prefix(2) {
            let follow = try await fixture.call("POST", "/rest/v1/push_topic_subscriptions", bearer: user.token, body: #"{"topic":"brand:abc123"}"#)
            #expect(follow.status == 201, "\(follow.text)")
        }
        let forOther = try await fixture.call(
            "POST", "/rest/v1/push_topic_subscriptions", bearer: users[2].token, body: #"{"user_id":"\#(users[0].id)","topic":"spam"}"#)
        #expect(forOther.status == 403, "following for another user: \(forOther.text)")
        // The second follower mutes the kind: left out, and counted.
        _ = try await fixture.call("POST", "/rest/v1/notification_preferences", bearer: users[1].token, body: #"{"kind":"brand_news","enabled":false}"#)

        let sent = try await fixture.sendPush(#"{"topic":"brand:abc123","title":"New drop","body":"From a brand you follow","kind":"brand_news"}"#)
        #expect(sent.status == 202 && sent.object["devices"] == 1, "\(sent.text)")
        let id = try #require(sent.object["send_id"]?.stringValue)
        #expect(await waitUntil(within: .seconds(20)) { emulator.emulator.state.deliveries.count == 1 })
        #expect(emulator.emulator.state.deliveries.map(\.token) == [Self.token(0)])
        let status = try await fixture.call("GET", "/functions/v1/sends/\(id)", bearer: fixture.serviceKey)
        #expect(status.object["suppressed"]?.objectValue?["opted_out"] == 1, "\(status.text)")

        let nobody = try await fixture.sendPush(#"{"topic":"nobody-follows","title":"a","body":"b"}"#)
        #expect(nobody.status == 404 && nobody.text.contains("unknown_topic"), "\(nobody.text)")
        let bad = try await fixture.sendPush(#"{"topic":"no spaces","title":"a","body":"b"}"#)
        #expect(bad.status == 400, "\(bad.text)")
    }
}
