import COpenSSL
import Foundation

/// An EC P-256 key, private or public: the key type of APNs auth keys (.p8) and ES256 tokens.
///
/// Wraps an `EVP_PKEY`; immutable after creation, so it is safe to share across threads.
public final class P256Key: @unchecked Sendable {
    let pkey: OpaquePointer
    /// Whether the private half is present (it can sign).
    public let isPrivate: Bool

    private init(_ pkey: OpaquePointer, isPrivate: Bool) {
        self.pkey = pkey
        self.isPrivate = isPrivate
    }

    deinit { EVP_PKEY_free(pkey) }

    /// A new random key.
    public static func generate() throws(OpenSSLError) -> P256Key {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw OpenSSLError("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        try OpenSSLError.check(EVP_PKEY_keygen_init(ctx), "EVP_PKEY_keygen_init")
        try OpenSSLError.check(EVP_PKEY_CTX_set_group_name(ctx, "P-256"), "EVP_PKEY_CTX_set_group_name")
        var key: OpaquePointer?
        try OpenSSLError.check(EVP_PKEY_generate(ctx, &key), "EVP_PKEY_generate")
        return P256Key(key!, isPrivate: true)
    }

    /// Reads a private key: PKCS#8 (`BEGIN PRIVATE KEY`, Apple's .p8) or SEC1 (`BEGIN EC PRIVATE KEY`).
    ///
    /// An encrypted key is opened with `passphrase`; without one it fails with a clear error and
    /// never asks on the terminal.
    public convenience init(privatePEM pem: String, passphrase: String? = nil) throws(OpenSSLError) {
        let key = try withBIO(pem) { bio in
            withPassphrase(passphrase) { user in PEM_read_bio_PrivateKey(bio, nil, passphraseCallback, user) }
        }
        guard let key else {
            let encrypted = pem.contains("ENCRYPTED")
            if encrypted && passphrase == nil { throw OpenSSLError("the private key is encrypted and no passphrase was given") }
            throw OpenSSLError(encrypted ? "cannot decrypt the private key (wrong passphrase?)" : "not a PEM private key")
        }
        try Self.requireP256(key)
        self.init(key, isPrivate: true)
    }

    /// Reads a public key (`BEGIN PUBLIC KEY`), or the public half of a private key.
    public convenience init(publicPEM pem: String) throws(OpenSSLError) {
        if pem.contains("PRIVATE KEY") {
            let key = try P256Key(privatePEM: pem)
            try self.init(publicPEM: key.publicPEM())
            return
        }
        let key = try withBIO(pem) { bio in PEM_read_bio_PUBKEY(bio, nil, passphraseCallback, nil) }
        guard let key else { throw OpenSSLError("not a PEM public key") }
        try Self.requireP256(key)
        self.init(key, isPrivate: false)
    }

    private static func requireP256(_ key: OpaquePointer) throws(OpenSSLError) {
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1,
            String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            EVP_PKEY_free(key)
            throw OpenSSLError("the key is not an EC P-256 key")
        }
    }

    /// The private key as PKCS#8 PEM, the format of Apple's .p8 files.
    public func privatePEM() throws(OpenSSLError) -> String {
        guard isPrivate else { throw OpenSSLError("a public key has no private half") }
        return try writingBIO({ PEM_write_bio_PrivateKey($0, pkey, nil, nil, 0, nil, nil) }, "PEM_write_bio_PrivateKey")
    }

    /// The public point's coordinates, 32 bytes each (a JWK's `x` and `y`).
    public func publicCoordinates() throws(OpenSSLError) -> (x: Data, y: Data) {
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        try OpenSSLError.check(EVP_PKEY_get_octet_string_param(pkey, "pub", &point, point.count, &length), "EVP_PKEY_get_octet_string_param")
        guard length == 65, point[0] == 4 else { throw OpenSSLError("not an uncompressed P-256 point") }
        return (Data(point[1...32]), Data(point[33...64]))
    }

    public func publicPEM() throws(OpenSSLError) -> String {
        try writingBIO({ PEM_write_bio_PUBKEY($0, pkey) }, "PEM_write_bio_PUBKEY")
    }

    /// An ES256 signature of the message: SHA-256, then ECDSA, as raw r||s (64 bytes) as JWS wants.
    public func sign(_ message: Data) throws(OpenSSLError) -> Data {
        guard isPrivate else { throw OpenSSLError("a public key cannot sign") }
        guard let ctx = EVP_MD_CTX_new() else { throw OpenSSLError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(ctx) }
        try OpenSSLError.check(EVP_DigestSignInit(ctx, nil, EVP_sha256(), nil, pkey), "EVP_DigestSignInit")
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        let signed = message.withUnsafeBytes { raw in
            EVP_DigestSign(ctx, &der, &length, raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count)
        }
        try OpenSSLError.check(signed, "EVP_DigestSign")
        let raw: Data? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &cursor, length) else { return nil }
            defer { ECDSA_SIG_free(sig) }
            var out = [UInt8](repeating: 0, count: 64)
            guard BN_bn2binpad(ECDSA_SIG_get0_r(sig), &out, 32) == 32,
                BN_bn2binpad(ECDSA_SIG_get0_s(sig), &out[32], 32) == 32
            else { return nil }
            return Data(out)
        }
        guard let raw else { throw OpenSSLError("could not convert the ECDSA signature") }
        return raw
    }

    /// Checks a raw r||s ES256 signature.
    public func verify(_ signature: Data, for message: Data) -> Bool {
        guard signature.count == 64, let sig = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(sig) }
        let bytes = [UInt8](signature)
        guard let r = BN_bin2bn(bytes, 32, nil) else { return false }
        guard let s = BN_bin2bn(Array(bytes[32...]), 32, nil) else {
            BN_free(r)
            return false
        }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return false
        }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(sig, &der)
        guard length > 0, let der else { return false }
        defer { COpenSSL_free(der) }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, EVP_sha256(), nil, pkey) == 1 else { return false }
        return message.withUnsafeBytes { raw in
            EVP_DigestVerify(ctx, der, Int(length), raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count) == 1
        }
    }
}
