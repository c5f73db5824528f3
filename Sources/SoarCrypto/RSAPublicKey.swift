import COpenSSL
import Foundation

/// An RSA public key, as a JWK publishes one (`n` and `e`): what checks an RS256 signature
/// (Apple's identity tokens are signed so).
public final class RSAPublicKey: @unchecked Sendable {
    private let key: OpaquePointer

    /// - Parameters: modulus and exponent, big-endian bytes.
    /// - Throws: ``OpenSSLError`` when they are not a usable key (under 2048 bits too).
    public init(modulus: Data, exponent: Data) throws(OpenSSLError) {
        guard modulus.count >= 256 else { throw OpenSSLError("an RSA key of \(modulus.count * 8) bits is too short (2048 at least)") }
        let made = modulus.withUnsafeBytes { n in
            exponent.withUnsafeBytes { e in
                COpenSSL_rsa_public_key(n.bindMemory(to: UInt8.self).baseAddress, n.count, e.bindMemory(to: UInt8.self).baseAddress, e.count)
            }
        }
        guard let made else { throw OpenSSLError("not an RSA public key") }
        key = made
    }

    deinit { EVP_PKEY_free(key) }

    /// Whether `signature` is this key's RSASSA-PKCS1-v1_5 SHA-256 signature of `message` (RS256).
    public func verify(_ signature: Data, for message: Data) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in
                EVP_DigestVerify(
                    context, sig.bindMemory(to: UInt8.self).baseAddress, sig.count, msg.bindMemory(to: UInt8.self).baseAddress, msg.count) == 1
            }
        }
    }
}

extension JWT.Unverified {
    /// Whether an RS256 token was signed by this key.
    public func verify(with key: RSAPublicKey) -> Bool {
        jwt.algorithm == "RS256" && key.verify(signature, for: signingInput)
    }
}
