import Foundation
import SoarCore
import SoarCrypto
import SoarStore

/// GoTrue's behaviour over an ``AuthStore``: sign-up, sign-in, refresh rotation, users, sign-out.
public final class AuthService: Sendable {
    public struct Limits: Sendable {
        /// Sign-up, sign-in and mail requests per client IP (Supabase's default: 30 per 5 minutes).
        public var perAddress = 30
        /// Codes and links verified per client IP (GoTrue's `RATE_LIMIT_VERIFY`): a 6-digit code
        /// cannot be guessed by trying them all.
        public var verifyPerAddress = 30
        /// Refreshes per client IP (GoTrue's `RATE_LIMIT_TOKEN_REFRESH`).
        public var refreshPerAddress = 150
        /// Failed password sign-ins per email from one client address: whoever guesses slows only
        /// themselves, never the account's owner signing in from elsewhere.
        public var perEmail = 10
        public var window: TimeInterval = 300
        /// How long a used refresh token may be presented again (parallel refreshes) before it counts as reuse.
        public var reuseGrace: TimeInterval = 10

        public init() {}
    }

    public let store: any AuthStore
    public let tokens: Tokens
    public let hasher: any PasswordHashing
    public let limits: Limits
    public let now: @Sendable () -> Date
    let byAddress: RateLimiter
    let verifications: RateLimiter
    private let refreshes: RateLimiter
    private let byEmail: RateLimiter
    /// When each address was last mailed (a code or link), for ``mailInterval``.
    let lastMailed = Locked([String: Date]())
    /// Where mail goes, where its links may lead, what it says.
    let mailer: any Mailer
    public let redirects: Redirects
    let templates: MailTemplates
    /// Whether sign-ups and email changes wait for a mailed confirmation.
    public let confirmationRequired: Bool
    /// How often one address may be mailed (GoTrue's `GOTRUE_SMTP_MAX_FREQUENCY`).
    let mailInterval: TimeInterval
    /// A hash of no one's password: an unknown email costs a sign-in the same work as a wrong
    /// password, so the answer's timing does not tell whether the email is registered.
    private let decoy: String
    /// Sign in with Apple, when the app's ids are configured.
    public let apple: AppleSignIn?

    /// The most either metadata object may take as JSON: both ride in every access token, which
    /// rides in every request's headers.
    public static let metadataLimit = 4096

