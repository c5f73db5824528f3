import Foundation
import SoarCore
import SoarHTTP
import SoarStore

/// One request on its way through the server: the HTTP request, its route parameters, and who
/// it runs as once the gateway has checked its keys.
struct Exchange: Sendable {
    let request: HTTPRequest
    let requestID: String
    var parameters: [String: String] = [:]
    /// Set by ``Gateway`` from the JWT; anon until then.
    var access = Access.anon
    var sessionID: String?
    /// The bearer token as given (for auth endpoints), never logged.
    var bearer: String?

    func header(_ name: String) -> String? { request.headers[name] }

    /// The body as JSON; an empty body is `{}`.
    ///
    /// - Throws: the error `invalid` builds from the parser's message.
    func json(_ invalid: (String) -> ServerError) throws(ServerError) -> JSONValue {
        if request.body.isEmpty { return .object([:]) }
        do { return try JSONValue.read(request.body) } catch { throw invalid(error.description) }
    }
}
