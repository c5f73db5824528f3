import CMicroHTTPD
import Foundation

/// An HTTP/1.1 server on libmicrohttpd: an epoll thread pool calling one handler per request.
///
/// The handler runs on libmicrohttpd's threads and must be thread-safe. Bodies over
/// ``maxBodySize`` are answered 413 without reaching it.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public static let maxBodySize = 1 << 20

    let handler: Handler
    private var daemon: OpaquePointer?
    /// The bound port (the chosen one when asked for port 0).
    public private(set) var port: UInt16 = 0

    /// Starts listening on `host` (an IPv4 or IPv6 literal) and `port`; 0 picks a free port.
    ///
    /// - Throws: ``HTTPServerError`` when the address is bad or the port is taken.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, threads: Int = 2, handler: @escaping Handler) throws(HTTPServerError) {
        self.handler = handler
        let context = Unmanaged.passUnretained(self).toOpaque()
        // No MHD_USE_ERROR_LOG: libmicrohttpd's own lines ("Failed to bind to port …") would repeat
        // the error thrown below in another voice; `soar serve` will route its log through its own.
        let flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue)
        guard let address = SocketAddress(host: host, port: port) else { throw HTTPServerError("not an IP address: \(host)") }
        let family = address.isIPv6 ? UInt32(MHD_USE_IPv6.rawValue) : 0
        let daemon = address.withSockaddr { pointer, _ in
            CMicroHTTPD_start(flags | family, port, UInt32(threads), httpAccessHandler, context, httpRequestCompleted, context, pointer)
        }
        guard let daemon else { throw HTTPServerError("cannot listen on \(host):\(port) (is the port in use?)") }
        self.daemon = daemon
        self.port = CMicroHTTPD_port(daemon)
    }

    /// Stops accepting and closes every connection. Safe to call twice.
    public func stop() {
        if let daemon {
            MHD_stop_daemon(daemon)
            self.daemon = nil
        }
    }

    deinit { stop() }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