    public init(
        store: any AuthStore, tokens: Tokens, hasher: any PasswordHashing = PasswordHasher(), limits: Limits = Limits(),
        apple: AppleSignIn? = nil, email: EmailSettings = EmailSettings(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.apple = apple
        mailer = email.mailer ?? DevelopmentMailbox(store: store)
        let site = email.redirects?.siteURL.isEmpty == false ? email.redirects?.siteURL : nil
        redirects = Redirects(siteURL: site ?? tokens.issuer.replacingOccurrences(of: "/auth/v1", with: ""), allowList: email.redirects?.allowList ?? [])
        templates = email.templates
        confirmationRequired = email.confirmationRequired
        mailInterval = email.mailInterval
        self.store = store
        self.tokens = tokens
        self.hasher = hasher
        self.limits = limits
        self.now = now
        byAddress = RateLimiter(limit: limits.perAddress, window: limits.window)
        verifications = RateLimiter(limit: limits.verifyPerAddress, window: limits.window)
        refreshes = RateLimiter(limit: limits.refreshPerAddress, window: limits.window)
        byEmail = RateLimiter(limit: limits.perEmail, window: limits.window)
        decoy = (try? hasher.hash(RandomUUID.lowercase())) ?? ""
    }

    /// 400 for metadata over ``metadataLimit``.
    func checkMetadata(_ user: AuthUser) throws(AuthError) {
        for (name, value) in [("user_metadata", user.userMetadata), ("app_metadata", user.appMetadata)]
        where JSONValue.object(value).jsonText.utf8.count > Self.metadataLimit {
            throw .validation("\(name) is over \(Self.metadataLimit) bytes as JSON (it rides in every access token)")
        }
    }

    // MARK: signing in

    /// Counts an attempt for `key`; over the limit, a 429 saying when to try again.
    func admit(_ key: String, by limiter: RateLimiter) throws(AuthError) {
        let time = now()
        guard limiter.allow(key, now: time) else { throw .rateLimited(retryAfter: limiter.retryAfter(key, now: time)) }
    }

    /// What `POST /signup` made: a signed-in session, or (confirmation required) a user waiting
    /// for the mailed link or code.
    public enum SignUp: Sendable {
        case session(AuthSession)
        case awaitingConfirmation(AuthUser)

        public var json: JSONValue {
            switch self {
            case .session(let session): session.json
            case .awaitingConfirmation(let user): user.json
            }
        }
    }

    /// `POST /signup`: an email user (signed in at once, unless confirmation is required) or, with
    /// neither email nor phone, an anonymous one.
    public func signUp(
        email: String?, password: String?, data: [String: JSONValue], redirectTo: String? = nil, challenge: Challenge? = nil, address: String
    ) throws(AuthError) -> SignUp {
        try admit(address, by: byAddress)
        let time = Timestamp.postgres(now())
        var user = AuthUser(id: RandomUUID.lowercase(), createdAt: time)
        user.userMetadata = data
        if let email {
            let address = try Self.normalized(email: email)
            guard let password else { throw .validation("Signup requires a valid password") }
            try checkStrength(password)
            if confirmationRequired, let existing = try lookup({ () throws(StoreError) in try store.user(email: address) }) {
                return try signUpAgain(existing, redirectTo: redirectTo, challenge: challenge)
            }
            user.email = address
            user.passwordHash = try hasher.hash(password)
            user.emailConfirmedAt = confirmationRequired ? nil : time
            user.appMetadata = ["provider": "email", "providers": ["email"]]
        } else {
            user.isAnonymous = true
            user.appMetadata = [:]
        }
        try checkMetadata(user)
        do { try store.createUser(user) } catch {
            throw error.code == "23505" ? .userAlreadyExists : .storeFailed(error)
        }
        guard confirmationRequired, !user.isAnonymous else {
            return .session(try startSession(for: user, method: user.isAnonymous ? "anonymous" : "password"))
        }
        do throws(AuthError) {
            try mailCode(.confirmation, type: "signup", to: user, redirectTo: redirectTo, challenge: challenge)
        } catch {
            // Unmailed, the account could never be confirmed: it is not kept.
            _ = try? store.deleteUser(id: user.id)
            throw error
        }
        return .awaitingConfirmation(user)
    }

    /// `POST /token?grant_type=password`.
    public func signIn(email: String, password: String, address: String) throws(AuthError) -> AuthSession {
        let normalized = try Self.normalized(email: email)
        try admit(address, by: byAddress)
        let guesses = address + " " + normalized
        try admit(guesses, by: byEmail)
        let user = try lookup({ () throws(StoreError) in try store.user(email: normalized) })
        guard hasher.verify(password, against: user?.passwordHash ?? decoy), let user, user.passwordHash != nil else {
            throw .invalidCredentials
        }
        byEmail.forgive(guesses)  // the per-email limit counts failed attempts
        guard user.emailConfirmedAt != nil || user.isAnonymous else { throw AuthError(400, "email_not_confirmed", "Email not confirmed") }
        var signedIn = user
        if let stored = user.passwordHash, hasher.needsRehash(stored), let renewed = try? hasher.hash(password) {
            // An older scheme or cost, upgraded now that the password is at hand (best effort).
            signedIn.passwordHash = renewed
            _ = try? store.updateUser(signedIn)
        }
        return try startSession(for: signedIn, method: "password")
    }

    /// `POST /token?grant_type=id_token`: Sign in with Apple. The identity's user is signed in; a
    /// new Apple account becomes a user, or joins the user whose confirmed email it verifies (as
    /// GoTrue links identities).
    public func signInWithIDToken(provider: String, token: String, nonce: String?, address: String) throws(AuthError) -> AuthSession {
        try admit(address, by: byAddress)
        guard ["apple", AppleSignIn.issuer].contains(provider) else { throw .oauth("Custom OIDC provider \"\(provider)\" not allowed") }
        guard let apple else {
            throw AuthError(400, "provider_disabled", "Unsupported provider: Sign in with Apple is not enabled (set GOTRUE_EXTERNAL_APPLE_CLIENT_ID)")
        }
        let identity = try apple.verify(token, nonce: nonce, now: now())
        if let id = try lookupID({ () throws(StoreError) in try store.userID(provider: "apple", providerID: identity.subject) }),
            let user = try lookup({ () throws(StoreError) in try store.user(id: id) })
        {
            return try startSession(for: user, method: "oauth")
        }
        let time = Timestamp.postgres(now())
        var data: [String: JSONValue] = ["iss": .string(AppleSignIn.issuer), "sub": .string(identity.subject), "provider_id": .string(identity.subject)]
        if let email = identity.email {
            data["email"] = .string(email)
            data["email_verified"] = .bool(identity.emailVerified)
        }
        var record = AuthIdentity(
            id: RandomUUID.lowercase(), userID: "", provider: "apple", providerID: identity.subject, data: data, email: identity.email, createdAt: time)
        if let email = identity.email, identity.emailVerified, var existing = try lookup({ () throws(StoreError) in try store.user(email: email) }),
            existing.emailConfirmedAt != nil
        {
            record.userID = existing.id
            var providers = existing.appMetadata["providers"]?.arrayValue ?? []
            if !providers.contains("apple") { providers.append("apple") }
            existing.appMetadata["providers"] = .array(providers)
            do {
                try store.createIdentity(record)
                try store.updateUser(existing)
            } catch {
                throw .storeFailed(error)
            }
            return try startSession(for: existing, method: "oauth")
        }
        var user = AuthUser(id: RandomUUID.lowercase(), createdAt: time)
        user.email = identity.email
        user.emailConfirmedAt = identity.emailVerified ? time : nil
        user.appMetadata = ["provider": "apple", "providers": ["apple"]]
        user.userMetadata = data
        record.userID = user.id
        do { try store.createUser(user, identity: record) } catch {
            throw error.code == "23505" ? .emailExists : .storeFailed(error)
        }
        return try startSession(for: user, method: "oauth")
    }

    /// `POST /token?grant_type=refresh_token`: single use, rotated, with GoTrue's reuse detection.
    public func refresh(_ refreshToken: String, address: String) throws(AuthError) -> AuthSession {
        try admit(address, by: refreshes)
        guard !refreshToken.isEmpty else { throw .refreshTokenNotFound }
        let successors = try self.successors(of: refreshToken)
        let outcome: RefreshOutcome
        do {
            outcome = try store.refresh(
                tokenHash: Self.hash(refreshToken), successorHashes: successors.map(Self.hash), now: now(), reuseGrace: limits.reuseGrace)
        } catch {
            throw .storeFailed(error)
        }
        let userID: String, sessionID: String, live: String
        switch outcome {
        case .notFound: throw .refreshTokenNotFound
        case .reused: throw .refreshTokenAlreadyUsed
        case .rotated(let user, let session): (userID, sessionID, live) = (user, session, successors[0])
        case .liveSuccessor(let user, let session, let generation): (userID, sessionID, live) = (user, session, successors[generation])
        }
        guard let user = try lookup({ () throws(StoreError) in try store.user(id: userID) }) else { throw .refreshTokenNotFound }
        // A session that passed a second factor keeps its level across refreshes.
        let aal: String
        do { aal = try store.sessionAAL(sessionID) ?? "aal1" } catch { throw .storeFailed(error) }
        return try session(for: user, sessionID: sessionID, refreshToken: live, method: "token_refresh", aal: aal)
    }

    /// The token's successor, that one's, and so on (``refreshGenerations`` of them). Each is derived
    /// from the one before with the server's secret, so that a token refreshed twice in parallel gets
    /// the same successor both times (the store keeps only hashes), and a client that lost an answer
    /// gets the session's live token back within the grace, not a second line of tokens.
    func successors(of refreshToken: String) throws(AuthError) -> [String] {
        var chain: [String] = []
        var token = refreshToken
        for _ in 0..<refreshGenerations {
            do {
                token = try hmacSHA256(key: tokens.secret, message: Data(("refresh-successor:" + token).utf8)).prefix(24).base64URLEncodedString()
            } catch {
                throw .internalFailure("cannot make a refresh token: \(error.description)")
            }
            chain.append(token)
        }
        return chain
    }

    /// `POST /admin/users`: a user created by the service role, not signed in.
    /// What a user imported from elsewhere keeps: its id, and its password hash (bcrypt from
    /// Supabase, Argon2id, or Soar's PBKDF2), upgraded at the first sign-in.
    public struct Imported: Sendable {
        public var id: String?
        public var passwordHash: String?
        public init(id: String? = nil, passwordHash: String? = nil) {
            self.id = id
            self.passwordHash = passwordHash
        }
    }

    public func createUser(
        email: String, password: String?, userMetadata: [String: JSONValue], appMetadata: [String: JSONValue], confirmed: Bool,
        imported: Imported = Imported()
    ) throws(AuthError) -> AuthUser {
        let time = Timestamp.postgres(now())
        var user = AuthUser(id: RandomUUID.lowercase(), createdAt: time)
        if let id = imported.id {
            guard let parsed = RandomUUID.parse(id), parsed != UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) else {
                throw .validation("ID must conform to the uuid v4 format")
            }
            user.id = parsed.uuidString.lowercased()
        }
        user.email = try Self.normalized(email: email)
        if let hash = imported.passwordHash {
            guard password == nil else { throw .validation("Only a password or a password hash should be provided") }
            guard hasher.recognizes(hash) else { throw .validation("Invalid password hash: give a bcrypt ($2a$, $2b$, $2y$) or Argon2id hash") }
            user.passwordHash = hash
        } else if let password {
            try checkStrength(password)
            user.passwordHash = try hasher.hash(password)
        }
        user.emailConfirmedAt = confirmed ? time : nil
        user.appMetadata = (["provider": "email", "providers": ["email"]] as [String: JSONValue]).merging(appMetadata) { $1 }
        user.userMetadata = userMetadata
        try checkMetadata(user)
        do { try store.createUser(user) } catch {
            throw error.code == "23505" ? .emailExists : .storeFailed(error)
        }
        return user
    }

