import Foundation
import SoarCore

/// A JSON Web Token in compact form: `header.claims.signature`, each part base64url.
///
/// Signs and verifies ES256 (APNs provider tokens) and HS256 (Supabase access tokens).
public struct JWT: Sendable, Hashable {
    public var header: [String: JSONValue]
    public var claims: [String: JSONValue]

    public init(header: [String: JSONValue], claims: [String: JSONValue]) {
        self.header = header
        self.claims = claims
    }

    public var algorithm: String? { header["alg"]?.stringValue }
    public var keyID: String? { header["kid"]?.stringValue }
    public var issuer: String? { claims["iss"]?.stringValue }
    public var issuedAt: Int? { claims["iat"]?.intValue }
    public var expiresAt: Int? { claims["exp"]?.intValue }

    /// Signs with ES256 (`alg` is set to match).
    public func signed(with key: P256Key) throws(OpenSSLError) -> String {
        var header = header
        header["alg"] = "ES256"
        let input = Self.encode(header) + "." + Self.encode(claims)
        return input + "." + (try key.sign(Data(input.utf8))).base64URLEncodedString()
    }

    /// Signs with HS256 (`alg` is set to match).
    ///
    /// - Throws: ``OpenSSLError`` if OpenSSL cannot compute the HMAC.
    public func signed(secret: Data) throws(OpenSSLError) -> String {
        var header = header
        header["alg"] = "HS256"
        let input = Self.encode(header) + "." + Self.encode(claims)
        return input + "." + (try hmacSHA256(key: secret, message: Data(input.utf8))).base64URLEncodedString()
    }

    private static func encode(_ object: [String: JSONValue]) -> String {
        JSONValue.object(object).jsonData.base64URLEncodedString()
    }
}

extension JWT {
    /// A token split but not yet trusted: check it with ``verify(with:)`` or ``verify(secret:)``.
    public struct Unverified: Sendable {
        public let jwt: JWT
        let signingInput: Data
        let signature: Data

        /// Whether an ES256 token was signed by this key.
        public func verify(with key: P256Key) -> Bool {
            jwt.algorithm == "ES256" && key.verify(signature, for: signingInput)
        }

        /// Whether an HS256 token was signed with this secret.
        public func verify(secret: Data) -> Bool {
            guard jwt.algorithm == "HS256", let expected = try? hmacSHA256(key: secret, message: signingInput) else { return false }
            return constantTimeEquals(expected, signature)
        }
    }

    /// Splits and decodes a compact token.
    ///
    /// - Throws: ``JWTError`` when it is not three base64url parts of JSON objects.
    public static func decode(_ token: String) throws(JWTError) -> Unverified {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw JWTError("a JWT has three dot-separated parts, this has \(parts.count)") }
        func object(_ part: Substring, _ name: String) throws(JWTError) -> [String: JSONValue] {
            guard let data = Data(base64URLEncoded: part),
                let value = try? JSONValue.read(data), case .object(let object) = value
            else { throw JWTError("the JWT \(name) is not base64url JSON") }
            return object
        }
        let jwt = JWT(header: try object(parts[0], "header"), claims: try object(parts[1], "claims"))
        guard let signature = Data(base64URLEncoded: parts[2]) else { throw JWTError("the JWT signature is not base64url") }
        return Unverified(jwt: jwt, signingInput: Data("\(parts[0]).\(parts[1])".utf8), signature: signature)
    }
}

/// Why text is not a JWT.
public struct JWTError: Error, Hashable, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
