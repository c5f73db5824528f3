import Foundation
import SoarAuth
import SoarCrypto
import Testing

/// Argon2id for new hashes; hashes of earlier versions verify and ask to be made again.
@Suite(.timeLimit(.minutes(1))) struct PasswordHasherTests {
    let hasher = PasswordHasher(memoryKiB: 64, passes: 1)

    @Test func argon2idHashesVerifyAndCarryTheirCost() throws {
        let stored = try hasher.hash("correct-horse")
        #expect(stored.hasPrefix("$argon2id$v=19$m=64,t=1,p=1$"))
        #expect(hasher.verify("correct-horse", against: stored) && !hasher.verify("correct-horsf", against: stored))
        #expect(!hasher.needsRehash(stored))
        #expect(PasswordHasher(memoryKiB: 128, passes: 1).needsRehash(stored), "a higher cost upgrades older hashes")
        #expect(try hasher.hash("correct-horse") != stored, "a salt each")
        #expect(PasswordHasher().memoryKiB == 19_456 && PasswordHasher().passes == 2, "OWASP's parameters by default")
    }

    @Test func earlierPBKDF2HashesStillVerifyAndAskToBeMadeAgain() throws {
        let salt = Data(repeating: 7, count: 16)
        let derived = try pbkdf2SHA256(password: "correct-horse", salt: salt, iterations: 1000)
        let legacy = "pbkdf2-sha256$1000$\(salt.base64EncodedString())$\(derived.base64EncodedString())"
        #expect(hasher.verify("correct-horse", against: legacy) && !hasher.verify("wrong-horse", against: legacy))
        #expect(hasher.needsRehash(legacy))
    }

    @Test func aStoredHashCannotAskForGigabytes() throws {
        let stored = try hasher.hash("correct-horse").replacingOccurrences(of: "m=64,", with: "m=4194304,")
        #expect(!hasher.verify("correct-horse", against: stored))
        #expect(!hasher.verify("x", against: "$argon2id$garbage") && !hasher.verify("x", against: ""))
    }

    @Test func bcryptHashesFromSupabaseVerifyAndAreUpgraded() {
        // A published bcrypt test vector (OpenBSD's and John the Ripper's): "U*U" at cost 5.
        let vector = "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"
        #expect(hasher.recognizes(vector) && hasher.verify("U*U", against: vector) && !hasher.verify("U*V", against: vector))
        #expect(hasher.needsRehash(vector))
        let costly = vector.replacingOccurrences(of: "$05$", with: "$31$")
        #expect(!hasher.recognizes(costly) && !hasher.verify("U*U", against: costly), "a stored hash cannot ask for hours")
        #expect(!hasher.recognizes("$1$abc$def") && !hasher.recognizes("plain text"))
    }
}