    // MARK: the signed-in user

    /// The token's user, after checking that its session still exists (signed-out tokens are refused at once).
    public func authenticate(_ bearer: String?) throws(AuthError) -> (user: AuthUser, sessionID: String?) {
        guard let bearer, !bearer.isEmpty else { throw .noAuthorization }
        let verified: VerifiedToken
        do { verified = try tokens.verify(bearer, now: now()) } catch { throw .badJWT(error.description) }
        guard let id = verified.access.userID else { throw .badJWT("not a user's token (role \(verified.access.role.rawValue))") }
        if let session = verified.sessionID, !(try sessionLive(session)) { throw .sessionNotFound }
        guard let user = try lookup({ () throws(StoreError) in try store.user(id: id) }) else { throw .userNotFound }
        return (user, verified.sessionID)
    }

    /// Whether a session has not been signed out.
    public func sessionLive(_ id: String) throws(AuthError) -> Bool {
        do { return try store.sessionExists(id) } catch { throw .storeFailed(error) }
    }

    /// `PUT /user`: email (see ``requestEmailChange(_:to:redirectTo:challenge:)``), password and
    /// `data` (merged into user_metadata).
    public func update(
        _ user: AuthUser, email: String?, password: String?, data: [String: JSONValue]?, redirectTo: String? = nil, challenge: Challenge? = nil
    ) throws(AuthError) -> AuthUser {
        var user = user
        var mailChangeTo: String?
        if let email, case let address = try Self.normalized(email: email), address != user.email {
            if !user.isAnonymous || confirmationRequired {
                mailChangeTo = address
            } else {
                user.email = address
                user.emailConfirmedAt = user.emailConfirmedAt ?? Timestamp.postgres(now())
                if user.isAnonymous { user.appMetadata = ["provider": "email", "providers": ["email"]] }
            }
        }
        if let password {
            try checkStrength(password)
            user.passwordHash = try hasher.hash(password)
        }
        if user.email != nil && user.passwordHash != nil { user.isAnonymous = false }
        if let data { user.userMetadata.merge(data) { $1 } }
        try checkMetadata(user)
        user.updatedAt = Timestamp.postgres(now())
        do { try store.updateUser(user) } catch {
            throw error.code == "23505" ? .emailExists : .storeFailed(error)
        }
        if let mailChangeTo { user = try requestEmailChange(user, to: mailChangeTo, redirectTo: redirectTo, challenge: challenge) }
        return user
    }

