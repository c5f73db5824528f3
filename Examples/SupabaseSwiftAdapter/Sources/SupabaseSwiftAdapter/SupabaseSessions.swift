import Foundation
import SoarClient
import Supabase

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// SoarClient's auth seam over supabase-swift's `AuthClient`.
///
/// supabase-swift ends a session before telling anyone, so a session-end handler (the push
/// registrar's wipe) could not act as the ending session: sign out through ``signOut()`` here,
/// which runs the handlers while the token still works, then signs out.
public final class SupabaseSessions: SessionProviding {
    private let client: SupabaseClient
    private let url: URL
    private let key: String
    private let handlers = LockedHandlers()

    public init(client: SupabaseClient, supabaseURL: URL, supabaseKey: String) {
        self.client = client
        url = supabaseURL
        key = supabaseKey
    }

    public var currentSession: AuthSession? { client.auth.currentSession.map(Self.convert) }

    public var session: AuthSession {
        get async throws(AppError) {
            do { return Self.convert(try await client.auth.session) } catch { throw AppError.map(error) }
        }
    }

    public var authStateChanges: AsyncStream<(event: AuthChange, session: AuthSession?)> {
        let changes = client.auth.authStateChanges
        return AsyncStream { continuation in
            let task = Task {
                for await (event, session) in changes {
                    guard let change = Self.convert(event) else { continue }
                    continuation.yield((change, session.map(Self.convert)))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func onSessionEnd(_ handler: @escaping @Sendable (AuthSession) async -> Bool) async {
        handlers.append(handler)
    }

    /// Runs the session-end handlers as the ending session, then signs out with supabase-swift
    /// (`scope: .local`: this device's session ends on the server too; offline, only here, so a
    /// handler's unfinished work can still use its refresh token later).
    public func signOut() async throws {
        guard let ending = currentSession else { return }
        for handler in handlers.all { _ = await handler(ending) }
        try await client.auth.signOut(scope: .local)
    }

    public func exchange(refreshToken: String) async throws(AppError) -> AuthSession {
        // Not through supabase-swift, which would make it the current session.
        let data = try await post("auth/v1/token?grant_type=refresh_token", body: ["refresh_token": refreshToken], bearer: nil)
        do { return try JSONCoding.decode(AuthSession.self, from: data) } catch { throw AppError(.unknown, AppError.Messages.server, original: error) }
    }

    public func revoke(_ other: AuthSession) async {
        _ = try? await post("auth/v1/logout?scope=local", body: [:], bearer: other.accessToken)
    }

    private func post(_ path: String, body: [String: String], bearer: String?) async throws(AppError) -> Data {
        var request = URLRequest(url: URL(string: url.absoluteString.trimmingCharacters(in: ["/"]) + "/" + path)!)
        request.httpMethod = "POST"
        request.setValue(key, forHTTPHeaderField: "apikey")
        request.setValue("Bearer " + (bearer ?? key), forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try? JSONCoding.encode(body)
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status) else { throw AppError(status: status, body: data) }
            return data
        } catch let error as AppError {
            throw error
        } catch {
            throw AppError.map(error)
        }
    }

    static func convert(_ session: Session) -> AuthSession {
        AuthSession(
            accessToken: session.accessToken, tokenType: session.tokenType, expiresIn: Int(session.expiresIn),
            expiresAt: Int(session.expiresAt), refreshToken: session.refreshToken,
            user: AuthUser(id: session.user.id, email: session.user.email, role: session.user.role, isAnonymous: session.user.isAnonymous))
    }

    static func convert(_ event: AuthChangeEvent) -> AuthChange? {
        switch event {
        case .initialSession: .initialSession
        case .signedIn: .signedIn
        case .signedOut: .signedOut
        case .tokenRefreshed: .tokenRefreshed
        default: nil
        }
    }
}

/// The handlers, behind a lock.
private final class LockedHandlers: Sendable {
    private let handlers = Locked<[@Sendable (AuthSession) async -> Bool]>([])
    func append(_ handler: @escaping @Sendable (AuthSession) async -> Bool) { handlers.withLock { $0.append(handler) } }
    var all: [@Sendable (AuthSession) async -> Bool] { handlers.withLock { $0 } }
}
