import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct AuthClientTests {
    @Test func signUpSignInAndSignOutStreamTheirEvents() async throws {
        let fixture = try ClientFixture()
        let auth = fixture.client.auth
        var events = auth.authStateChanges.makeAsyncIterator()
        #expect(await events.next().map { $0.event == .initialSession && $0.session == nil } == true)
        let email = ClientFixture.email()
        let session = try await auth.signUp(email: email, password: "correct-horse")
        #expect(session.user.email == email && session.accessToken.hasPrefix("ey") && session.tokenType == "bearer")
        #expect(await events.next()?.event == .signedIn)
        await auth.signOut()
        #expect(await events.next().map { $0.event == .signedOut && $0.session == nil } == true)
        #expect(auth.currentSession == nil)
        let again = try await auth.signIn(email: email, password: "correct-horse")
        #expect(again.user.id == session.user.id)
        #expect(await events.next()?.event == .signedIn)
    }

    @Test func wrongPasswordsAndDuplicatesReadAsFriendlyErrors() async throws {
        let fixture = try ClientFixture()
        let email = ClientFixture.email()
        try await fixture.client.auth.signUp(email: email, password: "correct-horse")
        await #expect(throws: AppError(.authentication, "Incorrect email or password")) {
            try await fixture.client.auth.signIn(email: email, password: "wrong-horse")
        }
        await #expect(throws: AppError(.validation, "An account with that email already exists.")) {
            try await fixture.another().auth.signUp(email: email, password: "correct-horse")
        }
        let offline = Soar(supabaseURL: URL(string: "http://127.0.0.1:1")!, supabaseKey: fixture.server.anonKey, store: InMemorySecureStore())
        await #expect(throws: AppError(.network, AppError.Messages.offline)) {
            try await offline.auth.signIn(email: email, password: "correct-horse")
        }
    }

    @Test func anonymousSignInGivesAUserWithoutAnEmail() async throws {
        let fixture = try ClientFixture()
        let session = try await fixture.client.auth.signInAnonymously()
        #expect(session.user.email == nil || session.user.email == "")
        #expect(session.user.isAnonymous == true)
    }

    @Test func theSessionIsKeptInA0600FileAndRestored() async throws {
        let fixture = try ClientFixture()
        let directory = TemporaryDirectory("soar-client")
        let store = FileSecureStore(directory: URL(fileURLWithPath: directory.path + "/secrets"))
        let url = URL(string: fixture.server.url)!
        let first = Soar(supabaseURL: url, supabaseKey: fixture.server.anonKey, store: store)
        let session = try await first.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        let file = directory.path + "/secrets/soar.session"
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let relaunched = Soar(supabaseURL: url, supabaseKey: fixture.server.anonKey, store: store)
        #expect(relaunched.auth.currentSession == session)
        await relaunched.auth.signOut()
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test func parallelCallsNearExpiryRefreshOnce() async throws {
        let time = ManualTime(Date())
        let fixture = try ClientFixture(now: time.now)
        let auth = fixture.client.auth
        let session = try await auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        let todos = fixture.client.from("todos").select()
        _ = try await todos.execute()
        #expect(fixture.requests(containing: "grant_type=refresh_token") == 0, "a fresh token is not refreshed")
        time.advance(by: TimeInterval(session.expiresIn - 30))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { _ = try await todos.execute() } }
            try await group.waitForAll()
        }
        #expect(fixture.requests(containing: "grant_type=refresh_token") == 1, "ten requests, one refresh")
        let refreshed = try #require(auth.currentSession)
        #expect(refreshed.refreshToken != session.refreshToken && refreshed.user.id == session.user.id)
    }

    @Test func aRevokedRefreshTokenEndsTheSessionAsExpired() async throws {
        let time = ManualTime(Date())
        let fixture = try ClientFixture(now: time.now)
        let auth = fixture.client.auth
        let session = try await auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        // Another device signs the user out everywhere.
        let answer = try await fixture.server.call("POST", "/auth/v1/logout?scope=global", bearer: session.accessToken)
        #expect(answer.status == 204)
        var events = auth.authStateChanges.makeAsyncIterator()
        _ = await events.next()
        time.advance(by: TimeInterval(session.expiresIn))
        await #expect(throws: AppError(authCode: "session_expired")) { try await auth.session }
        #expect(auth.currentSession == nil)
        #expect(await events.next().map { $0.event == .signedOut && $0.session == nil } == true)
    }

    @Test func anOfflineRefreshKeepsTheSession() async throws {
        let time = ManualTime(Date())
        let fixture = try ClientFixture(now: time.now)
        let session = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        time.advance(by: TimeInterval(session.expiresIn))
        fixture.transport.offline = true
        await #expect(throws: AppError(.network, AppError.Messages.offline)) { try await fixture.client.auth.session }
        #expect(fixture.client.auth.currentSession == session)
    }
}
