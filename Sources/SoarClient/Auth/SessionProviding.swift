import Foundation

/// The auth seam the push pipeline runs on: who is signed in, a token that works, the changes,
/// and a say in a session's end. ``SoarAuthClient`` is one; an adapter over supabase-swift's
/// `AuthClient` is another (`Examples/SupabaseSwiftAdapter`).
public protocol SessionProviding: Sendable {
    /// The session at hand, possibly expired; nil when nobody is signed in.
    var currentSession: AuthSession? { get }
    /// The session with a valid access token, refreshed first if needed.
    var session: AuthSession { get async throws(AppError) }
    /// Sign-ins, sign-outs and refreshes, starting with ``AuthChange/initialSession``.
    var authStateChanges: AsyncStream<(event: AuthChange, session: AuthSession?)> { get }
    /// Runs `handler` with a session about to end, while its access token still works; a handler
    /// returns false when its work must be finished later with the session's refresh token.
    func onSessionEnd(_ handler: @escaping @Sendable (AuthSession) async -> Bool) async
    /// A session for a kept refresh token (to finish work after its session ended), unstored.
    func exchange(refreshToken: String) async throws(AppError) -> AuthSession
    /// Ends a session on the server that is not the current one.
    func revoke(_ other: AuthSession) async
}

extension SoarAuthClient: SessionProviding {}
