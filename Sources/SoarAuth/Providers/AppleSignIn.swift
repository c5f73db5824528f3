import Foundation
import SoarCore
import SoarCrypto

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sign in with Apple's identity tokens (`POST /token?grant_type=id_token`, `provider: apple`):
/// RS256 JWTs from `https://appleid.apple.com`, for one of the app's bundle ids, checked against
/// Apple's published keys.
public struct AppleSignIn: Sendable {
    public static let issuer = "https://appleid.apple.com"
    public static let keysURL = "https://appleid.apple.com/auth/keys"

    /// The app's bundle ids (and Services IDs), GoTrue's `GOTRUE_EXTERNAL_APPLE_CLIENT_ID`.
    public let clientIDs: [String]
    let keys: JWKS

    /// - Parameter keysURL: where Apple's keys are (`SOAR_APPLE_JWKS_URL`; `file://` works offline).
    public init(clientIDs: [String], keysURL: String = AppleSignIn.keysURL) {
        self.clientIDs = clientIDs
        keys = JWKS(url: keysURL)
    }

    /// What an identity token says about its user.
    struct Identity {
        let subject: String
        let email: String?
        let emailVerified: Bool
        let claims: [String: JSONValue]
    }

    /// Checks the token: Apple's signature, issuer, one of the app's ids as audience, not expired,
    /// and the nonce (Apple holds its SHA-256, the app the nonce itself), as GoTrue does.
    func verify(_ token: String, nonce: String?, now: Date) throws(AuthError) -> Identity {
        let unverified: JWT.Unverified
        do { unverified = try JWT.decode(token) } catch { throw .badIDToken(error.description) }
        guard unverified.jwt.algorithm == "RS256" else { throw .badIDToken("algorithm \(unverified.jwt.algorithm ?? "none") is not Apple's (RS256)") }
        guard let keyID = unverified.jwt.keyID else { throw .badIDToken("no key id (kid)") }
        let key = try keys.key(keyID)
        guard unverified.verify(with: key) else { throw .badIDToken("the signature is not Apple's") }
        let claims = unverified.jwt.claims
        guard claims["iss"]?.stringValue == Self.issuer else { throw .badIDToken("issuer is not \(Self.issuer)") }
        let audiences = claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard audiences.contains(where: clientIDs.contains) else { throw .badIDToken("audience \(audiences.joined(separator: ", ")) is not this app's") }
        guard let exp = claims["exp"]?.doubleValue, exp > now.timeIntervalSince1970 else { throw .badIDToken("expired") }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else { throw .badIDToken("no subject") }
        let hashed = claims["nonce"]?.stringValue
        switch (nonce, hashed) {
        case (nil, nil): break
        case (let nonce?, let hashed?):
            guard sha256(Data(nonce.utf8)).map({ String(format: "%02x", $0) }).joined() == hashed else { throw .oauth("Nonces mismatch") }
        default: throw .oauth("Passed nonce and nonce in id_token should either both exist or not.")
        }
        let verified = claims["email_verified"].map { $0.boolValue ?? ($0.stringValue == "true") } ?? false
        return Identity(subject: subject, email: claims["email"]?.stringValue?.lowercased(), emailVerified: verified, claims: claims)
    }
}

/// A provider's published keys, by key id: fetched when a token names one not held yet (at most
/// once a minute), kept for later tokens; a fetch that fails while keys are held uses them.
final class JWKS: Sendable {
    private let url: String
    private let held = Locked<(keys: [String: RSAPublicKey], fetched: Date?)>(([:], nil))

    init(url: String) { self.url = url }

    func key(_ id: String) throws(AuthError) -> RSAPublicKey {
        let (known, fetched) = held.withLock { ($0.keys[id], $0.fetched) }
        if let known { return known }
        if let fetched, Date().timeIntervalSince(fetched) < 60 { throw .badIDToken("unknown key id \(id)") }
        let keys = try fetch()
        held.withLock { $0 = (keys, Date()) }
        guard let key = keys[id] else { throw .badIDToken("unknown key id \(id)") }
        return key
    }

    /// Reads the key set (RSA keys; others are skipped) from a file or over HTTPS, within 10 s.
    private func fetch() throws(AuthError) -> [String: RSAPublicKey] {
        guard let location = URL(string: url) else { throw AuthError(503, "unexpected_failure", "the identity provider's key URL \(url) is not a URL") }
        let data: Data
        if location.isFileURL {
            guard let read = FileManager.default.contents(atPath: location.path) else {
                throw AuthError(503, "unexpected_failure", "cannot read the identity provider's keys at \(location.path): \(FileProblem.reason(location.path))")
            }
            data = read
        } else {
            let result = Locked<Data?>(nil)
            let done = DispatchSemaphore(value: 0)
            var request = URLRequest(url: location)
            request.timeoutInterval = 10
            URLSession.shared.dataTask(with: request) { body, response, _ in
                if (response as? HTTPURLResponse)?.statusCode == 200 { result.withLock { $0 = body } }
                done.signal()
            }.resume()
            _ = done.wait(timeout: .now() + 12)
            guard let body = result.withLock({ $0 }) else { throw AuthError(503, "unexpected_failure", "cannot fetch the identity provider's keys from \(url)") }
            data = body
        }
        guard let keys = (try? JSONValue.read(data))?.objectValue?["keys"]?.arrayValue else {
            throw AuthError(503, "unexpected_failure", "the identity provider's keys at \(url) are not a JSON Web Key Set")
        }
        var byID: [String: RSAPublicKey] = [:]
        for key in keys {
            guard let object = key.objectValue, object["kty"]?.stringValue == "RSA", let id = object["kid"]?.stringValue,
                let n = object["n"]?.stringValue.flatMap({ Data(base64URLEncoded: $0) }), let e = object["e"]?.stringValue.flatMap({ Data(base64URLEncoded: $0) }),
                let parsed = try? RSAPublicKey(modulus: n, exponent: e)
            else { continue }
            byID[id] = parsed
        }
        return byID
    }
}

extension AuthError {
    /// GoTrue's answer to an identity token it does not take.
    static func badIDToken(_ why: String) -> AuthError { .oauth("Bad ID token: \(why)") }
    /// GoTrue's OAuth-style error (`{"error": "invalid request", "error_description": …}`), 400.
    public static func oauth(_ description: String) -> AuthError {
        var error = AuthError(400, "invalid_request", description)
        error.oauthStyle = true
        return error
    }
}
