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
    /// An email change waiting for its confirmation mails, and when they went.
    public var newEmail: String?
    public var emailChangeSentAt: String?

    public init(id: String, createdAt: String) {
        self.id = id
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }
}

/// A user's account with a provider (GoTrue's identity): Apple's `sub` for Sign in with Apple.
public struct AuthIdentity: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var provider: String
    public var providerID: String
    public var data: [String: JSONValue]
    public var email: String?
    public var createdAt: String

    public init(id: String, userID: String, provider: String, providerID: String, data: [String: JSONValue], email: String?, createdAt: String) {
        self.id = id
        self.userID = userID
        self.provider = provider
        self.providerID = providerID
        self.data = data
        self.email = email
        self.createdAt = createdAt
    }
}

/// A code mailed to a user (its hash only), and the PKCE challenge the request came with.
public struct OneTimeToken: Sendable, Equatable {
    public var userID: String
    /// `magiclink`, `signup`, `recovery`, `email_change_current` or `email_change_new`.
    public var type: String
    public var hash: String
    public var challenge: (code: String, method: String)?
    public var createdAt: String

    public init(userID: String, type: String, hash: String, challenge: (code: String, method: String)?, createdAt: String) {
        self.userID = userID
        self.type = type
        self.hash = hash
        self.challenge = challenge
        self.createdAt = createdAt
    }

    public static func == (a: OneTimeToken, b: OneTimeToken) -> Bool {
        a.userID == b.userID && a.type == b.type && a.hash == b.hash && a.challenge?.code == b.challenge?.code
            && a.challenge?.method == b.challenge?.method && a.createdAt == b.createdAt
    }
}

/// PKCE's flow state: an auth code, for the user a link signed in, to exchange with its verifier.
public struct FlowState: Sendable, Equatable {
    public var authCode: String
    public var userID: String
    public var challenge: String
    public var method: String
    /// How the user proved it (`magiclink`, `recovery`…).
    public var authenticationMethod: String
    public var createdAt: String

    public init(authCode: String, userID: String, challenge: String, method: String, authenticationMethod: String, createdAt: String) {
        self.authCode = authCode
        self.userID = userID
        self.challenge = challenge
        self.method = method
        self.authenticationMethod = authenticationMethod
        self.createdAt = createdAt
    }
}

/// A second factor (TOTP), as GoTrue keeps one.
public struct MFAFactor: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var friendlyName: String?
    public var type: String
    /// `unverified` until a code from it was verified once, then `verified`.
    public var status: String
    /// The TOTP secret, base32.
    public var secret: String
    public var createdAt: String
    public var updatedAt: String

    public init(id: String, userID: String, friendlyName: String?, type: String, status: String, secret: String, createdAt: String, updatedAt: String) {
        self.id = id
        self.userID = userID
        self.friendlyName = friendlyName
        self.type = type
        self.status = status
        self.secret = secret
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// A signed-in session (GoTrue's `auth.sessions` row): when it began, when its token was last
/// refreshed, and its assurance level.
public struct SessionRecord: Sendable, Equatable {
    public let id: String
    public let createdAt: String
    public let updatedAt: String
    public let aal: String
}

/// A mail kept in the development mailbox.
public struct Mail: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var text: String
    /// The HTML part, when a template file gives one.
    public var html: String?
    public var createdAt: String

    public init(to: String, subject: String, text: String, html: String? = nil, createdAt: String) {
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.createdAt = createdAt
    }
}

/// What presenting a refresh token did.
public enum RefreshOutcome: Sendable, Equatable {
    /// The token was live: it is now used, and the first of the successors is live instead.
    case rotated(userID: String, sessionID: String)
    /// The token was used moments ago (a parallel refresh): the successor at `generation` (0 for
    /// the token's own) is the session's live token, as GoTrue answers with the active one.
    case liveSuccessor(userID: String, sessionID: String, generation: Int)
    /// Used before, outside the grace interval: the whole session was revoked.
    case reused
    case notFound
}

