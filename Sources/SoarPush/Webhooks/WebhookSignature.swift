import Foundation
import SoarCrypto

/// Standard Webhooks' signing: the headers `webhook-id`, `webhook-timestamp` (Unix seconds) and
/// `webhook-signature` (`v1,` and the base64 of an HMAC-SHA256 over `id.timestamp.body`, keyed
/// by the bytes after a secret's `whsec_`).
public enum WebhookSignature {
    public static let secretPrefix = "whsec_"

    /// A new secret: 24 random bytes.
    public static func newSecret() -> String {
        secretPrefix + ((try? randomBytes(24)) ?? Data(UUID().uuidString.utf8)).base64EncodedString()
    }

    /// Whether `secret` is one this scheme can sign with (`whsec_` and base64 of 24 to 64 bytes).
    public static func isValid(secret: String) -> Bool {
        guard let key = key(of: secret) else { return false }
        return (24...64).contains(key.count)
    }

    /// The three headers for one attempt at a message.
    public static func headers(id: String, timestamp: Int, body: Data, secret: String) -> [(String, String)] {
        [("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", signature(id: id, timestamp: timestamp, body: body, secret: secret))]
    }

    public static func signature(id: String, timestamp: Int, body: Data, secret: String) -> String {
        let key = key(of: secret) ?? Data()
        let mac = (try? hmacSHA256(key: key, message: Data("\(id).\(timestamp).".utf8) + body)) ?? Data()
        return "v1," + mac.base64EncodedString()
    }

    private static func key(of secret: String) -> Data? {
        guard secret.hasPrefix(secretPrefix) else { return nil }
        return Data(base64Encoded: String(secret.dropFirst(secretPrefix.count)))
    }
}
