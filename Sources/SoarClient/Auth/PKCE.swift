import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#else
    import SoarCrypto
#endif

/// PKCE's pair (RFC 7636): a verifier kept on the device, and its SHA-256 sent as the challenge,
/// so that only this device can exchange what a mailed link answers.
struct PKCE: Sendable {
    let verifier: String

    /// A new verifier: 48 random bytes, 64 characters.
    init() {
        var generator = SystemRandomNumberGenerator()  // cryptographically secure on every platform
        verifier = Self.base64URL(Data((0..<48).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    init(verifier: String) { self.verifier = verifier }

    /// `code_challenge` for `code_challenge_method` s256.
    var challenge: String {
        #if canImport(CryptoKit)
            Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
        #else
            Self.base64URL(sha256(Data(verifier.utf8)))
        #endif
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