/// GoTrue's storage: users, sessions and refresh tokens.
public protocol AuthStore: Sendable {
    /// Creates the user and, given one, its identity, in one transaction.
    ///
    /// - Throws: 23505 when the email or phone is taken, or the identity belongs to another user.
    func createUser(_ user: AuthUser, identity: AuthIdentity?) throws(StoreError)
    /// Adds an identity to an existing user (linking).
    func createIdentity(_ identity: AuthIdentity) throws(StoreError)
    /// The user a provider's account belongs to, if any.
    func userID(provider: String, providerID: String) throws(StoreError) -> String?

    /// Keeps a mailed code, replacing the user's earlier one of its type.
    func saveOneTimeToken(_ token: OneTimeToken) throws(StoreError)
    /// Takes (and removes) the code with this hash, of one of `types`: each code works once.
    func takeOneTimeToken(hash: String, types: [String]) throws(StoreError) -> OneTimeToken?
    /// Whether the user has a code of `type` waiting.
    func hasOneTimeToken(userID: String, type: String) throws(StoreError) -> Bool
    func saveFlowState(_ state: FlowState) throws(StoreError)
    /// Takes (and removes) a flow state: each auth code is exchanged once.
    func takeFlowState(authCode: String) throws(StoreError) -> FlowState?
    /// The development mailbox: kept mail, oldest first (the newest `limit`).
    func addMail(_ mail: Mail) throws(StoreError)
    func mails(limit: Int) throws(StoreError) -> [Mail]
    func user(id: String) throws(StoreError) -> AuthUser?
    func user(email: String) throws(StoreError) -> AuthUser?
    func updateUser(_ user: AuthUser) throws(StoreError)
    func deleteUser(id: String) throws(StoreError) -> Bool
    func users(offset: Int, limit: Int) throws(StoreError) -> (users: [AuthUser], total: Int)

    /// Opens a session with its first refresh token.
    func createSession(id: String, userID: String, refreshTokenHash: String, now: String, aal: String) throws(StoreError)
    /// A session's assurance level (`aal1`, or `aal2` after a second factor), nil when it is gone.
    func sessionAAL(_ id: String) throws(StoreError) -> String?

    func createFactor(_ factor: MFAFactor) throws(StoreError)
    func factors(userID: String) throws(StoreError) -> [MFAFactor]
    func setFactorStatus(id: String, status: String, now: String) throws(StoreError)
    func deleteFactor(id: String) throws(StoreError)
    func createChallenge(id: String, factorID: String, now: String) throws(StoreError)
    /// Takes (and removes) a challenge: each is verified once. Its factor and when it was made.
    func takeChallenge(id: String) throws(StoreError) -> (factorID: String, createdAt: String)?
    func sessionExists(_ id: String) throws(StoreError) -> Bool
    /// A user's sessions, newest first.
    func sessions(userID: String) throws(StoreError) -> [SessionRecord]
    /// Ends sessions: one (`local`), all of the user's (`global`), or all but one (`others`).
    func deleteSessions(userID: String, only: String?, except: String?) throws(StoreError)
    /// Uses a refresh token once, atomically: see ``RefreshOutcome``. `successorHashes` are the
    /// hashes of the token's successor, that one's successor, and so on (``refreshGenerations``).
    func refresh(tokenHash: String, successorHashes: [String], now: Date, reuseGrace: TimeInterval) throws(StoreError) -> RefreshOutcome
}

extension AuthStore {
    public func createUser(_ user: AuthUser) throws(StoreError) { try createUser(user, identity: nil) }
    public func createSession(id: String, userID: String, refreshTokenHash: String, now: String) throws(StoreError) {
        try createSession(id: id, userID: userID, refreshTokenHash: refreshTokenHash, now: now, aal: "aal1")
    }
}

/// How many successors a refresh looks through for the live one: more rotations than this within
/// the grace interval are not a parallel refresh, and count as reuse.
public let refreshGenerations = 8

extension RefreshOutcome {
    /// A used token presented again: within the grace, the live one of `successors` (found with
    /// their `revoked` flags, nil for one not stored), else reuse.
    static func reusedToken(
        userID: String, sessionID: String, usedAt: Date?, successors revoked: [Bool?], now: Date, reuseGrace: TimeInterval
    ) -> RefreshOutcome {
        guard let usedAt, now.timeIntervalSince(usedAt) <= reuseGrace,
            let generation = revoked.firstIndex(where: { $0 == false })
        else { return .reused }
        return .liveSuccessor(userID: userID, sessionID: sessionID, generation: generation)
    }
}
