import COpenSSL
import Foundation

/// HMAC-SHA256, the signature of HS256 tokens.
///
/// - Throws: ``OpenSSLError`` if OpenSSL cannot compute it.
public func hmacSHA256(key: Data, message: Data) throws(OpenSSLError) -> Data {
    try hmac(EVP_sha256(), 32, key: key, message: message)
}

/// HMAC-SHA1, what TOTP codes (RFC 6238) are made from.
public func hmacSHA1(key: Data, message: Data) throws(OpenSSLError) -> Data {
    try hmac(EVP_sha1(), 20, key: key, message: message)
}

private func hmac(_ digest: OpaquePointer?, _ size: Int, key: Data, message: Data) throws(OpenSSLError) -> Data {
    var out = [UInt8](repeating: 0, count: size)
    var length = UInt32(size)
    let result = key.withUnsafeBytes { k in
        message.withUnsafeBytes { m in
            HMAC(digest, k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self), m.count, &out, &length)
        }
    }
    guard result != nil, Int(length) == size else { throw OpenSSLError("HMAC") }
    return Data(out)
}

/// Compares secrets in time independent of where they differ.
public func constantTimeEquals(_ a: Data, _ b: Data) -> Bool {
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
}

/// Cryptographically random bytes.
///
/// - Throws: ``OpenSSLError`` when OpenSSL's generator is not seeded or fails: never fall back to
///   weaker bytes.
public func randomBytes(_ count: Int) throws(OpenSSLError) -> Data {
    var bytes = [UInt8](repeating: 0, count: count)
    try OpenSSLError.check(RAND_bytes(&bytes, Int32(count)), "RAND_bytes")
    return Data(bytes)
}
