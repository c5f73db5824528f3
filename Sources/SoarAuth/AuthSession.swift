import SoarCore
import SoarStore

/// A signed-in session as GoTrue answers it.
public struct AuthSession: Sendable {
    public let accessToken: String
    public let refreshToken: String
    public let expiresIn: Int
    public let expiresAt: Int
    public let user: AuthUser
    /// The user's second factors (GoTrue lists them with the user: clients read the next level from them).
    public var factors: [MFAFactor] = []

    public init(accessToken: String, refreshToken: String, expiresIn: Int, expiresAt: Int, user: AuthUser, factors: [MFAFactor] = []) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.expiresAt = expiresAt
        self.user = user
        self.factors = factors
    }

    /// GoTrue's session object: every field supabase-py, -js and -swift require.
    public var json: JSONValue {
        var person = user.json.objectValue ?? [:]
        if !factors.isEmpty { person["factors"] = .array(factors.map(\.json)) }
        return [
            "access_token": .string(accessToken), "token_type": "bearer", "expires_in": .int(expiresIn),
            "expires_at": .int(expiresAt), "refresh_token": .string(refreshToken), "user": .object(person),
        ]
    }
}

extension AuthUser {
    /// GoTrue's user object (no password hash, ever).
    public var json: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        var object: [String: JSONValue] = [
            "id": .string(id), "aud": .string(aud), "role": .string(role), "email": .string(email ?? ""), "phone": .string(phone ?? ""),
            "app_metadata": .object(appMetadata), "user_metadata": .object(userMetadata), "identities": [],
            "created_at": .string(createdAt), "updated_at": .string(updatedAt), "is_anonymous": .bool(isAnonymous),
        ]
        if let emailConfirmedAt {
            object["email_confirmed_at"] = .string(emailConfirmedAt)
            object["confirmed_at"] = .string(emailConfirmedAt)
        }
        object["last_sign_in_at"] = text(lastSignInAt)
        if let newEmail {
            object["new_email"] = .string(newEmail)
            object["email_change_sent_at"] = text(emailChangeSentAt)
        }
        return .object(object)
    }
}
