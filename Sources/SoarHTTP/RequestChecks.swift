import Foundation

/// What libmicrohttpd lets through that a request must not be: checked before the handler sees it.
enum RequestChecks {
    /// A request answered here: its status and why.
    struct Refusal {
        let status: Int
        let reason: String
        var response: HTTPResponse { .error(status, reason) }
    }

    /// A request line's target, still percent-encoded: 400 for a `%00` (decoded, it would cut the
    /// path or a value short), 414 for more query parameters than ``HTTPServer/Limits/maxQueryParameters``
    /// or a target over half the connection's memory (libmicrohttpd would have too little left
    /// for the headers, and give up without an answer).
    static func refusal(target: UnsafeBufferPointer<UInt8>, limits: HTTPServer.Limits) -> Refusal? {
        if target.count > limits.connectionMemory / 2 {
            return Refusal(status: 414, reason: "the request target is over \(limits.connectionMemory / 2) bytes")
        }
        let percent = UInt8(ascii: "%"), zero = UInt8(ascii: "0")
        for index in target.indices.dropLast(2) where target[index] == percent && target[index + 1] == zero && target[index + 2] == zero {
            return Refusal(status: 400, reason: "the request target holds a NUL character (%00)")
        }
        guard let question = target.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let parameters = target[(question + 1)...].split(separator: UInt8(ascii: "&")).count
        if parameters > limits.maxQueryParameters {
            return Refusal(status: 414, reason: "the request has \(parameters) query parameters; at most \(limits.maxQueryParameters) are taken")
        }
        return nil
    }

    /// RFC 9112 §6.3 on a request's framing: `Content-Length` values that differ are a 400 (the
    /// first would frame the body and the rest be read as another request); with
    /// `Transfer-Encoding` too, the latter frames it and the connection closes after the answer.
    static func framing(headers: [(String, String)]) -> (refusal: Refusal?, closeAfter: Bool) {
        let lengths = headers.filter { $0.0.lowercased() == "content-length" }
            .flatMap { $0.1.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        if Set(lengths).count > 1 { return (Refusal(status: 400, reason: "the request has Content-Length values that differ"), true) }
        let chunked = headers.contains { $0.0.lowercased() == "transfer-encoding" }
        return (nil, chunked && !lengths.isEmpty)
    }
}
