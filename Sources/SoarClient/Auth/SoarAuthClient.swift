import Foundation
import SoarCore

/// GoTrue's client side: sign-up, sign-in, anonymous sign-in, refresh and sign-out, with the
/// session kept in a ``SecureStore`` and changes streamed to any number of listeners.
///
/// Refreshing is single-flight: callers that need a fresh token while a refresh is under way wait
/// for that one, so a refresh token is used once however many requests race.
public actor SoarAuthClient {
    /// The key the session is kept under in the ``SecureStore``.
    public static let storageKey = "soar.session"

    let backend: Backend
    let store: any SecureStore
    let now: @Sendable () -> Date
    /// A token this close to its expiry is refreshed before it is used.
    let refreshMargin: TimeInterval
    private let events = Broadcast<(event: AuthChange, session: AuthSession?)>()
    private var refreshing: Task<AuthSession, any Error>?
    private var sessionEndHandlers: [@Sendable (AuthSession) async -> Bool] = []
    private let stored: Locked<AuthSession?>

    init(backend: Backend, store: any SecureStore, refreshMargin: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.backend = backend
        self.store = store
        self.refreshMargin = refreshMargin
        self.now = now
        stored = Locked((try? store.data(for: Self.storageKey)).flatMap { try? JSONCoding.decode(AuthSession.self, from: $0) })
    }

    /// The session at hand, or nil when nobody is signed in; its access token may have expired
    /// (``session`` refreshes it).
    public nonisolated var currentSession: AuthSession? { stored.withLock { $0 } }

    /// The signed-in user, or nil.
    public nonisolated var currentUser: AuthUser? { currentSession?.user }

    /// The session with an access token good for at least the refresh margin, refreshed first if
    /// needed (once, however many callers ask at the same time).
    ///
    /// - Throws: ``AppError`` `session_not_found` ("Please sign in again") when nobody is signed
    ///   in; a refused refresh signs out ("Your session has expired"); offline, the network error
    ///   (the session is kept).
    public var session: AuthSession {
        get async throws(AppError) { try await validSession() }
    }

    /// Runs `handler` with a session about to end (a sign-out, or another user signing in), while
    /// its token still works: the push registrar deletes the device's row this way.
    ///
    /// A handler returns false when its work must be finished later with the session's refresh
    /// token; the server's copy of the session is then not revoked on sign-out.
    public func onSessionEnd(_ handler: @escaping @Sendable (AuthSession) async -> Bool) {
        sessionEndHandlers.append(handler)
    }

    /// Sign-ins, sign-outs and refreshes, starting with ``AuthChange/initialSession`` and the
    /// session at hand: `for await (event, session) in client.auth.authStateChanges`.
    public nonisolated var authStateChanges: AsyncStream<(event: AuthChange, session: AuthSession?)> {
        events.stream(startingWith: (.initialSession, currentSession))
    }


    // MARK: signing in and out

    /// Creates an account and signs it in.
    ///
    /// - Throws: ``AppError`` `email_not_confirmed` ("Confirm your email address, then sign in.")
    ///   when the backend requires confirmation: the account is made and a code and link are
    ///   mailed; ``verify(email:code:type:)`` with `.signup` or ``session(from:)`` signs it in.
    @discardableResult
    public func signUp(email: String, password: String) async throws(AppError) -> AuthSession {
        try await begin(Backend.Request(method: "POST", path: "auth/v1/signup", body: Self.json(["email": email, "password": password])))
    }

    /// Signs in with an email address and a password.
    @discardableResult
    public func signIn(email: String, password: String) async throws(AppError) -> AuthSession {
        try await begin(Backend.Request(
            method: "POST", path: "auth/v1/token", query: [URLQueryItem(name: "grant_type", value: "password")],
            body: Self.json(["email": email, "password": password])))
    }

    /// Signs in as a new anonymous user.
    @discardableResult
    public func signInAnonymously() async throws(AppError) -> AuthSession {
        try await begin(Backend.Request(method: "POST", path: "auth/v1/signup", body: Data("{}".utf8)))
    }

    /// Mails a sign-in link and a 6-digit code to `email` (the account is made on first use,
    /// unless `createUser` is false); ``verify(email:code:type:)`` takes the code.
    public func sendSignInCode(email: String, createUser: Bool = true) async throws(AppError) {
        let body = (try? JSONSerialization.data(withJSONObject: ["email": email, "create_user": createUser], options: [.sortedKeys])) ?? Data()
        _ = try await backend.send(Backend.Request(method: "POST", path: "auth/v1/otp", body: body), bearer: nil)
    }

    /// Mails a password-recovery code to `email`; ``verify(email:code:type:)`` with `.recovery`
    /// signs the user in to set a new password. An unknown address is answered the same.
    public func sendPasswordRecovery(email: String) async throws(AppError) {
        _ = try await backend.send(Backend.Request(method: "POST", path: "auth/v1/recover", body: Self.json(["email": email])), bearer: nil)
    }

    /// What a mailed code was for: a sign-in (`email`), a sign-up's confirmation, or recovery.
    public enum CodeType: String, Sendable {
        case email, signup, recovery
    }

    /// Signs in with a mailed 6-digit code (once, within the hour).
    @discardableResult
    public func verify(email: String, code: String, type: CodeType = .email) async throws(AppError) -> AuthSession {
        try await begin(Backend.Request(
            method: "POST", path: "auth/v1/verify", body: Self.json(["email": email, "token": code, "type": type.rawValue])))
    }

    /// Signs in with Apple: the identity token `ASAuthorizationAppleIDCredential` gave, and the
    /// raw nonce whose SHA-256 the request to Apple carried (nil when it carried none).
    @discardableResult
    public func signInWithApple(idToken: String, nonce: String?) async throws(AppError) -> AuthSession {
        var fields = ["provider": "apple", "id_token": idToken]
        if let nonce { fields["nonce"] = nonce }
        return try await begin(Backend.Request(
            method: "POST", path: "auth/v1/token", query: [URLQueryItem(name: "grant_type", value: "id_token")], body: Self.json(fields)))
    }

    /// Signs out: the server revokes this session's refresh tokens when it can be reached; the
    /// local session is gone either way.
    public func signOut() async {
        guard var ending = currentSession else { return }
        if let valid = try? await validSession() { ending = valid }
        // Someone else signed in while the token was refreshed: their session stays.
        guard currentSession?.user.id == ending.user.id else { return }
        // Gone locally first, so nothing registers for this user while the handlers run.
        replace(nil, .signedOut)
        if await endSession(ending) { await revoke(ending) }
    }

    // MARK: tokens

    /// The session with an access token good for at least the refresh margin, refreshing first
    /// when needed.
    ///
    /// - Throws: ``AppError`` `session_not_found` when nobody is signed in; a network error when a
    ///   needed refresh could not reach the server (the session is kept); `session_expired` when
    ///   the server refused the refresh token (the session is gone).
    func validSession() async throws(AppError) -> AuthSession {
        guard let current = currentSession else { throw AppError(authCode: "session_not_found") }
        if current.expiry.timeIntervalSince(now()) > refreshMargin { return current }
        return try await refresh()
    }

    /// Exchanges the refresh token for a new session; concurrent callers share one exchange.
    @discardableResult
    public func refresh() async throws(AppError) -> AuthSession {
        if let refreshing { return try await Self.value(of: refreshing) }
        guard let current = currentSession else { throw AppError(authCode: "session_not_found") }
        let task = Task { try await self.exchange(current) }
        refreshing = task
        defer { refreshing = nil }
        return try await Self.value(of: task)
    }

    private func exchange(_ current: AuthSession) async throws(AppError) -> AuthSession {
        let fresh: AuthSession
        do throws(AppError) {
            fresh = try await exchange(refreshToken: current.refreshToken)
        } catch where error.code == .authentication || error.status == 400 {
            // Revoked or expired on the server: the session ends here, its handlers still run (in
            // a task of their own: the caller may be one of them, waiting on this refresh).
            if currentSession?.refreshToken == current.refreshToken {
                replace(nil, .signedOut)
                Task { _ = await self.endSession(current) }
            }
            throw AppError(authCode: "session_expired", original: error)
        }
        // A sign-out or another sign-in while the refresh was in flight wins.
        guard currentSession?.refreshToken == current.refreshToken else {
            await revoke(fresh)
            throw AppError(authCode: "session_not_found")
        }
        replace(fresh, .tokenRefreshed)
        return fresh
    }

    /// A new session for a refresh token that is not the current session's (a session kept to
    /// finish work after it ended); nothing is stored and no event is sent.
    public func exchange(refreshToken: String) async throws(AppError) -> AuthSession {
        let request = Backend.Request(
            method: "POST", path: "auth/v1/token", query: [URLQueryItem(name: "grant_type", value: "refresh_token")],
            body: Self.json(["refresh_token": refreshToken]))
        return try Self.session(from: try await backend.send(request, bearer: nil))
    }

    /// Ends a session on the server that is not the current one.
    public func revoke(_ other: AuthSession) async {
        _ = try? await backend.send(
            Backend.Request(method: "POST", path: "auth/v1/logout", query: [URLQueryItem(name: "scope", value: "local")]),
            bearer: other.accessToken)
    }

    // MARK: helpers

    /// Runs the session-end handlers; true when all of them finished.
    private func endSession(_ ending: AuthSession) async -> Bool {
        var finished = true
        for handler in sessionEndHandlers where !(await handler(ending)) { finished = false }
        return finished
    }

    func begin(_ request: Backend.Request, bearer: String? = nil) async throws(AppError) -> AuthSession {
        try await begin(data: try await backend.send(request, bearer: bearer))
    }

    /// Signs in with a session answer (GoTrue's JSON).
    func begin(data: Data) async throws(AppError) -> AuthSession {
        guard let new = try? JSONCoding.decode(AuthSession.self, from: data) else {
            // A project that confirms email addresses answers a sign-up with the user alone.
            if (try? JSONValue.read(data).objectValue?["id"]) != nil { throw AppError(authCode: "email_not_confirmed") }
            throw AppError(.unknown, AppError.Messages.server, original: HTTPFailure(status: 200, body: data))
        }
        try await adopt(new)
        return new
    }

    /// Makes `new` the current session; a switch to another user ends the old one, as a sign-out would.
    ///
    /// - Throws: ``AppError`` when the session works but could not be kept in the ``SecureStore``
    ///   (the next launch would start signed out).
    func adopt(_ new: AuthSession) async throws(AppError) {
        let old = currentSession
        let unsaved = replace(new, .signedIn)
        if let old, old.user.id != new.user.id, await endSession(old) { await revoke(old) }
        if let unsaved {
            throw AppError(.unknown, "Signed in, but the session could not be kept on this device, so the next launch starts signed out.", original: unsaved)
        }
    }

    /// - Returns: why the session could not be stored, if it could not.
    @discardableResult
    private func replace(_ new: AuthSession?, _ kind: AuthChange) -> (any Error)? {
        stored.withLock { $0 = new }
        var unsaved: (any Error)?
        do {
            if let new { try store.set(try JSONCoding.encode(new), for: Self.storageKey) } else { try store.remove(Self.storageKey) }
        } catch {
            unsaved = error
        }
        events.yield((kind, new))
        return unsaved
    }

    private static func session(from data: Data) throws(AppError) -> AuthSession {
        do {
            return try JSONCoding.decode(AuthSession.self, from: data)
        } catch {
            throw AppError(.unknown, AppError.Messages.server, original: error)
        }
    }

    private static func value(of task: Task<AuthSession, any Error>) async throws(AppError) -> AuthSession {
        do { return try await task.value } catch { throw AppError.map(error) }
    }

    static func json(_ object: [String: String]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }
}
