import Foundation
import SoarClient
import SoarTesting
import Testing

/// The notification settings screen against an in-process server: kinds on by default, a switch
/// stored as the user's own row, a critical kind that stays on, another user's rows unseen.
@MainActor @Suite(.timeLimit(.minutes(1))) struct NotificationPreferencesTests {
    static let kinds = [NotificationKind(id: "early_viral_alert", title: "Viral alerts"), NotificationKind(id: "security", title: "Security", critical: true)]

    @Test func switchesAreStoredPerUser() async throws {
        let fixture = try ClientFixture()
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let model = NotificationPreferencesViewModel(kinds: Self.kinds, repository: NotificationPreferencesRepository(client: fixture.client), userId: user)
        await model.load()
        #expect(model.state.value?.count == 2 && Self.kinds.allSatisfy(model.isEnabled), "on until turned off")
        await model.set(Self.kinds[0], enabled: false)
        await model.set(Self.kinds[1], enabled: false)
        #expect(!model.isEnabled(Self.kinds[0]) && model.isEnabled(Self.kinds[1]) && model.actionError != nil)
        let again = NotificationPreferencesViewModel(kinds: Self.kinds, repository: NotificationPreferencesRepository(client: fixture.client), userId: user)
        await again.load()
        #expect(!again.isEnabled(Self.kinds[0]), "stored on the server")
        await again.set(Self.kinds[0], enabled: true)
        #expect(try await NotificationPreferencesRepository(client: fixture.client).load(userId: user).get() == ["early_viral_alert": true])

        let other = fixture.another()
        let stranger = try await other.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        #expect(try await NotificationPreferencesRepository(client: other).load(userId: user).get().isEmpty, "another user's rows are not theirs to read")
        _ = stranger
    }
}

/// Topics through SoarClient: followed, again (no change), unfollowed, each user's own.
@Suite(.timeLimit(.minutes(1))) struct PushTopicsClientTests {
    @Test func followAndUnfollow() async throws {
        let fixture = try ClientFixture()
        _ = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        let topics = PushTopics(client: fixture.client)
        try await topics.follow("news")
        try await topics.follow("brand:abc123")
        try await topics.follow("news")
        #expect(try await topics.followed() == ["brand:abc123", "news"])
        try await topics.unfollow("news")
        #expect(try await topics.followed() == ["brand:abc123"])
        let other = fixture.another()
        _ = try await other.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        #expect(try await PushTopics(client: other).followed().isEmpty)
        let bad = await #expect(throws: AppError.self) { try await topics.follow("has spaces") }
        #expect(bad?.status == 400)
    }

    @Test func aDeviceFollowsByItself() async throws {
        let fixture = try ClientFixture()
        _ = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        let topics = PushTopics(client: fixture.client)
        let token = String(repeating: "AB", count: 32)
        try await topics.follow("scores", onDevice: token)
        try await topics.follow("scores", onDevice: token)
        try await topics.follow("weather", onDevice: token)
        #expect(try await topics.followed(onDevice: token) == ["scores", "weather"], "tokens are kept lowercase, as device_tokens keeps them")
        #expect(try await topics.followed(onDevice: String(repeating: "cd", count: 32)).isEmpty)
        #expect(try await topics.followed().isEmpty, "the user follows nothing")
        try await topics.unfollow("scores", onDevice: token)
        #expect(try await topics.followed(onDevice: token) == ["weather"])
        let bad = await #expect(throws: AppError.self) { try await topics.follow("scores", onDevice: "not hex") }
        #expect(bad?.status == 400)
    }
}
