import CArgon2
import Foundation

/// Argon2id (RFC 9106), the reference implementation from Debian's libargon2: a memory-hard
/// password hash, kept in the PHC string form (`$argon2id$v=19$m=…,t=…,p=…$salt$hash`).
public enum Argon2id {
    /// A PHC string for `password` with a fresh 16-byte salt.
    ///
    /// - Parameters:
    ///   - memoryKiB: memory each hash fills (OWASP's minimum: 19,456 KiB with 2 passes).
    ///   - passes: passes over that memory.
    public static func hash(_ password: String, memoryKiB: Int, passes: Int, salt: Data) throws(Argon2Error) -> String {
        let length = argon2_encodedlen(UInt32(passes), UInt32(memoryKiB), 1, UInt32(salt.count), 32, Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let result = password.withCString { text in
            salt.withUnsafeBytes { s in
                argon2id_hash_encoded(UInt32(passes), UInt32(memoryKiB), 1, text, password.utf8.count, s.baseAddress, s.count, 32, &encoded, length)
            }
        }
        guard result == ARGON2_OK.rawValue else { throw Argon2Error(description: "argon2id: \(String(validatingCString: argon2_error_message(result)) ?? "error \(result)")") }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` made `encoded` (compared in constant time by the library).
    public static func verify(_ password: String, against encoded: String) -> Bool {
        password.withCString { text in argon2id_verify(encoded, text, password.utf8.count) } == ARGON2_OK.rawValue
    }

    /// The memory and passes a PHC string was made with, or nil when it is not Argon2id's.
    public static func parameters(of encoded: String) -> (memoryKiB: Int, passes: Int)? {
        let parts = encoded.split(separator: "$")
        guard parts.count == 5, parts[0] == "argon2id" else { return nil }
        var values: [String: Int] = [:]
        for pair in parts[2].split(separator: ",") {
            let kv = pair.split(separator: "=")
            if kv.count == 2, let value = Int(kv[1]) { values[String(kv[0])] = value }
        }
        guard let memory = values["m"], let passes = values["t"] else { return nil }
        return (memory, passes)
    }
}

/// What libargon2 said went wrong (out of memory, a parameter out of range).
public struct Argon2Error: Error, Sendable, CustomStringConvertible {
    public let description: String
}
