import Foundation
import SoarCore

/// A user as GoTrue keeps one.
public struct AuthUser: Sendable, Equatable {
    public var id: String
    public var aud = "authenticated"
    public var role = "authenticated"
    public var email: String?
    public var phone: String?
    /// `pbkdf2-sha256$iterations$salt$hash`; nil for anonymous users.
    public var passwordHash: String?
    public var isAnonymous = false
    public var appMetadata: [String: JSONValue] = [:]
    public var userMetadata: [String: JSONValue] = [:]
    public var emailConfirmedAt: String?
    public var lastSignInAt: String?
    public var createdAt: String
    public var updatedAt: String

    public init(id: String, createdAt: String) {
        self.id = id
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }
}

/// What presenting a refresh token did.
public enum RefreshOutcome: Sendable, Equatable {
    /// The token was live: it is now used, and `newTokenHash` is its successor.
    case rotated(userID: String, sessionID: String)
    /// The token was used moments ago (a parallel refresh): a sibling successor was issued.
    case reissuedWithinGrace(userID: String, sessionID: String)
    /// Used before, outside the grace interval: the whole session was revoked.
    case reused
    case notFound
}

/// GoTrue's storage: users, sessions and refresh tokens.
public protocol AuthStore: Sendable {
    /// - Throws: 23505 when the email or phone is taken.
    func createUser(_ user: AuthUser) throws(StoreError)
    func user(id: String) throws(StoreError) -> AuthUser?
    func user(email: String) throws(StoreError) -> AuthUser?
    func updateUser(_ user: AuthUser) throws(StoreError)
    func deleteUser(id: String) throws(StoreError) -> Bool
    func users(offset: Int, limit: Int) throws(StoreError) -> (users: [AuthUser], total: Int)

    /// Opens a session with its first refresh token.
    func createSession(id: String, userID: String, refreshTokenHash: String, now: String) throws(StoreError)
    func sessionExists(_ id: String) throws(StoreError) -> Bool
    /// Ends sessions: one (`local`), all of the user's (`global`), or all but one (`others`).
    func deleteSessions(userID: String, only: String?, except: String?) throws(StoreError)
    /// Uses a refresh token once, atomically: see ``RefreshOutcome``.
    func refresh(tokenHash: String, successorHash: String, now: Date, reuseGrace: TimeInterval) throws(StoreError) -> RefreshOutcome
}
