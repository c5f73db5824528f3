import Foundation
import SoarCrypto

/// How passwords are hashed and checked (PBKDF2 by default; another scheme could verify hashes
/// imported from elsewhere).
public protocol PasswordHashing: Sendable {
    /// The shortest password taken (GoTrue's default is 6).
    var minimumLength: Int { get }
    func hash(_ password: String) throws(AuthError) -> String
    /// Whether `password` is the one `stored` was made from; as costly for a wrong one as a right one.
    func verify(_ password: String, against stored: String) -> Bool
}

/// Password hashes: PBKDF2-HMAC-SHA256 with a 16-byte salt per user, compared in constant time.
///
/// Stored as `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`, so the cost can rise later
/// without breaking old hashes.
public struct PasswordHasher: PasswordHashing {
    public var iterations: Int
    /// GoTrue's default minimum length.
    public var minimumLength: Int

    public init(iterations: Int = 100_000, minimumLength: Int = 6) {
        self.iterations = iterations
        self.minimumLength = minimumLength
    }

    public func hash(_ password: String) throws(AuthError) -> String {
        do {
            let salt = try randomBytes(16)
            let derived = try pbkdf2SHA256(password: password, salt: salt, iterations: iterations)
            return "pbkdf2-sha256$\(iterations)$\(salt.base64EncodedString())$\(derived.base64EncodedString())"
        } catch {
            throw .internalFailure("cannot hash the password: \(error.description)")
        }
    }

    public func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds > 0, rounds <= 10_000_000,
            let salt = Data(base64Encoded: String(parts[2])), let expected = Data(base64Encoded: String(parts[3])),
            let derived = try? pbkdf2SHA256(password: password, salt: salt, iterations: rounds, length: expected.count)
        else { return false }
        return constantTimeEquals(derived, expected)
    }
}
