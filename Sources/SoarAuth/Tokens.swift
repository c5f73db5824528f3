import Foundation
import SoarCore
import SoarCrypto
import SoarStore
import Synchronization

/// A JWT that verified: who it speaks for, and its session when it is a user's.
public struct VerifiedToken: Sendable {
    public let access: Access
    public let sessionID: String?
    public let claims: [String: JSONValue]
}

/// Why a JWT was refused.
public enum TokenProblem: Error, Sendable, Equatable {
    case malformed(String)
    case badSignature
    case expired
    case notYetValid
    case wrongAudience(String)
    case unknownRole(String)

    public var description: String {
        switch self {
        case .malformed(let why): why
        case .badSignature: "signature is invalid"
        case .expired: "token is expired"
        case .notYetValid: "token is not valid yet (nbf)"
        case .wrongAudience(let audience): "token is for another audience (\(audience))"
        case .unknownRole(let role): "role \(role) is not anon, authenticated or service_role"
        }
    }
}

/// Signs access tokens with Supabase's claims and verifies every HS256 token presented.
public struct Tokens: Sendable {
    public let secret: Data
    public let issuer: String
    public let lifetime: Int
    /// Asymmetric signing keys (ES256) by key id: the last private one signs access tokens, every
    /// one verifies; empty, tokens are HS256 with `secret` (which always verifies the API keys).
    public let keys: [SigningKey]
    /// Tokens that verified, by their text.
    private let verified = BoundedCache<VerifiedToken>(capacity: 10_000)
    /// The audience of users' tokens (GoTrue's default `aud`); a token naming another is refused.
    public static let audience = "authenticated"

    public init(secret: Data, issuer: String, lifetime: Int = 3600, keys: [SigningKey] = []) {
        self.secret = secret
        self.issuer = issuer
        self.lifetime = lifetime
        self.keys = keys
    }

    /// The key that signs: the last private one.
    var signer: SigningKey? { keys.last { $0.key.isPrivate } }

    /// The public keys as a JSON Web Key Set (`/auth/v1/.well-known/jwks.json`).
    public var jwks: JSONValue {
        .object(["keys": .array(keys.compactMap { signing in
            guard let (x, y) = try? signing.key.publicCoordinates() else { return nil }
            return [
                "kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "key_ops": ["verify"], "kid": .string(signing.id),
                "x": .string(x.base64URLEncodedString()), "y": .string(y.base64URLEncodedString()),
            ]
        })])
    }

    /// Checks the signature (HS256 only: `alg: none` and others are refused), expiry and role.
    ///
    /// A token that verified is remembered (as PostgREST's JWT cache does), so a client's next
    /// requests cost a lookup and the expiry check, not a decode and an HMAC.
    public func verify(_ token: String, now: Date) throws(TokenProblem) -> VerifiedToken {
        if let known = verified[token] {
            if let exp = known.claims["exp"]?.doubleValue, exp <= now.timeIntervalSince1970 { throw .expired }
            return known
        }
        let result = try verifyAfresh(token, now: now)
        verified.keep(result, for: token)
        return result
    }

