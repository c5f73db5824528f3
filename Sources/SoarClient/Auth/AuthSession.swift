import Foundation

/// A signed-in session as GoTrue answers it and the client keeps it.
public struct AuthSession: Codable, Hashable, Sendable {
    public var accessToken: String
    public var tokenType: String
    public var expiresIn: Int
    /// Unix seconds after which the access token is refused.
    public var expiresAt: Int
    public var refreshToken: String
    public var user: AuthUser

    public init(accessToken: String, tokenType: String = "bearer", expiresIn: Int, expiresAt: Int, refreshToken: String, user: AuthUser) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
        self.refreshToken = refreshToken
        self.user = user
    }

    /// The moment the access token expires.
    public var expiry: Date { Date(timeIntervalSince1970: TimeInterval(expiresAt)) }

    enum CodingKeys: String, CodingKey {
        case user
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
    }
}

/// The signed-in user, as much of GoTrue's user as an app reads.
public struct AuthUser: Codable, Hashable, Sendable {
    public var id: UUID
    public var email: String?
    public var role: String?
    public var isAnonymous: Bool?

    public init(id: UUID, email: String? = nil, role: String? = "authenticated", isAnonymous: Bool? = false) {
        self.id = id
        self.email = email
        self.role = role
        self.isAnonymous = isAnonymous
    }

    enum CodingKeys: String, CodingKey {
        case id, email, role
        case isAnonymous = "is_anonymous"
    }
}
