import Foundation
import SoarCore
import SoarCrypto
import SoarStore

/// Where mail goes: an SMTP server, or the development mailbox.
public protocol Mailer: Sendable {
    func send(_ mail: Mail) throws(AuthError)
}

/// Without SMTP, mail is kept in the database (`GET /auth/v1/mailbox`, service role) and told to
/// the log, as a local Supabase keeps it in its mail catcher.
public struct DevelopmentMailbox: Mailer {
    let store: any AuthStore
    let told: @Sendable (Mail) -> Void

    public init(store: any AuthStore, told: @escaping @Sendable (Mail) -> Void = { _ in }) {
        self.store = store
        self.told = told
    }

    public func send(_ mail: Mail) throws(AuthError) {
        do { try store.addMail(mail) } catch { throw .storeFailed(error) }
        told(mail)
    }
}

/// Where links may send a user back to (GoTrue's `GOTRUE_SITE_URL` and `GOTRUE_URI_ALLOW_LIST`).
public struct Redirects: Sendable {
    /// Where a link goes without an allowed `redirect_to`.
    public var siteURL: String
    /// Other addresses allowed; a trailing `*` allows everything under it.
    public var allowList: [String]

    public init(siteURL: String, allowList: [String] = []) {
        self.siteURL = siteURL
        self.allowList = allowList
    }

    /// `requested` when it is the site or on the list, else the site.
    public func resolve(_ requested: String?) -> String {
        guard let requested, !requested.isEmpty else { return siteURL }
        let allowed = ([siteURL] + allowList).contains { entry in
            entry.hasSuffix("*") ? requested.hasPrefix(String(entry.dropLast())) : (requested == entry || requested.hasPrefix(entry.hasSuffix("/") ? entry : entry + "/"))
        }
        return allowed ? requested : siteURL
    }
}

/// GoTrue's email flows: magic links and 6-digit codes (`/otp`), recovery (`/recover`),
/// `/verify`, and PKCE's code exchange.
extension AuthService {
    /// How long a mailed code or link works (GoTrue's `MAILER_OTP_EXP`).
    public static let codeLifetime: TimeInterval = 3600
    /// How long a PKCE auth code waits for its exchange.
    public static let flowStateLifetime: TimeInterval = 300
    /// How often one address may be mailed (GoTrue's `SMTP_MAX_FREQUENCY`).
    public static let mailInterval: TimeInterval = 60

    /// A PKCE challenge as clients send it (`code_challenge`, `code_challenge_method` s256 or plain).
    public struct Challenge: Sendable {
        public let code: String
        public let method: String
        public init?(code: String?, method: String?) throws(AuthError) {
            guard let code, !code.isEmpty else { return nil }
            let method = (method ?? "s256").lowercased()
            guard ["s256", "plain"].contains(method) else { throw .validation("code_challenge_method must be s256 or plain") }
            guard (43...128).contains(code.count) else { throw .validation("code_challenge must be 43 to 128 characters") }
            self.code = code
            self.method = method
        }
    }

    /// `POST /otp`: mails a link and a code that sign the user in (a new user, unless
    /// `createUser` is false, is made and confirmed by them).
    public func sendSignInCode(email: String, createUser: Bool, data: [String: JSONValue], redirectTo: String?, challenge: Challenge?, address: String) throws(AuthError) {
        try admit(address, by: byAddress)
        let normalized = try Self.normalized(email: email)
        var user = try lookup({ () throws(StoreError) in try store.user(email: normalized) })
        let created = user == nil
        if user == nil {
            guard createUser else { throw AuthError(422, "otp_disabled", "Signups not allowed for otp") }
            var made = AuthUser(id: RandomUUID.lowercase(), createdAt: Timestamp.postgres(now()))
            made.email = normalized
            made.userMetadata = data
            made.appMetadata = ["provider": "email", "providers": ["email"]]
            try checkMetadata(made)
            do { try store.createUser(made) } catch {
                throw error.code == "23505" ? .userAlreadyExists : .storeFailed(error)
            }
            user = made
        }
        guard let user else { return }
        let type = user.emailConfirmedAt == nil ? "signup" : "magiclink"
        let subject = type == "signup" ? "Confirm your email" : "Your sign-in link"
        do throws(AuthError) {
            try mailCode(to: user, type: type, subject: subject, redirectTo: redirectTo, challenge: challenge)
        } catch {
            // A mail that could not be sent leaves no account behind that only it could open.
            if created { _ = try? store.deleteUser(id: user.id) }
            throw error
        }
    }

    /// `POST /recover`: mails a recovery link and code; an unknown email is answered the same, unmailed.
    public func sendRecovery(email: String, redirectTo: String?, challenge: Challenge?, address: String) throws(AuthError) {
        try admit(address, by: byAddress)
        let normalized = try Self.normalized(email: email)
        guard let user = try lookup({ () throws(StoreError) in try store.user(email: normalized) }) else { return }
        try mailCode(to: user, type: "recovery", subject: "Reset your password", redirectTo: redirectTo, challenge: challenge)
    }