    /// `POST /logout?scope=`: `local` ends this session, `global` all of the user's, `others` all but this one.
    public func signOut(userID: String, sessionID: String?, scope: String) throws(AuthError) {
        do {
            switch scope {
            case "global": try store.deleteSessions(userID: userID, only: nil, except: nil)
            case "local": if let sessionID { try store.deleteSessions(userID: userID, only: sessionID, except: nil) }
            case "others": try store.deleteSessions(userID: userID, only: nil, except: sessionID ?? "")
            default: throw AuthError.validation("scope must be global, local or others")
            }
        } catch let error as AuthError {
            throw error
        } catch {
            throw .storeFailed(error)
        }
    }

    // MARK: helpers

    func startSession(for user: AuthUser, method: String, aal: String = "aal1") throws(AuthError) -> AuthSession {
        let refreshToken = try Self.newRefreshToken()
        let sessionID = RandomUUID.lowercase()
        let time = Timestamp.postgres(now())
        do {
            try store.createSession(id: sessionID, userID: user.id, refreshTokenHash: Self.hash(refreshToken), now: time, aal: aal)
        } catch {
            throw .storeFailed(error)
        }
        var user = user
        user.lastSignInAt = time
        return try session(for: user, sessionID: sessionID, refreshToken: refreshToken, method: method, aal: aal)
    }

