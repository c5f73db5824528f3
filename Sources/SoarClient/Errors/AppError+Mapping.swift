import Foundation
import SoarCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension AppError {
    /// Translates anything a call threw into a friendly error; an ``AppError`` passes through.
    public static func map(_ error: any Error) -> AppError {
        switch error {
        case let error as AppError: return error
        case let error as URLError: return AppError(urlError: error)
        case let error as HTTPFailure: return AppError(status: error.status, body: error.body, original: error)
        default: return AppError(.unknown, Messages.unknown, original: error)
        }
    }

    /// A transport failure: offline, timed out, or unreachable.
    public init(urlError: URLError) {
        switch urlError.code {
        case .timedOut: self.init(.network, Messages.timedOut, original: urlError)
        case .cancelled: self.init(.unknown, "The request was cancelled.", original: urlError)
        case .userAuthenticationRequired: self.init(.authentication, Messages.authentication, original: urlError)
        case .badServerResponse, .cannotParseResponse: self.init(.unknown, Messages.server, original: urlError)
        default: self.init(.network, Messages.offline, original: urlError)
        }
    }

    /// An HTTP error answer, read the way Supabase's services write them.
    ///
    /// GoTrue answers carry `error_code` (or `code` as a string), PostgREST ones `code` and
    /// `message`; a known auth code wins over the status.
    public init(status: Int, body: Data? = nil, original: (any Error)? = nil) {
        let fields = body.flatMap { try? JSONValue.read($0).objectValue } ?? [:]
        let original = original ?? HTTPFailure(status: status, body: body ?? Data())
        let code = fields["error_code"]?.stringValue ?? fields["code"]?.stringValue
        if let code, let known = Self.authCodes[code] {
            self.init(known.code, known.message, original: original)
            return
        }
        let serverText = fields["msg"]?.stringValue ?? fields["message"]?.stringValue ?? fields["error_description"]?.stringValue
        switch status {
        case 401 where serverText == "Invalid API key":
            // The app's own key, not the user's session: no sign-in fixes it.
            self.init(.authentication, Messages.invalidAPIKey, original: original)
        case 401, 403: self.init(.authentication, Messages.authentication, original: original)
        case 404: self.init(.notFound, Messages.notFound, original: original)
        case 406 where code == "PGRST116": self.init(.notFound, Messages.notFound, original: original)
        case 408, 504: self.init(.network, Messages.timedOut, original: original)
        case 429: self.init(.rateLimited, Messages.rateLimited, original: original)
        case 400, 409, 412, 413, 422: self.init(.validation, serverText ?? "Check what you entered and try again.", original: original)
        case 500...599: self.init(.unknown, Messages.server, original: original)
        default: self.init(.unknown, serverText ?? Messages.unknown, original: original)
        }
    }

    /// A Supabase auth error code, such as `invalid_credentials`.
    public init(authCode: String, original: (any Error)? = nil) {
        let known = Self.authCodes[authCode] ?? (.authentication, Messages.authentication)
        self.init(known.code, known.message, original: original)
    }

    /// GoTrue's error codes and what the user reads for each.
    static let authCodes: [String: (code: Code, message: String)] = [
        "invalid_credentials": (.authentication, Messages.invalidCredentials),
        "email_not_confirmed": (.authentication, "Confirm your email address, then sign in."),
        "user_not_found": (.notFound, "No account uses that email address."),
        "user_already_exists": (.validation, "An account with that email already exists."),
        "email_exists": (.validation, "An account with that email already exists."),
        "weak_password": (.validation, "Choose a stronger password (at least 6 characters)."),
        "email_address_invalid": (.validation, "That email address is not valid."),
        "validation_failed": (.validation, "Check what you entered and try again."),
        "session_expired": (.authentication, "Your session has expired. Please sign in again."),
        "session_not_found": (.authentication, "Your session has expired. Please sign in again."),
        "refresh_token_not_found": (.authentication, "Your session has expired. Please sign in again."),
        "refresh_token_already_used": (.authentication, "Your session has expired. Please sign in again."),
        "bad_jwt": (.authentication, Messages.authentication),
        "no_authorization": (.authentication, Messages.authentication),
        "over_request_rate_limit": (.rateLimited, Messages.rateLimited),
        "over_email_send_rate_limit": (.rateLimited, "Too many emails sent. Wait a few minutes and try again."),
        "signup_disabled": (.validation, "Sign-ups are turned off for this app."),
        "otp_expired": (.authentication, "That code or link has expired or was already used. Ask for a new one."),
        "otp_disabled": (.notFound, "No account uses that email address."),
        "provider_disabled": (.validation, "This way of signing in is turned off for this app."),
        "invalid_request": (.authentication, "Sign in with Apple did not work. Please try again."),
        "bad_code_verifier": (.authentication, "That sign-in link was opened on another device. Ask for a new one here."),
        "flow_state_not_found": (.authentication, "That code or link has expired or was already used. Ask for a new one."),
        "flow_state_expired": (.authentication, "That code or link has expired or was already used. Ask for a new one."),
        "mfa_verification_failed": (.authentication, "That code is not right. Check your authenticator app and try again."),
        "mfa_challenge_expired": (.authentication, "That code took too long. Try again with the code shown now."),
        "mfa_challenge_not_found": (.authentication, "That code took too long. Try again with the code shown now."),
        "mfa_factor_not_found": (.notFound, "That authenticator is no longer set up for this account."),
        "mfa_factor_name_conflict": (.validation, "An authenticator with that name is already set up."),
        "too_many_enrolled_mfa_factors": (.validation, "Remove an authenticator before adding another."),
        "insufficient_aal": (.authentication, "Enter the code from your authenticator app first."),
    ]
}

/// A non-success HTTP answer, as a data source throws it before ``AppError/map(_:)`` reads it.
public struct HTTPFailure: Error, Sendable, CustomStringConvertible {
    public let status: Int
    public let body: Data

    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }

    public var description: String { "HTTP \(status): \(String(decoding: body.prefix(500), as: UTF8.self))" }
}
