import Foundation
import SoarAuth
import SoarCore
import SoarHTTP
import SoarStore

/// GoTrue's `/factors` routes for the signed-in user: enroll a TOTP factor, challenge it, verify a
/// code (the session rises to `aal2`), unenroll.
struct MFAEndpoints: Sendable {
    let auth: AuthService
    let gateway: Gateway

    func register(in router: inout Router) {
        router.add(["POST"], "/auth/v1/factors") { exchange throws(ServerError) in try enroll(exchange) }
        router.add(["POST"], "/auth/v1/factors/{id}/challenge") { exchange throws(ServerError) in try challenge(exchange) }
        router.add(["POST"], "/auth/v1/factors/{id}/verify") { exchange throws(ServerError) in try verify(exchange) }
        router.add(["DELETE"], "/auth/v1/factors/{id}") { exchange throws(ServerError) in try unenroll(exchange) }
    }

    private func enroll(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        let (user, _, _) = try signedIn(exchange)
        let body = try AuthEndpoints.object(exchange)
        let type = try AuthEndpoints.string(body, "factor_type") ?? ""
        guard type == "totp" else { throw .auth(.validation("factor_type must be totp (phone factors are not supported)")) }
        let (name, issuer) = (try AuthEndpoints.string(body, "friendly_name"), try AuthEndpoints.string(body, "issuer"))
        let enrolled = try run { () throws(AuthError) in try auth.enrollTOTP(user: user, friendlyName: name, issuer: issuer) }
        return .json(200, [
            "id": .string(enrolled.factor.id), "type": "totp", "friendly_name": enrolled.factor.friendlyName.map(JSONValue.string) ?? .null,
            "totp": ["qr_code": .string(enrolled.qrCode), "secret": .string(enrolled.factor.secret), "uri": .string(enrolled.uri)],
        ])
    }

    private func challenge(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        let (user, _, _) = try signedIn(exchange)
        let id = exchange.parameters["id"] ?? ""
        let made = try run { () throws(AuthError) in try auth.challenge(user: user, factorID: id) }
        return .json(200, ["id": .string(made.id), "type": "totp", "expires_at": .int(made.expiresAt)])
    }

    private func verify(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        let (user, session, _) = try signedIn(exchange)
        let body = try AuthEndpoints.object(exchange)
        let (challengeID, code) = (try AuthEndpoints.string(body, "challenge_id") ?? "", try AuthEndpoints.string(body, "code") ?? "")
        let id = exchange.parameters["id"] ?? ""
        let verified = try run { () throws(AuthError) in
            try auth.verifyFactor(user: user, sessionID: session, factorID: id, challengeID: challengeID, code: code, address: exchange.request.remoteAddress)
        }
        var json = verified.json.objectValue ?? [:]
        if var person = json["user"]?.objectValue {
            person["factors"] = .array(try run { () throws(AuthError) in try auth.factorsOf(user.id) }.map(\.json))
            json["user"] = .object(person)
        }
        return .json(200, .object(json))
    }

    private func unenroll(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        let (user, _, aal) = try signedIn(exchange)
        let id = exchange.parameters["id"] ?? ""
        try run { () throws(AuthError) in try auth.unenroll(user: user, aal: aal, factorID: id) }
        return .json(200, ["id": .string(id)])
    }

    /// The caller's user, session and assurance level, from its access token.
    private func signedIn(_ exchange: Exchange) throws(ServerError) -> (AuthUser, String?, String) {
        try gateway.requireAPIKey(exchange)
        let bearer = gateway.bearer(exchange)
        let (user, session) = try run { () throws(AuthError) in try auth.authenticate(bearer) }
        let aal = (try? auth.tokens.verify(bearer ?? "", now: auth.now()))?.access.aal ?? "aal1"
        return (user, session, aal)
    }

    private func run<T>(_ work: () throws(AuthError) -> T) throws(ServerError) -> T {
        do { return try work() } catch { throw .auth(error) }
    }
}
