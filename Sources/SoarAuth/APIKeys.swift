import Foundation
import SoarCore
import SoarCrypto

/// The JWT secret and the two API keys derived from it, as a Supabase project has them.
public struct APIKeys: Sendable {
    public let secret: Data
    public let anonKey: String
    public let serviceRoleKey: String

    /// Uses the given keys, or signs the standard ones (`role` anon and service_role). Their claims
    /// are fixed, so one secret always gives the same keys: a restarted server, `soar demo` and
    /// any script beside it agree without copying keys around.
    ///
    /// - Throws: ``AuthError`` when a given key is not an HS256 JWT of this secret with the right role.
    public init(secret: Data, anonKey: String? = nil, serviceRoleKey: String? = nil) throws(AuthError) {
        self.secret = secret
        let issued = Self.issuedAt
        func make(_ role: String) throws(AuthError) -> String {
            let claims: [String: JSONValue] = ["iss": "soar", "role": .string(role), "iat": .int(issued), "exp": .int(issued + 20 * 365 * 86_400)]
            do { return try JWT(header: ["typ": "JWT"], claims: claims).signed(secret: secret) } catch {
                throw .internalFailure("cannot sign the API keys: \(error.description)")
            }
        }
        func check(_ key: String, _ role: String, _ name: String) throws(AuthError) -> String {
            guard let token = try? JWT.decode(key), token.verify(secret: secret), token.jwt.claims["role"]?.stringValue == role else {
                let what = key.split(separator: ".").count == 3 ? "a JWT of another secret, or not of role \(role)" : "not a JWT at all"
                throw AuthError(
                    500, "configuration",
                    "\(name) is \(what): it must be an HS256 JWT signed with this server's secret (JWT_SECRET, or the one it keeps beside the database) whose role is \(role); unset \(name) to use the key derived from the secret")
            }
            return key
        }
        if let anonKey { self.anonKey = try check(anonKey, "anon", "ANON_KEY") } else { self.anonKey = try make("anon") }
        if let serviceRoleKey {
            self.serviceRoleKey = try check(serviceRoleKey, "service_role", "SERVICE_ROLE_KEY")
        } else {
            self.serviceRoleKey = try make("service_role")
        }
    }

    /// 2026-01-01T00:00:00Z; the keys last 20 years from then, as Supabase's local keys last ten.
    static let issuedAt = 1_767_225_600

    /// The secret from `JWT_SECRET`, or one generated and kept 0600 in `file` (created on first use).
    public static func loadSecret(environment value: String?, file: String) throws(AuthError) -> Data {
        if let value, !value.isEmpty {
            guard value.utf8.count >= 32 else { throw AuthError(500, "configuration", "JWT_SECRET must be at least 32 characters") }
            return Data(value.utf8)
        }
        if let existing = try? String(contentsOfFile: file, encoding: .utf8) {
            let text = existing.trimmingCharacters(in: .whitespacesAndNewlines)
            guard text.utf8.count >= 32 else { throw AuthError(500, "configuration", "\(file) holds no usable secret (under 32 characters)") }
            return Data(text.utf8)
        }
        let generated: String
        do { generated = try randomBytes(32).base64URLEncodedString() } catch {
            throw AuthError(500, "configuration", "cannot generate a JWT secret: \(error.description)")
        }
        guard FileManager.default.createFile(atPath: file, contents: Data((generated + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw AuthError(500, "configuration", "cannot write the generated JWT secret to \(file)")
        }
        return Data(generated.utf8)
    }
}
