import Foundation
import SoarCore

/// Mailed links that open the app (PKCE, supabase-swift's default flow), confirmation and email change.
extension SoarAuthClient {
    /// Where the PKCE verifier waits for the link that needs it.
    static let verifierKey = "soar.pkce-verifier"

    /// Mails a sign-in link that opens the app at `redirectTo` (an allowed URL, such as
    /// `myapp://auth-callback`), and a 6-digit code. The link works only on this device: pass the
    /// URL it opens to ``session(from:)``.
    public func sendMagicLink(email: String, redirectTo: URL, createUser: Bool = true) async throws(AppError) {
        var fields: [String: Any] = ["email": email, "create_user": createUser]
        fields.merge(try startPKCE()) { $1 }
        let body = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        _ = try await backend.send(
            Backend.Request(method: "POST", path: "auth/v1/otp", query: [URLQueryItem(name: "redirect_to", value: redirectTo.absoluteString)], body: body),
            bearer: nil)
    }

    /// Creates an account whose confirmation link opens the app at `redirectTo` (PKCE), when the
    /// backend requires confirmation; otherwise signs it in at once, as ``signUp(email:password:)``.
    ///
    /// - Returns: the session, or nil when a confirmation was mailed.
    @discardableResult
    public func signUp(email: String, password: String, redirectTo: URL) async throws(AppError) -> AuthSession? {
        var fields: [String: Any] = ["email": email, "password": password]
        fields.merge(try startPKCE()) { $1 }
        let body = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        do {
            return try await begin(Backend.Request(
                method: "POST", path: "auth/v1/signup", query: [URLQueryItem(name: "redirect_to", value: redirectTo.absoluteString)], body: body))
        } catch where error.message == AppError(authCode: "email_not_confirmed").message {
            return nil
        }
    }

    /// The session a mailed link carries when it opens the app: `?code=` (PKCE, exchanged with
    /// this device's verifier) or the tokens in the fragment (implicit flow).
    ///
    /// - Returns: nil when the link confirmed the first of an email change's two addresses.
    /// - Throws: the link's error (expired, used) in words a user acts on.
    @discardableResult
    public func session(from url: URL) async throws(AppError) -> AuthSession? {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var fields: [String: String] = [:]
        for item in (components?.queryItems ?? []) { fields[item.name] = item.value ?? "" }
        var fragment = URLComponents()
        fragment.percentEncodedQuery = components?.percentEncodedFragment
        for item in (fragment.queryItems ?? []) { fields[item.name] = item.value ?? "" }
        if let code = fields["error_code"] ?? fields["error"] {
            throw AppError(authCode: code, original: HTTPFailure(status: 303, body: Data((fields["error_description"] ?? code).utf8)))
        }
        if let code = fields["code"] {
            guard let verifier = (try? store.data(for: Self.verifierKey)).flatMap({ String(data: $0, encoding: .utf8) }) else {
                throw AppError(authCode: "bad_code_verifier")
            }
            let session = try await begin(Backend.Request(
                method: "POST", path: "auth/v1/token", query: [URLQueryItem(name: "grant_type", value: "pkce")],
                body: Self.json(["auth_code": code, "code_verifier": verifier])))
            try? store.remove(Self.verifierKey)
            return session
        }
        if let access = fields["access_token"], let refresh = fields["refresh_token"], let expiresAt = fields["expires_at"].flatMap(Int.init) {
            let answer = try await backend.send(Backend.Request(method: "GET", path: "auth/v1/user"), bearer: access)
            guard let user = try? JSONCoding.decode(AuthUser.self, from: answer) else {
                throw AppError(.unknown, AppError.Messages.server, original: HTTPFailure(status: 200, body: answer))
            }
            let session = AuthSession(
                accessToken: access, expiresIn: fields["expires_in"].flatMap(Int.init) ?? 3600, expiresAt: expiresAt, refreshToken: refresh, user: user)
            try await adopt(session)
            return session
        }
        if fields["message"] != nil { return nil }
        throw AppError(.validation, "That link does not carry a sign-in. Open the newest link from your email.")
    }

    /// Mails the sign-up confirmation to `email` again (answered the same when there is nothing to confirm).
    public func resendConfirmation(email: String) async throws(AppError) {
        _ = try await backend.send(
            Backend.Request(method: "POST", path: "auth/v1/resend", body: Self.json(["type": "signup", "email": email])), bearer: nil)
    }

    /// Asks to change the signed-in user's email: a code and link go to the new address and to
    /// the current one; ``confirmEmailChange(email:code:)`` or ``session(from:)`` confirms.
    public func changeEmail(to newEmail: String) async throws(AppError) {
        let token = try await validSession().accessToken
        _ = try await backend.send(Backend.Request(method: "PUT", path: "auth/v1/user", body: Self.json(["email": newEmail])), bearer: token)
    }

    /// Confirms an email change with a code mailed to `email` (either address).
    ///
    /// - Returns: the session with the new email, or nil while the other address's code is still
    ///   needed (the backend requires both).
    @discardableResult
    public func confirmEmailChange(email: String, code: String) async throws(AppError) -> AuthSession? {
        let data = try await backend.send(
            Backend.Request(method: "POST", path: "auth/v1/verify", body: Self.json(["email": email, "token": code, "type": "email_change"])), bearer: nil)
        guard (try? JSONValue.read(data).objectValue?["access_token"]) != nil else { return nil }
        return try await begin(data: data)
    }

    /// A new verifier, kept, and the fields that send its challenge.
    private func startPKCE() throws(AppError) -> [String: String] {
        let pkce = PKCE()
        do { try store.set(Data(pkce.verifier.utf8), for: Self.verifierKey) } catch {
            throw AppError(.unknown, "The sign-in could not be saved on this device.", original: error)
        }
        return ["code_challenge": pkce.challenge, "code_challenge_method": "s256"]
    }
}
