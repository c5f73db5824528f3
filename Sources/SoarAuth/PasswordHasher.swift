import Foundation
import SoarCrypto

/// How passwords are hashed and checked (Argon2id by default; older or imported hashes verify too).
public protocol PasswordHashing: Sendable {
    /// Whether `stored` is a hash this can verify (an import is refused otherwise).
    func recognizes(_ stored: String) -> Bool
    /// The shortest password taken (GoTrue's default is 6).
    var minimumLength: Int { get }
    func hash(_ password: String) throws(AuthError) -> String
    /// Whether `password` is the one `stored` was made from; as costly for a wrong one as a right one.
    func verify(_ password: String, against stored: String) -> Bool
    /// Whether a hash that verified should be made again (an older scheme or cost).
    func needsRehash(_ stored: String) -> Bool
}

extension PasswordHashing {
    public func needsRehash(_ stored: String) -> Bool { false }
    public func recognizes(_ stored: String) -> Bool { false }
}

/// Password hashes: Argon2id, memory-hard, with OWASP's parameters (19 MiB, 2 passes, one lane)
/// and a 16-byte salt per user, kept as a PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`).
///
/// Hashes made before (`pbkdf2-sha256$<iterations>$<salt>$<hash>`, PBKDF2-HMAC-SHA256) and
/// GoTrue's bcrypt hashes (users imported from Supabase) still verify, and are made again with
/// Argon2id at the user's next sign-in.
public struct PasswordHasher: PasswordHashing {
    public var memoryKiB: Int
    public var passes: Int
    /// GoTrue's default minimum length.
    public var minimumLength: Int

    public init(memoryKiB: Int = 19_456, passes: Int = 2, minimumLength: Int = 6) {
        self.memoryKiB = memoryKiB
        self.passes = passes
        self.minimumLength = minimumLength
    }

    public func hash(_ password: String) throws(AuthError) -> String {
        do {
            return try Argon2id.hash(password, memoryKiB: memoryKiB, passes: passes, salt: try randomBytes(16))
        } catch {
            throw .internalFailure("cannot hash the password: \(error)")
        }
    }

    public func verify(_ password: String, against stored: String) -> Bool {
        if stored.hasPrefix("$argon2id$") {
            // Within what this server would make, so a stored hash cannot ask for gigabytes.
            guard let cost = Argon2id.parameters(of: stored), cost.memoryKiB <= 1 << 20, cost.passes <= 64 else { return false }
            return Argon2id.verify(password, against: stored)
        }
        if Bcrypt.recognizes(stored) { return Bcrypt.verify(password, against: stored) }
        let parts = stored.split(separator: "$")
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]), rounds > 0, rounds <= 10_000_000,
            let salt = Data(base64Encoded: String(parts[2])), let expected = Data(base64Encoded: String(parts[3])),
            let derived = try? pbkdf2SHA256(password: password, salt: salt, iterations: rounds, length: expected.count)
        else { return false }
        return constantTimeEquals(derived, expected)
    }

    public func recognizes(_ stored: String) -> Bool {
        Argon2id.parameters(of: stored) != nil || Bcrypt.recognizes(stored) || stored.hasPrefix("pbkdf2-sha256$")
    }

    public func needsRehash(_ stored: String) -> Bool {
        guard let cost = Argon2id.parameters(of: stored) else { return true }
        return cost.memoryKiB != memoryKiB || cost.passes != passes
    }
}
