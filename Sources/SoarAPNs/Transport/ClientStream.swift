import Foundation

/// One request on the wire and what has come back for it so far.
final class ClientStream {
    let request: TransportRequest
    let completion: @Sendable (TransportResult) -> Void
    /// Milliseconds on the transport's monotonic clock by which an answer must have come.
    let deadline: UInt64
    var bodyOffset = 0
    /// Set once the HEADERS frame has left: only then may the server have seen the request.
    var sent = false
    var status = 0
    var headers: [String: String] = [:]
    var body = Data()

    /// Bodies of answers are kept up to this size (APNs sends a few dozen bytes).
    static let maxBody = 64 * 1024

    init(_ request: TransportRequest, deadline: UInt64, completion: @escaping @Sendable (TransportResult) -> Void) {
        self.request = request
        self.deadline = deadline
        self.completion = completion
    }

    /// Forgets what one attempt sent and received, before the stream goes out again.
    func rewind() {
        bodyOffset = 0
        sent = false
        status = 0
        headers.removeAll()
        body.removeAll()
    }

    var result: TransportResult { .response(status: status, headers: headers, body: body) }
}