    private func session(for user: AuthUser, sessionID: String, refreshToken: String, method: String, aal: String = "aal1") throws(AuthError) -> AuthSession {
        let (token, expiresAt) = try tokens.accessToken(for: user, sessionID: sessionID, method: method, aal: aal, now: now())
        return AuthSession(
            accessToken: token, refreshToken: refreshToken, expiresIn: tokens.lifetime, expiresAt: expiresAt, user: user, factors: try factorsOf(user.id))
    }

    func checkStrength(_ password: String) throws(AuthError) {
        guard password.count >= hasher.minimumLength else { throw .weakPassword(hasher.minimumLength) }
    }

    func lookup(_ body: () throws(StoreError) -> AuthUser?) throws(AuthError) -> AuthUser? {
        do { return try body() } catch { throw .storeFailed(error) }
    }

    func lookupID(_ body: () throws(StoreError) -> String?) throws(AuthError) -> String? {
        do { return try body() } catch { throw .storeFailed(error) }
    }

    static func normalized(email: String) throws(AuthError) -> String {
        let trimmed = email.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            trimmed.count <= 255, !trimmed.contains(where: { $0.isWhitespace }),
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw AuthError(400, "validation_failed", "Unable to validate email address: invalid format") }
        return trimmed
    }

    static func newRefreshToken() throws(AuthError) -> String {
        do { return try randomBytes(24).base64URLEncodedString() } catch { throw .internalFailure("cannot make a refresh token: \(error.description)") }
    }

    static func hash(_ refreshToken: String) -> String {
        sha256(Data(refreshToken.utf8)).hexEncodedString()
    }
}
