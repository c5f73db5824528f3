import Foundation
import SoarCore
import SoarCrypto
import SoarStore

/// GoTrue's email flows: magic links and 6-digit codes (`/otp`), recovery (`/recover`),
/// `/verify`, and PKCE's code exchange.
extension AuthService {
    /// How long a mailed code or link works (GoTrue's `MAILER_OTP_EXP`).
    public static let codeLifetime: TimeInterval = 3600
    /// How long a PKCE auth code waits for its exchange.
    public static let flowStateLifetime: TimeInterval = 300

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
        let confirming = user.emailConfirmedAt == nil
        do throws(AuthError) {
            try mailCode(confirming ? .confirmation : .magicLink, type: confirming ? "signup" : "magiclink", to: user, redirectTo: redirectTo, challenge: challenge)
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
        try mailCode(.recovery, type: "recovery", to: user, redirectTo: redirectTo, challenge: challenge)
    }

    /// `POST /resend`: the sign-up confirmation again, or a pending email change's mails. An
    /// unknown address, a confirmed one, or no change pending is answered the same, unmailed.
    public func resend(type: String, email: String?, redirectTo: String?, challenge: Challenge?, address: String) throws(AuthError) {
        guard ["signup", "email_change", "sms", "phone_change"].contains(type) else {
            throw .validation("Missing one of these types: signup, email_change, sms, phone_change")
        }
        guard type == "signup" || type == "email_change" else { throw AuthError(400, "phone_provider_disabled", "Phone logins are disabled") }
        guard let email, !email.isEmpty else { throw .validation("Type provided requires an email address") }
        try admit(address, by: byAddress)
        let normalized = try Self.normalized(email: email)
        guard let user = try lookup({ () throws(StoreError) in try store.user(email: normalized) }) else { return }
        if type == "signup" {
            guard user.emailConfirmedAt == nil else { return }
            try mailCode(.confirmation, type: "signup", to: user, redirectTo: redirectTo, challenge: challenge)
        } else if let newEmail = user.newEmail {
            try mailEmailChange(user, to: newEmail, redirectTo: redirectTo, challenge: challenge)
        }
    }

    /// A sign-up for an address already taken, when confirmation is required: an unconfirmed
    /// user's confirmation is mailed again; a confirmed one's owner is told nothing, and the caller
    /// sees a user that does not exist, as GoTrue answers (so sign-up does not reveal who is registered).
    func signUpAgain(_ existing: AuthUser, redirectTo: String?, challenge: Challenge?) throws(AuthError) -> SignUp {
        if existing.emailConfirmedAt == nil {
            try mailCode(.confirmation, type: "signup", to: existing, redirectTo: redirectTo, challenge: challenge)
            return .awaitingConfirmation(existing)
        }
        var stranger = AuthUser(id: RandomUUID.lowercase(), createdAt: Timestamp.postgres(now()))
        stranger.email = existing.email
        stranger.role = ""
        stranger.appMetadata = ["provider": "email", "providers": ["email"]]
        return .awaitingConfirmation(stranger)
    }

