import Foundation
import SoarCore
import SoarCrypto
import Synchronization

/// The provider token of one team and key, shared by every connection and request.
///
/// Signed once and reused; re-signed when it is older than the refresh interval (Apple allows
/// 20 to 60 minutes) or after APNs answered `ExpiredProviderToken`. Never signed per request.
public final class ProviderTokenCache: Sendable {
    public static let minimumRefresh: TimeInterval = 20 * 60
    public static let maximumRefresh: TimeInterval = 60 * 60

    let teamID: String
    let keyID: String
    let key: P256Key
    /// How long a token is used, clamped to Apple's 20...60 minutes.
    public let refreshInterval: TimeInterval
    let now: @Sendable () -> Date
    private let cache = Locked<(token: String, authorization: String, issuedAt: Date)?>(nil)

    public init(teamID: String, keyID: String, key: P256Key, refreshInterval: TimeInterval = 50 * 60, now: @escaping @Sendable () -> Date = Date.init) {
        self.teamID = teamID
        self.keyID = keyID
        self.key = key
        self.refreshInterval = min(max(refreshInterval, Self.minimumRefresh), Self.maximumRefresh)
        self.now = now
    }

    /// The token to send now, signing a new one when due.
    ///
    /// - Throws: ``OpenSSLError`` if signing fails (a key OpenSSL cannot use).
    public func token() throws(OpenSSLError) -> String { try current().token }

    /// The token and its `authorization` header value (`bearer <token>`), made once per token
    /// rather than once per request.
    ///
    /// - Throws: ``OpenSSLError`` if signing fails.
    public func current() throws(OpenSSLError) -> (token: String, authorization: String) {
        let now = now()
        return try cache.withLock { (cached) throws(OpenSSLError) -> (token: String, authorization: String) in
            if let cached, now.timeIntervalSince(cached.issuedAt) < refreshInterval, now >= cached.issuedAt {
                return (cached.token, cached.authorization)
            }
            let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
            let jwt = JWT(header: ["kid": .string(keyID)], claims: ["iss": .string(teamID), "iat": .int(Int(issuedAt.timeIntervalSince1970))])
            let token = try jwt.signed(with: key)
            let authorization = "bearer " + token
            cached = (token, authorization, issuedAt)
            return (token, authorization)
        }
    }

    /// Drops `token` so the next request signs a fresh one (after `ExpiredProviderToken`); a token
    /// already replaced by another request is left alone.
    public func invalidate(_ token: String) {
        cache.withLock { cached in
            if cached?.token == token { cached = nil }
        }
    }
}
