import Foundation
import SoarAuth
import SoarCore
import SoarHTTP
import SoarStore

/// GoTrue's subset at `/auth/v1`: JSON in, GoTrue's JSON and errors out.
struct AuthEndpoints: Sendable {
    let auth: AuthService
    let gateway: Gateway
    let version: String

    func register(in router: inout Router) {
        router.add(["POST"], "/auth/v1/signup") { exchange throws(ServerError) in try signUp(exchange) }
        router.add(["POST"], "/auth/v1/token") { exchange throws(ServerError) in try token(exchange) }
        router.add(["GET", "PUT"], "/auth/v1/user") { exchange throws(ServerError) in try user(exchange) }
        router.add(["POST"], "/auth/v1/logout") { exchange throws(ServerError) in try logout(exchange) }
        router.add(["GET"], "/auth/v1/settings") { _ throws(ServerError) in settings }
        // The public keys that verify access tokens, for whoever checks them (no key needed).
        router.add(["GET"], "/auth/v1/.well-known/jwks.json") { _ throws(ServerError) in .json(200, auth.tokens.jwks) }
        router.add(["GET"], "/auth/v1/health") { _ throws(ServerError) in
            .json(200, ["version": .string(version), "name": "GoTrue", "description": "Soar's GoTrue-compatible auth"])
        }
        EmailEndpoints(auth: auth, gateway: gateway).register(in: &router)
        MFAEndpoints(auth: auth, gateway: gateway).register(in: &router)
        let admin = AdminEndpoints(auth: auth, gateway: gateway)
        router.add(["GET", "POST"], "/auth/v1/admin/users") { exchange throws(ServerError) in try admin.users(exchange) }
        router.add(["GET", "PUT", "DELETE"], "/auth/v1/admin/users/{id}") { exchange throws(ServerError) in try admin.user(exchange) }
    }

    private func signUp(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        let body = try Self.object(exchange)
        if body["phone"]?.stringValue?.isEmpty == false {
            throw .auth(AuthError(400, "phone_provider_disabled", "Phone signups are disabled"))
        }
        let email = try Self.string(body, "email")
        let password = try Self.string(body, "password")
        let data = try Self.metadata(body, "data")
        do {
            let made = try auth.signUp(
                email: email?.isEmpty == true ? nil : email, password: password, data: data, redirectTo: exchange.request.queryValue("redirect_to"),
                challenge: try EmailEndpoints.challenge(body), address: exchange.request.remoteAddress)
            return .json(200, made.json)
        } catch { throw .auth(error) }
    }

    private func token(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        let body = try Self.object(exchange)
        let grant = exchange.request.queryValue("grant_type") ?? ""
        do {
            switch grant {
            case "password":
                guard let email = try Self.string(body, "email"), let password = try Self.string(body, "password") else {
                    if body["phone"] != nil { throw AuthError(400, "phone_provider_disabled", "Phone logins are disabled") }
                    throw AuthError.invalidCredentials
                }
                return .json(200, try auth.signIn(email: email, password: password, address: exchange.request.remoteAddress).json)
            case "refresh_token":
                return .json(200, try auth.refresh(try Self.string(body, "refresh_token") ?? "", address: exchange.request.remoteAddress).json)
            case "pkce":
                return .json(200, try auth.exchange(authCode: try Self.string(body, "auth_code") ?? "", verifier: try Self.string(body, "code_verifier") ?? "").json)
            case "id_token":
                guard let token = try Self.string(body, "id_token"), let provider = try Self.string(body, "provider") else {
                    throw AuthError.oauth("id_token and provider are required")
                }
                let session = try auth.signInWithIDToken(
                    provider: provider, token: token, nonce: try Self.string(body, "nonce"), address: exchange.request.remoteAddress)
                return .json(200, session.json)
            default:
                throw AuthError.unsupportedGrant(grant)
            }
        } catch let error as AuthError {
            throw .auth(error)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .auth(.storeFailed(error))
        }
    }

    private func user(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        do {
            let (user, session) = try auth.authenticate(gateway.bearer(exchange))
            guard exchange.request.method == "PUT" else {
                var json = user.json.objectValue ?? [:]
                json["factors"] = .array(try auth.factorsOf(user.id).map(\.json))
                return .json(200, .object(json))
            }
            let body = try Self.object(exchange)
            let password = try Self.string(body, "password")
            let updated = try auth.update(
                user, email: try Self.string(body, "email"), password: password,
                data: body["data"] == nil ? nil : try Self.metadata(body, "data"), redirectTo: exchange.request.queryValue("redirect_to"),
                challenge: try EmailEndpoints.challenge(body))
            // As GoTrue does: a new password ends the user's other sessions (one may be a thief's).
            if password != nil { try auth.signOut(userID: user.id, sessionID: session, scope: "others") }
            return .json(200, updated.json)
        } catch let error as AuthError {
            throw .auth(error)
        } catch let error as ServerError {
            throw error
        } catch {
            throw .auth(.storeFailed(error))
        }
    }

    private func logout(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        try gateway.requireAPIKey(exchange)
        do {
            let (user, session) = try auth.authenticate(gateway.bearer(exchange))
            try auth.signOut(userID: user.id, sessionID: session, scope: exchange.request.queryValue("scope") ?? "global")
            return HTTPResponse(status: 204)
        } catch {
            throw .auth(error)
        }
    }

    private var settings: HTTPResponse {
        .json(200, [
            "external": ["email": true, "phone": false, "anonymous_users": true],
            "disable_signup": false, "mailer_autoconfirm": .bool(!auth.confirmationRequired), "phone_autoconfirm": false, "sms_provider": "",
            "saml_enabled": false,
        ])
    }

    // MARK: body fields

    static func object(_ exchange: Exchange) throws(ServerError) -> [String: JSONValue] {
        let value = try exchange.json { _ in .auth(AuthError(400, "bad_json", "Could not parse request body as JSON")) }
        guard let object = value.objectValue else { throw .auth(AuthError(400, "bad_json", "The request body must be a JSON object")) }
        return object
    }

    static func string(_ body: [String: JSONValue], _ key: String) throws(ServerError) -> String? {
        guard let value = body[key], value != .null else { return nil }
        guard let text = value.stringValue else { throw .auth(.validation("\(key) must be a string")) }
        return text
    }

    static func metadata(_ body: [String: JSONValue], _ key: String) throws(ServerError) -> [String: JSONValue] {
        guard let value = body[key], value != .null else { return [:] }
        guard let object = value.objectValue else { throw .auth(.validation("\(key) must be an object")) }
        return object
    }
}
