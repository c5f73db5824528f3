import Foundation
import SoarStore

/// A GoTrue error: its HTTP status, `error_code` and message, as supabase clients parse them.
public struct AuthError: Error, Sendable, Equatable {
    public let status: Int
    public let code: String
    public let message: String
    /// Whole seconds before trying again (the `Retry-After` of a 429).
    public var retryAfter: Int?
    /// Why a password is weak (`length`), as GoTrue's `weak_password.reasons`.
    public var reasons: [String]?
    /// Answered as GoTrue answers OAuth and identity-token errors: `{error, error_description}`.
    public var oauthStyle = false

    public init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public static let invalidCredentials = AuthError(400, "invalid_credentials", "Invalid login credentials")
    public static let userAlreadyExists = AuthError(422, "user_already_exists", "User already registered")
    public static let emailExists = AuthError(422, "email_exists", "A user with this email address has already been registered")
    public static func weakPassword(_ minimum: Int) -> AuthError {
        var error = AuthError(422, "weak_password", "Password should be at least \(minimum) characters.")
        error.reasons = ["length"]
        return error
    }
    public static let refreshTokenNotFound = AuthError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
    public static let refreshTokenAlreadyUsed = AuthError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used")
    public static let sessionNotFound = AuthError(403, "session_not_found", "Session from session_id claim in JWT does not exist")
    public static func badJWT(_ why: String) -> AuthError { AuthError(403, "bad_jwt", "invalid JWT: unable to parse or verify signature, \(why)") }
    public static let noAuthorization = AuthError(401, "no_authorization", "This endpoint requires a Bearer token")
    public static let notAdmin = AuthError(403, "not_admin", "User not allowed")
    public static let userNotFound = AuthError(404, "user_not_found", "User not found")
    public static func rateLimited(retryAfter seconds: TimeInterval) -> AuthError {
        var error = AuthError(429, "over_request_rate_limit", "Request rate limit reached")
        error.retryAfter = max(1, Int(seconds.rounded(.up)))
        return error
    }
    public static func validation(_ message: String) -> AuthError { AuthError(400, "validation_failed", message) }
    public static func unsupportedGrant(_ grant: String) -> AuthError {
        AuthError(400, "unsupported_grant_type", "unsupported_grant_type: \(grant.isEmpty ? "missing grant_type" : grant)")
    }
    /// Soar itself failed (a signature, a random number): 500.
    public static func internalFailure(_ why: String) -> AuthError { AuthError(500, "unexpected_failure", why) }
    /// Anything else that failed underneath: a ``StoreError`` as above, else a 500.
    public static func storeFailed(_ error: any Error) -> AuthError {
        if let error = error as? StoreError { return storeFailed(error) }
        return AuthError(500, "unexpected_failure", "\(error)")
    }
    /// The store failed: 503 while it is unavailable, so clients retry (supabase clients sign the
    /// user out after a failed refresh answered with anything but 502, 503 or 504); else 500.
    public static func storeFailed(_ error: StoreError) -> AuthError {
        AuthError(error.isClientError ? 500 : 503, "unexpected_failure", error.message)
    }
}
