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
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
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

    /// A device follows a topic by itself: a send to it reaches that device, not its user's others,
    /// and a token that is not the subscriber's own device reaches nothing.
    @Test func aDeviceFollowsATopicByItself() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let ada = try await fixture.signUp("device-topics@example.com")
        for n in [7, 8] {
            #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: ada.token, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#).status == 201)
        }
        let bob = try await fixture.signUp("device-topics-2@example.com")
        #expect(try await fixture.call("POST", "/rest/v1/device_tokens", bearer: bob.token, body: #"{"token":"\#(Self.token(9))","platform":"ios"}"#).status == 201)
        let follow = try await fixture.call(
            "POST", "/rest/v1/push_topic_device_subscriptions", bearer: ada.token, body: #"{"token":"\#(Self.token(7))","topic":"scores"}"#)
        #expect(follow.status == 201, "\(follow.text)")
        // Bob names Ada's device as his: it is not his device, so it gets nothing through him.
        let borrowed = try await fixture.call(
            "POST", "/rest/v1/push_topic_device_subscriptions", bearer: bob.token, body: #"{"token":"\#(Self.token(8))","topic":"scores"}"#)
        #expect(borrowed.status == 201, "\(borrowed.text)")
        let forged = try await fixture.call(
            "POST", "/rest/v1/push_topic_device_subscriptions", bearer: bob.token, body: #"{"user_id":"\#(ada.id)","token":"\#(Self.token(8))","topic":"scores"}"#)
        #expect(forged.status == 403, "for another user: \(forged.text)")
        let upper = try await fixture.call(
            "POST", "/rest/v1/push_topic_device_subscriptions", bearer: ada.token, body: #"{"token":"\#(Self.token(8).uppercased())","topic":"scores"}"#)
        #expect(upper.status == 400, "tokens are lowercase hex, as device_tokens keeps them: \(upper.text)")

        let dry = try await fixture.sendPush(#"{"topic":"scores","title":"Goal","body":"1-0","dry_run":true}"#)
        #expect(dry.object["devices"] == 1, "\(dry.text)")
        let sent = try await fixture.sendPush(#"{"topic":"scores","title":"Goal","body":"1-0"}"#)
        #expect(sent.status == 202 && sent.object["devices"] == 1, "\(sent.text)")
        _ = try await fixture.finishedSend(try #require(sent.object["send_id"]?.stringValue))
        #expect(emulator.emulator.state.deliveries.map(\.token) == [Self.token(7)])

        // Following as a user too: every device of the user, once each.
        #expect(try await fixture.call("POST", "/rest/v1/push_topic_subscriptions", bearer: ada.token, body: #"{"topic":"scores"}"#).status == 201)
        let both = try await fixture.sendPush(#"{"topic":"scores","title":"Goal","body":"2-0","dry_run":true}"#)
        #expect(both.object["devices"] == 2, "\(both.text)")
    }
}
