import Foundation
import SoarAuth
import SoarCore
import SoarHTTP
import SoarStore

/// GoTrue's email routes: `/otp`, `/recover`, `/verify` (the code typed in, or the link opened),
/// and the development mailbox.
struct EmailEndpoints: Sendable {
    let auth: AuthService
    let gateway: Gateway

    func register(in router: inout Router) {
        router.add(["POST"], "/auth/v1/otp") { exchange throws(ServerError) in try otp(exchange) }
        router.add(["POST"], "/auth/v1/recover") { exchange throws(ServerError) in try recover(exchange) }
        router.add(["POST"], "/auth/v1/resend") { exchange throws(ServerError) in try resend(exchange) }
        router.add(["POST"], "/auth/v1/verify") { exchange throws(ServerError) in try verifyCode(exchange) }
        // A link opened in a browser: no API key, as GoTrue's links carry none.
        router.add(["GET"], "/auth/v1/verify") { exchange throws(ServerError) in verifyLink(exchange) }
        router.add(["GET"], "/auth/v1/mailbox") { exchange throws(ServerError) in try mailbox(exchange) }
    }

    private func otp(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        let body = try AuthEndpoints.object(exchange)
        guard let email = try AuthEndpoints.string(body, "email") else {
            if body["phone"] != nil { throw .auth(AuthError(400, "phone_provider_disabled", "Phone logins are disabled")) }
            throw .auth(.validation("An email address is required"))
        }
        let createUser = body["create_user"]?.boolValue ?? true
        let data = try AuthEndpoints.metadata(body, "data")
        try run { () throws(AuthError) in
            try auth.sendSignInCode(
                email: email, createUser: createUser, data: data, redirectTo: exchange.request.queryValue("redirect_to"),
                challenge: try Self.challenge(body), address: exchange.request.remoteAddress)
        }
        return .json(200, [:])
    }

    private func recover(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        let body = try AuthEndpoints.object(exchange)
        guard let email = try AuthEndpoints.string(body, "email") else { throw .auth(.validation("An email address is required")) }
        try run { () throws(AuthError) in
            try auth.sendRecovery(email: email, redirectTo: exchange.request.queryValue("redirect_to"), challenge: try Self.challenge(body), address: exchange.request.remoteAddress)
        }
        return .json(200, [:])
    }

    private func resend(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        let body = try AuthEndpoints.object(exchange)
        let (type, email) = (try AuthEndpoints.string(body, "type") ?? "", try AuthEndpoints.string(body, "email"))
        if email != nil, try AuthEndpoints.string(body, "phone") != nil {
            throw .auth(.validation("Only an email address or phone number should be provided."))
        }
        try run { () throws(AuthError) in
            try auth.resend(
                type: type, email: email, redirectTo: exchange.request.queryValue("redirect_to"), challenge: try Self.challenge(body),
                address: exchange.request.remoteAddress)
        }
        return .json(200, [:])
    }

    private func verifyCode(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        let body = try AuthEndpoints.object(exchange)
        let (type, email) = (try AuthEndpoints.string(body, "type") ?? "", try AuthEndpoints.string(body, "email"))
        let (code, hash) = (try AuthEndpoints.string(body, "token"), try AuthEndpoints.string(body, "token_hash"))
        let verified = try run { () throws(AuthError) in try auth.verify(type: type, email: email, code: code, tokenHash: hash, pkce: false, address: exchange.request.remoteAddress) }
        switch verified {
        case .session(let session): return .json(200, session.json)
        case .awaitingOtherConfirmation: return .json(200, ["msg": .string(AuthService.Verified.otherConfirmationMessage), "code": "200"])
        case .authCode: throw .auth(.validation("the code asked for a PKCE exchange"))
        }
    }

    /// The link from a mail: back to the app with the session in the fragment (implicit flow), an
    /// auth code in the query (PKCE), or the error in the fragment, as GoTrue redirects.
    private func verifyLink(_ exchange: Exchange) -> HTTPResponse {
        let request = exchange.request
        let target = auth.redirects.resolve(request.queryValue("redirect_to"))
        func redirect(_ location: String) -> HTTPResponse { HTTPResponse(status: 303, headers: [("location", location)]) }
        func encoded(_ pairs: [(String, String)]) -> String {
            var components = URLComponents()
            components.queryItems = pairs.map { URLQueryItem(name: $0.0, value: $0.1) }
            return components.percentEncodedQuery ?? ""
        }
        let type = request.queryValue("type") ?? ""
        do throws(AuthError) {
            switch try auth.verify(type: type, email: nil, code: nil, tokenHash: request.queryValue("token"), pkce: true, address: request.remoteAddress) {
            case .authCode(let code):
                return redirect(target + (target.contains("?") ? "&" : "?") + encoded([("code", code)]))
            case .awaitingOtherConfirmation:
                return redirect(target + "#" + encoded([("message", AuthService.Verified.otherConfirmationMessage)]))
            case .session(let session):
                let fragment = encoded([
                    ("access_token", session.accessToken), ("expires_at", String(session.expiresAt)), ("expires_in", String(session.expiresIn)),
                    ("refresh_token", session.refreshToken), ("token_type", "bearer"), ("type", type),
                ])
                return redirect(target + "#" + fragment)
            }
        } catch {
            return redirect(target + "#" + encoded([("error", "access_denied"), ("error_code", error.code), ("error_description", error.message)]))
        }
    }

    private func mailbox(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        var caller = exchange
        try gateway.admit(&caller)
        guard caller.access.role == .serviceRole else { throw .auth(.notAdmin) }
        let mails = try run { () throws(AuthError) in try auth.mailbox() }
        return .json(200, .array(mails.map { mail in
            ["to": .string(mail.to), "subject": .string(mail.subject), "text": .string(mail.text), "html": mail.html.map { .string($0) } ?? .null,
             "created_at": .string(mail.createdAt)]
        }))
    }

    static func challenge(_ body: [String: JSONValue]) throws(AuthError) -> AuthService.Challenge? {
        try AuthService.Challenge(code: body["code_challenge"]?.stringValue, method: body["code_challenge_method"]?.stringValue)
    }

    private func run<T>(_ work: () throws(AuthError) -> T) throws(ServerError) -> T {
        do { return try work() } catch { throw .auth(error) }
    }
}
