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
    /// Set by a route whose answer comes once work elsewhere is done (an insert the store's
    /// writer thread commits); what the route returns then is not sent.
    var later: Later?

    func header(_ name: String) -> String? { request.headers[name] }

    /// The body as JSON; an empty body is `{}`.
    ///
    /// - Throws: the error `invalid` builds from the parser's message.
    func json(_ invalid: (String) -> ServerError) throws(ServerError) -> JSONValue {
        if request.body.isEmpty { return .object([:]) }
        do { return try JSONValue.read(request.body) } catch { throw invalid(error.description) }
    }
}

/// A route's answer to come: `start` begins the work and, once it is done, calls its argument
/// once, from any thread, with the outcome to build on the HTTP thread.
struct Later: Sendable {
    typealias Outcome = @Sendable () -> Result<HTTPResponse, ServerError>
    let start: @Sendable (_ done: @escaping @Sendable (@escaping Outcome) -> Void) -> Void
}