    private func mailCode(to user: AuthUser, type: String, subject: String, redirectTo: String?, challenge: Challenge?) throws(AuthError) {
        guard let email = user.email else { throw .validation("the user has no email") }
        let time = now()
        let waited = lastMailed.withLock { last -> TimeInterval? in
            if let sent = last[email], time.timeIntervalSince(sent) < Self.mailInterval { return time.timeIntervalSince(sent) }
            last[email] = time
            return nil
        }
        if let waited {
            var error = AuthError(429, "over_email_send_rate_limit", "For security purposes, you can only request this after \(Int((Self.mailInterval - waited).rounded(.up))) seconds.")
            error.retryAfter = Int((Self.mailInterval - waited).rounded(.up))
            throw error
        }
        let code: String
        do { code = String(format: "%06d", try randomBytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000) } catch {
            throw .internalFailure("cannot make a code: \(error.description)")
        }
        let hash = Self.codeHash(email: email, code: code)
        let token = OneTimeToken(userID: user.id, type: type, hash: hash, challenge: challenge.map { ($0.code, $0.method) }, createdAt: Timestamp.postgres(time))
        do { try store.saveOneTimeToken(token) } catch { throw .storeFailed(error) }
        var link = URLComponents(string: tokens.issuer + "/verify")!
        link.queryItems = [URLQueryItem(name: "token", value: hash), URLQueryItem(name: "type", value: type), URLQueryItem(name: "redirect_to", value: redirects.resolve(redirectTo))]
        let text = """
            \(subject): open \(link.url?.absoluteString ?? "") or enter the code \(code).
            It works once, within an hour. If you did not ask for it, ignore this mail.
            """
        do throws(AuthError) {
            try mailer.send(Mail(to: email, subject: subject, text: text, createdAt: Timestamp.postgres(time)))
        } catch {
            // Not sent: asking again is not held back, and the code cannot be used.
            lastMailed.withLock { $0[email] = nil }
            _ = try? store.takeOneTimeToken(hash: hash, types: [type])
            throw error
        }
    }

    /// GoTrue's token hash: SHA-256 of the email and the code, in hex.
    static func codeHash(email: String, code: String) -> String {
        sha256(Data((email + code).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// What `/verify` did: a session, or (a PKCE request's link) an auth code for the app to exchange.
    public enum Verified: Sendable {
        case session(AuthSession)
        case authCode(String)
    }

    /// `/verify`: a code (with its email) or a link's token hash, once, within the hour; the email
    /// is confirmed by it. `pkce` (a link opened in a browser) answers an auth code when the code
    /// was asked for with a PKCE challenge.
    public func verify(type: String, email: String?, code: String?, tokenHash: String?, pkce: Bool) throws(AuthError) -> Verified {
        let types: [String] = switch type {
        case "magiclink", "signup", "email": ["magiclink", "signup"]
        case "recovery": ["recovery"]
        default: throw .validation("type must be signup, magiclink, email or recovery")
        }
        let hash: String
        if let tokenHash, !tokenHash.isEmpty {
            hash = tokenHash
        } else if let email, let code, !code.isEmpty {
            hash = Self.codeHash(email: try Self.normalized(email: email), code: code.trimmingCharacters(in: .whitespaces))
        } else {
            throw .validation("Verify requires a token or a token hash")
        }
        let expired = AuthError(403, "otp_expired", "Email link is invalid or has expired")
        guard let token = try lookupToken({ () throws(StoreError) in try store.takeOneTimeToken(hash: hash, types: types) }) else { throw expired }
        guard let sent = Timestamp.parse(token.createdAt), now().timeIntervalSince(sent) <= Self.codeLifetime else { throw expired }
        guard var user = try lookup({ () throws(StoreError) in try store.user(id: token.userID) }) else { throw .userNotFound }
        if user.emailConfirmedAt == nil {
            user.emailConfirmedAt = Timestamp.postgres(now())
            do { try store.updateUser(user) } catch { throw .storeFailed(error) }
        }
        let method = token.type == "recovery" ? "recovery" : "otp"
        if pkce, let challenge = token.challenge {
            let state = FlowState(
                authCode: RandomUUID.lowercase(), userID: user.id, challenge: challenge.code, method: challenge.method,
                authenticationMethod: method, createdAt: Timestamp.postgres(now()))
            do { try store.saveFlowState(state) } catch { throw .storeFailed(error) }
            return .authCode(state.authCode)
        }
        return .session(try startSession(for: user, method: method))
    }

    /// `POST /token?grant_type=pkce`: an auth code and the verifier whose challenge asked for it, once.
    public func exchange(authCode: String, verifier: String) throws(AuthError) -> AuthSession {
        guard !authCode.isEmpty, !verifier.isEmpty else { throw .validation("invalid request: both auth code and code verifier should be non-empty") }
        guard let state = try lookupFlow({ () throws(StoreError) in try store.takeFlowState(authCode: authCode) }) else {
            throw AuthError(404, "flow_state_not_found", "invalid flow state, no valid flow state found")
        }
        guard let created = Timestamp.parse(state.createdAt), now().timeIntervalSince(created) <= Self.flowStateLifetime else {
            throw AuthError(400, "flow_state_expired", "invalid flow state, flow state has expired")
        }
        let derived = state.method == "plain" ? verifier : sha256(Data(verifier.utf8)).base64URLEncodedString()
        guard derived == state.challenge else { throw AuthError(400, "bad_code_verifier", "code challenge does not match previously saved code verifier") }
        guard let user = try lookup({ () throws(StoreError) in try store.user(id: state.userID) }) else { throw .userNotFound }
        return try startSession(for: user, method: state.authenticationMethod)
    }

    /// The development mailbox, newest last.
    public func mailbox(limit: Int = 100) throws(AuthError) -> [Mail] {
        do { return try store.mails(limit: limit) } catch { throw .storeFailed(error) }
    }

    private func lookupToken(_ body: () throws(StoreError) -> OneTimeToken?) throws(AuthError) -> OneTimeToken? {
        do { return try body() } catch { throw .storeFailed(error) }
    }

    private func lookupFlow(_ body: () throws(StoreError) -> FlowState?) throws(AuthError) -> FlowState? {
        do { return try body() } catch { throw .storeFailed(error) }
    }
}
