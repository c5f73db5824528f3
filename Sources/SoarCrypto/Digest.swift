import COpenSSL
import Foundation

/// SHA-256 of `data`: how refresh tokens are kept, so a copy of the database holds none usable.
public func sha256(_ data: Data) -> Data {
    var out = [UInt8](repeating: 0, count: 32)
    data.withUnsafeBytes { raw in _ = SHA256(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &out) }
    return Data(out)
}

/// PBKDF2-HMAC-SHA256: a password stretched with a per-user salt.
///
/// - Throws: ``OpenSSLError`` if OpenSSL cannot derive the key.
public func pbkdf2SHA256(password: String, salt: Data, iterations: Int, length: Int = 32) throws(OpenSSLError) -> Data {
    var out = [UInt8](repeating: 0, count: length)
    let result = password.withCString { text in
        salt.withUnsafeBytes { s in
            PKCS5_PBKDF2_HMAC(
                text, Int32(password.utf8.count), s.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(s.count),
                Int32(iterations), EVP_sha256(), Int32(length), &out)
        }
    }
    try OpenSSLError.check(result, "PKCS5_PBKDF2_HMAC")
    return Data(out)
}

/// SHA-1 of `data`: only where a protocol fixes it (WebSocket's `Sec-WebSocket-Accept`).
public func sha1(_ data: Data) -> Data {
    var out = [UInt8](repeating: 0, count: 20)
    data.withUnsafeBytes { raw in _ = SHA1(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, &out) }
    return Data(out)
}
