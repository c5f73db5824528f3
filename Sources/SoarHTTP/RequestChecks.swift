import Foundation
import SoarCore

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

    /// Whether `bytes` begin with `HTTP/` (a request line's version, read up to its first mismatch).
    static func startsWithVersion(_ bytes: UnsafePointer<UInt8>) -> Bool {
        for (offset, expected) in "HTTP/".utf8.enumerated() where bytes[offset] != expected { return false }
        return true
    }

    /// RFC 9112 §6.3 on a request's framing: `Content-Length` values that differ are a 400 (the
    /// first would frame the body and the rest be read as another request); with
    /// `Transfer-Encoding` too, the latter frames it and the connection closes after the answer.
    /// A field name with white space in it (`Content-Length : 3`) is a 400 too (§5.1), as are a
    /// length that is not digits and a transfer coding other than `chunked` (501, which a server
    /// answers for a coding it does not implement).
    static func framing(headers: [(String, String)]) -> (refusal: Refusal?, closeAfter: Bool) {
        if let name = headers.first(where: { $0.0.utf8.contains { $0 == 32 || $0 == 9 } })?.0 {
            return (Refusal(status: 400, reason: "the header \"\(name)\" has white space in its name"), true)
        }
        let digits = { (text: String) in !text.isEmpty && text.utf8.allSatisfy { (48...57).contains($0) } }
        let lengthFields = headers.filter { $0.0.equalsIgnoringASCIICase("content-length") }.map(\.1)
        // Mostly one field of plain digits; a list or several fields are read value by value.
        let lengths = lengthFields.count == 1 && digits(lengthFields[0])
            ? lengthFields
            : lengthFields.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces } }
        if !lengths.allSatisfy(digits) {
            return (Refusal(status: 400, reason: "the request's Content-Length is not a number"), true)
        }
        if lengths.count > 1 && Set(lengths).count > 1 { return (Refusal(status: 400, reason: "the request has Content-Length values that differ"), true) }
        let codings = headers.filter { $0.0.equalsIgnoringASCIICase("transfer-encoding") }.map { $0.1.trimmingSpaces.lowercased() }
        if codings.contains(where: { $0 != "chunked" }) {
            return (Refusal(status: 501, reason: "the transfer coding \"\(codings.joined(separator: ", "))\" is not supported; send chunked or a Content-Length"), true)
        }
        return (nil, !codings.isEmpty && !lengths.isEmpty)
    }
}
