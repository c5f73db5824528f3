import COpenSSL
import Foundation

/// MD5 over bytes that arrive in pieces: a stored object's ETag, as S3 and Supabase Storage
/// give it (a checksum for caches, not a security measure).
public final class StreamingMD5 {
    private let context: OpaquePointer

    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_md5(), nil)
    }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    /// The digest of everything given so far, in lowercase hex; the hasher is spent.
    public func finish() -> String {
        var out = [UInt8](repeating: 0, count: 16)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &length)
        return out.map { String(format: "%02x", $0) }.joined()
    }

    deinit { EVP_MD_CTX_free(context) }
}

@available(*, unavailable) extension StreamingMD5: Sendable {}
