import Foundation
import SoarAuth
import SoarCore
import SoarHTTP
import SoarStore

/// What Supabase's API gateway and PostgREST check before a request reaches a service: an API
/// key that is one of the project's two, then the bearer JWT (the key itself when there is none).
struct Gateway: Sendable {
    let keys: APIKeys
    let auth: AuthService

    /// Checks the `apikey` header (or query parameter).
    func requireAPIKey(_ exchange: Exchange) throws(ServerError) {
        guard let key = exchange.header("apikey") ?? exchange.request.queryValue("apikey"), !key.isEmpty else {
            throw .gateway(401, "No API key found in request", code: "401")
        }
        guard key == keys.anonKey || key == keys.serviceRoleKey else { throw .gateway(401, "Invalid API key", code: "401") }
    }

    /// The bearer token from `Authorization`, else the API key.
    func bearer(_ exchange: Exchange) -> String? {
        if let header = exchange.header("authorization") {
            // `Bearer <token>`, the scheme in any case; read as bytes: a token is hundreds of them.
            let bytes = header.utf8
            if let space = bytes.firstIndex(of: UInt8(ascii: " ")), header[..<space].equalsIgnoringASCIICase("bearer") {
                let token = header[bytes.index(after: space)...].trimmingSpaces
                if !token.isEmpty { return token }
            }
            return header.isEmpty ? nil : ""
        }
        return exchange.header("apikey") ?? exchange.request.queryValue("apikey")
    }

    /// API key, then JWT: sets the exchange's access, as PostgREST does, refusing signed-out sessions.
    ///
    /// - Parameter apiKeyOptional: for app endpoints outside Supabase's gateway (seed 001's
    ///   `/api/...`), which authenticate with the bearer JWT alone; a key given is still checked.
    /// - Throws: PostgREST's PGRST301 (bad token) or PGRST303 (expired), 401.
    func admit(_ exchange: inout Exchange, apiKeyOptional: Bool = false) throws(ServerError) {
        if !apiKeyOptional || exchange.header("apikey") != nil || exchange.request.queryValue("apikey") != nil { try requireAPIKey(exchange) }
        let token = bearer(exchange) ?? ""
        exchange.bearer = token
        let verified: VerifiedToken
        do {
            verified = try auth.tokens.verify(token, now: auth.now())
        } catch .expired {
            throw .rest(401, "PGRST303", "JWT expired")
        } catch {
            throw .rest(401, "PGRST301", "JWT could not be verified: \(error.description)")
        }
        if let session = verified.sessionID {
            let live: Bool
            do { live = try auth.sessionLive(session) } catch { throw .auth(error) }
            guard live else { throw .rest(401, "PGRST303", "JWT session has ended (signed out)") }
        }
        exchange.access = verified.access
        exchange.sessionID = verified.sessionID
    }
}
