import COpenSSL
import Foundation

/// HMAC-SHA256, the signature of HS256 tokens.
public func hmacSHA256(key: Data, message: Data) -> Data {
    var out = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 32
    key.withUnsafeBytes { k in
        message.withUnsafeBytes { m in
            _ = HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &out, &length)
        }
    }
    return Data(out.prefix(Int(length)))
}

/// Compares secrets in time independent of where they differ.
public func constantTimeEquals(_ a: Data, _ b: Data) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
}

/// Cryptographically random bytes.
public func randomBytes(_ count: Int) -> Data {
    var bytes = [UInt8](repeating: 0, count: count)
    _ = RAND_bytes(&bytes, Int32(count))
    return Data(bytes)
}