    private func verifyAfresh(_ token: String, now: Date) throws(TokenProblem) -> VerifiedToken {
        let unverified: JWT.Unverified
        do { unverified = try JWT.decode(token) } catch { throw .malformed(error.description) }
        switch unverified.jwt.algorithm {
        case "HS256":
            guard unverified.verify(secret: secret) else { throw .badSignature }
        case "ES256":
            guard let kid = unverified.jwt.keyID, let signing = keys.first(where: { $0.id == kid }) else { throw .malformed("unknown signing key \(unverified.jwt.keyID ?? "(no kid)")") }
            guard unverified.verify(with: signing.key) else { throw .badSignature }
        default:
            throw .malformed("algorithm \(unverified.jwt.algorithm ?? "none") is not allowed")
        }
        let claims = unverified.jwt.claims
        if let exp = claims["exp"], let seconds = exp.doubleValue {
            guard seconds > now.timeIntervalSince1970 else { throw .expired }
        } else if claims["exp"] != nil {
            throw .malformed("exp is not a number")
        }
        // As PostgREST: not before `nbf` (30 seconds of clock skew allowed), and an `aud`, when
        // there is one, that names this server's audience.
        if let nbf = claims["nbf"] {
            guard let seconds = nbf.doubleValue else { throw .malformed("nbf is not a number") }
            if seconds > now.timeIntervalSince1970 + 30 { throw .notYetValid }
        }
        if let aud = claims["aud"] {
            let audiences = aud.stringValue.map { [$0] } ?? aud.arrayValue?.compactMap(\.stringValue) ?? []
            guard audiences.contains(Self.audience) else { throw .wrongAudience(audiences.joined(separator: ", ")) }
        }
        let role = claims["role"]?.stringValue ?? ""
        guard let parsed = Access.Role(rawValue: role) else { throw .unknownRole(role) }
        if parsed == .authenticated {
            guard let sub = claims["sub"]?.stringValue, RandomUUID.parse(sub) != nil else { throw .malformed("sub is not a user id") }
            let aal = claims["aal"]?.stringValue == "aal2" ? "aal2" : "aal1"
            return VerifiedToken(access: Access(role: .authenticated, userID: sub.lowercased(), aal: aal), sessionID: claims["session_id"]?.stringValue, claims: claims)
        }
        return VerifiedToken(access: Access(role: parsed), sessionID: nil, claims: claims)
    }

    /// An access token for `user` in `sessionID`, with the claims Supabase puts in one.
    public func accessToken(for user: AuthUser, sessionID: String, method: String, aal: String = "aal1", now: Date) throws(AuthError) -> (token: String, expiresAt: Int) {
        let issued = Int(now.timeIntervalSince1970)
        let claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(user.id), "aud": .string(user.aud), "role": .string(user.role),
            "exp": .int(issued + lifetime), "iat": .int(issued),
            "email": .string(user.email ?? ""), "phone": .string(user.phone ?? ""),
            "app_metadata": .object(user.appMetadata), "user_metadata": .object(user.userMetadata),
            "aal": .string(aal), "amr": [["method": .string(method), "timestamp": .int(issued)]],
            "session_id": .string(sessionID), "is_anonymous": .bool(user.isAnonymous),
        ]
        do {
            if let signer {
                return (try JWT(header: ["typ": "JWT", "kid": .string(signer.id)], claims: claims).signed(with: signer.key), issued + lifetime)
            }
            return (try JWT(header: ["typ": "JWT"], claims: claims).signed(secret: secret), issued + lifetime)
        } catch {
            throw .internalFailure("cannot sign the access token: \(error.description)")
        }
    }
}

/// An asymmetric signing key with its id (`kid`).
public struct SigningKey: Sendable {
    public let id: String
    public let key: P256Key

    public init(id: String, key: P256Key) {
        self.id = id
        self.key = key
    }

    /// Every `*.pem` or `*.p8` in `folder`, in name order (the last private one signs: name them by
    /// date), each a P-256 private key or, to verify only, a public key; the file's name is its id.
    public static func load(folder: String) throws(AuthError) -> [SigningKey] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw AuthError(500, "configuration", "cannot read the signing keys folder \(folder): \(FileProblem.reason(folder))")
        }
        var keys: [SigningKey] = []
        for name in names.sorted() where name.hasSuffix(".pem") || name.hasSuffix(".p8") {
            let path = folder + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw AuthError(500, "configuration", "cannot read the signing key \(path): \(FileProblem.reason(path))")
            }
            let id = String(name[..<name.lastIndex(of: ".")!])
            do {
                keys.append(SigningKey(id: id, key: text.contains("PRIVATE KEY") ? try P256Key(privatePEM: text) : try P256Key(publicPEM: text)))
            } catch {
                throw AuthError(500, "configuration", "the signing key \(path) is not an EC P-256 key in PEM: \(error.description)")
            }
        }
        guard keys.contains(where: { $0.key.isPrivate }) else {
            throw AuthError(500, "configuration", "no private key in \(folder) to sign with (a P-256 key in PEM, such as soar keys generate writes)")
        }
        return keys
    }
}
