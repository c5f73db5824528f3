import CNghttp2
import Foundation

/// An nghttp2 call that failed, with nghttp2's words for it.
public struct H2Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call, such as `nghttp2_submit_request`.
    public let call: String
    /// nghttp2's (negative) error code.
    public let code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String { "\(call): \(String(cString: nghttp2_strerror(code)))" }

    /// The session starts no new stream: it has used every stream id it may (2^31), or a GOAWAY
    /// went either way. A new connection is needed.
    public var takesNoNewStreams: Bool {
        code == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue || code == NGHTTP2_ERR_START_STREAM_NOT_ALLOWED.rawValue
    }
}

extension H2Error {
    /// The name of an HTTP/2 error code from RST_STREAM or GOAWAY, such as `INTERNAL_ERROR`.
    public static func name(ofStreamError code: UInt32) -> String {
        String(cString: nghttp2_http2_strerror(code))
    }
}
