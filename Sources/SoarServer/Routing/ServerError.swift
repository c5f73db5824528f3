import SoarAuth
import SoarCore
import SoarHTTP
import SoarStorage
import SoarStore

/// An error answer: its HTTP status and the wire shape of the service that raised it.
///
/// Handlers throw these; only ``response`` builds error bodies.
public struct ServerError: Error, Sendable {
    enum Shape: Sendable {
        /// GoTrue: `{code, error_code, msg}`.
        case auth(AuthError)
        /// PostgREST: `{code, message, details, hint}`.
        case rest(code: String, message: String, details: String?, hint: String?)
        /// The API gateway's `{message}` (with `code` when there is one).
        case gateway(message: String, code: String?)
        /// A function's own answer: `{error, message}`, `error` a stable code.
        case function(code: String, message: String)
        /// Supabase Storage: `{statusCode, error, message, code}`, the logical status in the body.
        case storage(StorageError)
    }

    let status: Int
    let shape: Shape

    public static func auth(_ error: AuthError) -> ServerError { ServerError(status: error.status, shape: .auth(error)) }

    public static func rest(_ status: Int, _ code: String, _ message: String, details: String? = nil, hint: String? = nil) -> ServerError {
        ServerError(status: status, shape: .rest(code: code, message: message, details: details, hint: hint))
    }

    public static func gateway(_ status: Int, _ message: String, code: String? = nil) -> ServerError {
        ServerError(status: status, shape: .gateway(message: message, code: code))
    }

    public static func storage(_ error: StorageError) -> ServerError {
        ServerError(status: error.httpStatus, shape: .storage(error))
    }

    public static func function(_ status: Int, _ code: String, _ message: String) -> ServerError {
        ServerError(status: status, shape: .function(code: code, message: message))
    }

    /// A store error with PostgREST's status for its SQLSTATE; 42501 is 401 for anon, 403 otherwise.
    public static func store(_ error: StoreError, role: Access.Role) -> ServerError {
        let status: Int
        switch error.code {
        case "23505", "23503": status = 409
        case "42501": status = role == .anon ? 401 : 403
        case "XX000": status = 503
        // PostgREST's: an undefined table or function is 404; a transaction the database gave up
        // (serialization, deadlock, timeout, lock not available, aborted) is 500.
        case "42P01", "42883", "PGRST202": status = 404
        case "PGRST116": status = 406
        case "40001", "40P01", "57014", "55P03", "25P02", "42P17": status = 500
        default: status = 400
        }
        return .rest(status, error.code, error.message, details: error.details, hint: error.hint)
    }

    /// The stable code of the error (`23514`, `invalid_credentials`, `apns_not_configured`…).
    var code: String {
        switch shape {
        case .auth(let error): error.code
        case .rest(let code, _, _, _), .function(let code, _): code
        case .gateway(_, let code): code ?? String(status)
        case .storage(let error): error.code
        }
    }

    static let storeUnavailable = "the database is unavailable; try again shortly"

    /// Whether the server (not the client) failed: counted as a store error and logged.
    var isServerFault: Bool { status >= 500 }

    /// The answer to `request` (an auth error's shape follows its `X-Supabase-Api-Version`).
    func response(to request: HTTPRequest) -> HTTPResponse {
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        // An unavailable store (503) has its own words (hosts, ports, roles) logged, not answered.
        let unavailable = status == 503
        switch shape {
        case .auth(let error) where error.oauthStyle:
            return .json(status, ["error": "invalid request", "error_description": .string(error.message)])
        case .auth(let error):
            let message = unavailable ? Self.storeUnavailable : error.message
            let code = error.code.isEmpty ? (status == 500 ? "unexpected_failure" : "unknown") : error.code
            var response: HTTPResponse
            if AuthAPIVersion(request.headers["x-supabase-api-version"]) != nil {
                // GoTrue's shape since 2024-01-01 (supabase-swift decodes `code` as a string), the version echoed.
                var body: [String: JSONValue] = ["code": .string(code), "message": .string(message)]
                if let reasons = error.reasons { body["weak_password"] = ["reasons": .array(reasons.map(JSONValue.string))] }
                response = .json(status, .object(body))
                response.headers.append(("x-supabase-api-version", AuthAPIVersion.v20240101))
            } else {
                var body: [String: JSONValue] = ["code": .int(error.status), "error_code": .string(code), "msg": .string(message)]
                if let reasons = error.reasons { body["weak_password"] = ["reasons": .array(reasons.map(JSONValue.string))] }
                response = .json(status, .object(body))
            }
            response.headers.append(("x-sb-error-code", code))
            if let seconds = error.retryAfter { response.headers.append(("retry-after", String(seconds))) }
            return response
        case .rest(let code, let message, let details, let hint):
            if unavailable { return .json(status, ["code": .string(code), "message": .string(Self.storeUnavailable), "details": .null, "hint": .null]) }
            return .json(status, ["code": .string(code), "message": .string(message), "details": text(details), "hint": text(hint)])
        case .gateway(let message, let code):
            var body: [String: JSONValue] = ["message": .string(message)]
            if let code { body["code"] = .string(code) }
            return .json(status, .object(body))
        case .function(let code, let message):
            return .json(status, ["error": .string(code), "message": .string(message)])
        case .storage(let error):
            let message = status >= 500 ? "Internal Server Error" : error.message
            var response = HTTPResponse.json(status, ["statusCode": .string(String(error.status)), "error": .string(error.error), "message": .string(message), "code": .string(error.code)])
            if let range = error.contentRange { response.headers.append(("content-range", range)) }
            return response
        }
    }
}

/// GoTrue's API versions, from the `X-Supabase-Api-Version` header (a date): 2024-01-01 or later
/// answers errors as `{code, message}`; none, an earlier date or no date at all, the first shape.
struct AuthAPIVersion {
    static let v20240101 = "2024-01-01"

    init?(_ header: String?) {
        // A date as YYYY-MM-DD compares as text.
        guard let header, header.count == 10, header.utf8.enumerated().allSatisfy({ [4, 7].contains($0.offset) ? $0.element == UInt8(ascii: "-") : (48...57).contains($0.element) }),
            header >= Self.v20240101, let month = Int(header.dropFirst(5).prefix(2)), (1...12).contains(month),
            let day = Int(header.suffix(2)), (1...31).contains(day)
        else { return nil }
    }
}
