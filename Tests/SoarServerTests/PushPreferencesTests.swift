import Foundation
import SoarCore
import SoarEmulator
import SoarTesting
import Testing

/// Push kinds and each user's preferences: a kind a user muted never reaches their devices (and
/// is counted as suppressed), a critical kind still does, and users write only their own rows.
@Suite(.timeLimit(.minutes(3))) struct PushPreferencesTests {
    static func token(_ n: Int) -> String { String(format: "%04x", n) + String(repeating: "ee", count: 30) }

    struct User {
        let id: String
        let token: String
    }

    func user(_ fixture: ServerFixture, _ n: Int) async throws -> User {
        let user = try await fixture.signUp("p\(n)@example.com")
        let answer = try await fixture.call("POST", "/rest/v1/device_tokens", bearer: user.token, body: #"{"token":"\#(Self.token(n))","platform":"ios"}"#)
        #expect(answer.status == 201, "\(answer.text)")
        return User(id: user.id, token: user.token)
    }

    func send(_ fixture: ServerFixture, _ body: String) async throws -> [String: JSONValue] {
        let answer = try await fixture.sendPush(body)
        #expect(answer.status == 202, "\(answer.text)")
        return try await fixture.finishedSend(try #require(answer.object["send_id"]?.stringValue))
    }

    @Test func aMutedKindIsNotSentAndIsCounted() async throws {
        let emulator = try EmulatorFixture()
        let fixture = try await ServerFixture.start(push: try emulator.pushSettings())
        let (ada, bob) = (try await user(fixture, 1), try await user(fixture, 2))
        let muted = try await fixture.call("POST", "/rest/v1/notification_preferences", bearer: bob.token, body: #"{"kind":"promo","enabled":false}"#)
        #expect(muted.status == 201, "\(muted.text)")
        let stealing = try await fixture.call(
            "POST", "/rest/v1/notification_preferences", bearer: bob.token, body: #"{"user_id":"\#(ada.id)","kind":"news","enabled":false}"#)
        #expect(stealing.status == 403, "another user's preferences: \(stealing.text)")

        let promo = try await send(fixture, #"{"user_ids":["\#(ada.id)","\#(bob.id)"],"title":"Sale","body":"Today","kind":"promo"}"#)
        #expect(promo["total"] == 1 && promo["delivered"] == 1, "\(promo)")
        #expect(promo["suppressed"]?.objectValue?["opted_out"] == 1, "\(promo)")
        #expect(emulator.emulator.state.deliveries.map(\.token) == [Self.token(1)])
        #expect(emulator.emulator.state.deliveries.first?.payload.objectValue?["kind"] == "promo")

        emulator.emulator.state.clearDeliveries()
        let everyone = try await send(fixture, #"{"all":true,"title":"Sale","body":"Today","kind":"promo"}"#)
        #expect(everyone["total"] == 1 && everyone["suppressed"]?.objectValue?["opted_out"] == 1, "\(everyone)")

        // Another kind, and a critical one even where muted, reach both.
        _ = try await fixture.call("POST", "/rest/v1/notification_preferences", bearer: bob.token, body: #"{"kind":"security","enabled":false}"#)
        emulator.emulator.state.clearDeliveries()
        let security = try await send(fixture, #"{"user_ids":["\#(ada.id)","\#(bob.id)"],"title":"New sign-in","body":"Was it you?","kind":"security"}"#)
        #expect(security["delivered"] == 2 && security["suppressed"]?.objectValue?["opted_out"] == 0, "\(security)")
        emulator.emulator.state.clearDeliveries()
        let news = try await send(fixture, #"{"user_ids":["\#(ada.id)","\#(bob.id)"],"title":"News","body":"Read it","kind":"news"}"#)
        #expect(news["delivered"] == 2)

        // send-test-push honors it too, and says so.
        let test = try await fixture.call("POST", "/functions/v1/send-test-push", bearer: bob.token, body: #"{"kind":"promo"}"#)
        #expect(test.status == 200 && test.object["sent"] == 0 && test.object["suppressed"]?.objectValue?["opted_out"] == 1, "\(test.text)")
        let bad = try await fixture.sendPush(#"{"all":true,"title":"a","body":"b","kind":"Not A Kind"}"#)
        #expect(bad.status == 400 && bad.text.contains("kind must be"), "\(bad.text)")
    }
}
