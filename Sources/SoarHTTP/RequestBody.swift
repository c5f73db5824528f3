import Foundation

/// Where a request's body goes, decided once its headers are in (see `HTTPServer`'s
/// `bodyDestination`): read whole into ``HTTPRequest/body``, streamed to a sink, or refused
/// before any of it is read.
public enum BodyDestination: Sendable {
    /// Read whole, up to the server's `maxBodySize`.
    case memory
    /// Handed to the sink chunk by chunk, never held whole; the request then carries it.
    case stream(any RequestBodySink)
    /// Answered once the body is in, and the connection closed; the body is read and dropped
    /// (up to 64 MB; past it the connection is cut), never kept: a client that sends its whole
    /// body before reading (most do) would otherwise see the connection reset, not the answer.
    case refuse(HTTPResponse)
}

/// Takes a streamed body as it arrives, on libmicrohttpd's thread of that connection.
public protocol RequestBodySink: AnyObject, Sendable {
    /// The next bytes of the body.
    ///
    /// - Returns: nil to go on, or the answer that ends the request (a body over a limit):
    ///   the rest of the body is then dropped, not handed to the sink.
    func write(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse?
}

/// A response body read from an open file: libmicrohttpd sends `length` bytes from `offset`
/// (with `sendfile` where it can) and closes the descriptor once done.
public struct FileBody: Sendable {
    public let descriptor: Int32
    public let offset: Int64
    public let length: Int64

    public init(descriptor: Int32, offset: Int64, length: Int64) {
        self.descriptor = descriptor
        self.offset = offset
        self.length = length
    }
}
