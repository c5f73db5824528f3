import Foundation

/// One HTTP/2 POST as the transport sends it; the transport knows the scheme and authority.
///
/// A class: it is handed from thread to thread and table to table, one reference each time.
final class TransportRequest: Sendable {
    let path: String
    let headers: [(String, String)]
    /// The `authorization` value, apart so the shared header list is not copied for every request.
    let authorization: String?
    let body: Data

    init(path: String, headers: [(String, String)], authorization: String?, body: Data) {
        self.path = path
        self.headers = headers
        self.authorization = authorization
        self.body = body
    }
}

/// What came back, or why nothing did.
enum TransportResult: Sendable {
    case response(status: Int, headers: [(String, String)], body: Data)
    case failure(TransportError)
}

/// A request and what to run once it has ended.
struct TransportSubmission: Sendable {
    let request: TransportRequest
    let completion: @Sendable (TransportResult) -> Void
}

/// Carries requests to APNs. One implementation speaks HTTP/2 through nghttp2; tests may use others.
protocol Transport: Sendable {
    /// Sends requests handed over together, so they can leave together (in as few writes as the
    /// connections allow); each completion runs exactly once, on the transport's thread, and must
    /// return quickly.
    func submit(_ batch: [TransportSubmission])
    func shutdown()
}

extension Transport {
    func submit(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        submit([TransportSubmission(request: request, completion: completion)])
    }
}