    /// Mails a code and its link of `type` to `address` (the user's email unless given), by the
    /// `kind` template, at most once per ``mailInterval`` an address.
    func mailCode(
        _ kind: MailTemplates.Kind, type: String, to user: AuthUser, address: String? = nil, values: [String: String] = [:],
        redirectTo: String?, challenge: Challenge?
    ) throws(AuthError) {
        guard let email = address ?? user.email else { throw .validation("the user has no email") }
        let time = now()
        let interval = mailInterval
        let waited = lastMailed.withLock { last -> TimeInterval? in
            if let sent = last[email], time.timeIntervalSince(sent) < interval { return time.timeIntervalSince(sent) }
            last[email] = time
            return nil
        }
        if let waited {
            let seconds = max(1, Int((interval - waited).rounded(.up)))
            var error = AuthError(429, "over_email_send_rate_limit", "For security purposes, you can only request this after \(seconds) seconds.")
            error.retryAfter = seconds
            throw error
        }
        let code: String
        do { code = String(format: "%06d", try randomBytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000) } catch {
            throw .internalFailure("cannot make a code: \(error.description)")
        }
        let hash = Self.codeHash(email: email, code: code)
        let token = OneTimeToken(userID: user.id, type: type, hash: hash, challenge: challenge.map { ($0.code, $0.method) }, createdAt: Timestamp.postgres(time))
        do { try store.saveOneTimeToken(token) } catch { throw .storeFailed(error) }
        let target = redirects.resolve(redirectTo)
        let linkType = type.hasPrefix("email_change") ? "email_change" : type
        var link = URLComponents(string: tokens.issuer + "/verify")!
        link.queryItems = [URLQueryItem(name: "token", value: hash), URLQueryItem(name: "type", value: linkType), URLQueryItem(name: "redirect_to", value: target)]
        var values = values.merging([
            "ConfirmationURL": link.url?.absoluteString ?? "", "Token": code, "TokenHash": hash, "SiteURL": redirects.siteURL,
            "Email": user.email ?? email, "SendingTo": email, "RedirectTo": target,
        ]) { given, _ in given }
        for (key, value) in user.userMetadata { values["Data." + key] = value.stringValue ?? value.jsonText }
        do throws(AuthError) {
            try mailer.send(templates.render(kind, to: email, values: values, createdAt: Timestamp.postgres(time)))
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

    /// What `/verify` did: a session, (a PKCE request's link) an auth code for the app to
    /// exchange, or (the first of an email change's two confirmations) nothing yet.
    public enum Verified: Sendable {
        case session(AuthSession)
        case authCode(String)
        case awaitingOtherConfirmation

        public static let otherConfirmationMessage = "Confirmation link accepted. Please proceed to confirm link sent to the other email"
    }

    /// `/verify`: a code (with its email) or a link's token hash, once, within the hour; the email
    /// is confirmed by it. `pkce` (a link opened in a browser) answers an auth code when the code
    /// was asked for with a PKCE challenge.
    public func verify(type: String, email: String?, code: String?, tokenHash: String?, pkce: Bool, address: String) throws(AuthError) -> Verified {
        try admit(address, by: verifications)
        let types: [String] = switch type {
        case "magiclink", "signup", "email": ["magiclink", "signup"]
        case "recovery": ["recovery"]
        case "email_change": ["email_change_current", "email_change_new"]
        default: throw .validation("type must be signup, magiclink, email, recovery or email_change")
        }
        let hash: String
        if let tokenHash, !tokenHash.isEmpty {
            hash = tokenHash
        } else if let email, let code, !code.isEmpty {
            hash = Self.codeHash(email: try Self.normalized(email: email), code: code.trimmingCharacters(in: .whitespaces))
        } else {
            throw .validation("Verify requires a token or a token hash")
        }
        let expired = AuthError(403, "otp_expired", tokenHash?.isEmpty == false ? "Email link is invalid or has expired" : "Token has expired or is invalid")
        guard let token = try lookupToken({ () throws(StoreError) in try store.takeOneTimeToken(hash: hash, types: types) }) else { throw expired }
        guard let sent = Timestamp.parse(token.createdAt), now().timeIntervalSince(sent) <= Self.codeLifetime else { throw expired }
        guard var user = try lookup({ () throws(StoreError) in try store.user(id: token.userID) }) else { throw .userNotFound }
        if token.type.hasPrefix("email_change") {
            guard let changed = try confirmEmailChange(user, by: token) else { return .awaitingOtherConfirmation }
            user = changed
        } else if user.emailConfirmedAt == nil {
            user.emailConfirmedAt = Timestamp.postgres(now())
            do { try store.updateUser(user) } catch { throw .storeFailed(error) }
        }
        let method = token.type == "recovery" ? "recovery" : token.type.hasPrefix("email_change") ? "email_change" : "otp"
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
