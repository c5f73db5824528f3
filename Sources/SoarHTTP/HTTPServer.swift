import CMicroHTTPD
import Foundation
import SoarCore
import Synchronization

/// An HTTP/1.1 server on libmicrohttpd: an epoll thread pool calling one handler per request.
///
/// The handler runs on libmicrohttpd's threads and must be thread-safe. It answers at once, or
/// returns nil and answers later through the ``LaterAnswer`` it was given. Bodies over
/// ``Limits/maxBodySize`` are answered by `oversized` (413) without reaching it; headers over the
/// connection memory limit are answered 431 by libmicrohttpd itself, and ambiguous framing, a
/// NUL in the target and too many query parameters are answered 400, 400 and 414 here (see
/// ``RequestChecks``). Over TLS when given a certificate and key.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// A handler that may answer later: nil once it has arranged for `later.send` to be called.
    public typealias DeferringHandler = @Sendable (HTTPRequest, LaterAnswer) -> HTTPResponse?

    /// What one client may cost the server.
    public struct Limits: Sendable {
        public var maxBodySize = 1 << 20
        /// Per-connection memory; request headers must fit in about half of it.
        public var connectionMemory = 32 << 10
        public var idleTimeoutSeconds = 30
        /// Seconds a request's headers may take, from the connection's start or the previous
        /// answer: libmicrohttpd's idle timer restarts at every byte, so a client sending a header
        /// line now and then would otherwise hold its connection for ever.
        public var headerTimeoutSeconds = 30
        /// Seconds a request's body may take once its headers are in (a 1 MB body over a slow
        /// mobile link fits well within the default).
        public var bodyTimeoutSeconds = 60
        public var maxConnections = 1024
        /// Open connections from one client address at most; 0 for none (behind a reverse proxy,
        /// every client has the proxy's address).
        public var maxConnectionsPerAddress = 256
        /// Query parameters a request may have (each costs libmicrohttpd memory of the connection's).
        public var maxQueryParameters = 200
        public var threads = 2

        public init() {}
    }

    /// A certificate chain and its private key, in PEM: the server speaks HTTPS.
    public struct TLS: Sendable {
        public let certificate: String
        public let key: String
        public init(certificate: String, key: String) {
            self.certificate = certificate
            self.key = key
        }
    }

    let handler: DeferringHandler
    let oversized: Handler
    /// Where each request's body goes, asked once its headers are in (its `body` is empty then).
    let bodyDestination: @Sendable (HTTPRequest) -> BodyDestination
    /// What the server tells its owner's log.
    public enum Notice: Sendable {
        /// A request refused before the handler: its status, why, and the client's address.
        case refused(status: Int, reason: String, client: String)
        /// libmicrohttpd's own words (a request too large for the connection's memory, a failed TLS handshake).
        case library(String)
    }

    let notify: @Sendable (Notice) -> Void
    /// Where libmicrohttpd's messages go; freed once the daemon is stopped.
    private let logger: UnsafeMutablePointer<CMicroHTTPD_Logger>
    let limits: Limits
    let inFlight = Atomic<Int>(0)
    /// Set by `shutdown`: requests that start now are answered 503 and their connection closed.
    let draining = Atomic<Bool>(false)
    let waiting = WaitingAnswers()
    let deadlines: RequestDeadlines
    /// libmicrohttpd's daemon, until stopped (its handle may be stopped from any thread).
    private struct Daemon: @unchecked Sendable { let handle: OpaquePointer }
    private let daemon = Locked<Daemon?>(nil)
    /// The bound port (the chosen one when asked for port 0).
    public private(set) var port: UInt16 = 0

    /// Starts listening on `host` (an IPv4 or IPv6 literal) and `port`; 0 picks a free port.
    ///
    /// - Throws: ``HTTPServerError`` when the address is bad or the port is taken.
    public convenience init(
        host: String = "127.0.0.1", port: UInt16 = 0, limits: Limits = Limits(),
        oversized: Handler? = nil, handler: @escaping Handler
    ) throws(HTTPServerError) {
        try self.init(host: host, port: port, limits: limits, oversized: oversized, deferringHandler: { request, _ in handler(request) })
    }

    /// As above, with a handler that may answer later, over TLS when `tls` is given.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 0, limits: Limits = Limits(), tls: TLS? = nil,
        oversized: Handler? = nil, notify: @escaping @Sendable (Notice) -> Void = { _ in },
        bodyDestination: @escaping @Sendable (HTTPRequest) -> BodyDestination = { _ in .memory },
        deferringHandler handler: @escaping DeferringHandler
    ) throws(HTTPServerError) {
        self.handler = handler
        self.bodyDestination = bodyDestination
        self.notify = notify
        logger = .allocate(capacity: 1)
        self.limits = limits
        deadlines = RequestDeadlines(limit: .seconds(limits.headerTimeoutSeconds), bodyLimit: .seconds(limits.bodyTimeoutSeconds))
        let maxBody = limits.maxBodySize
        self.oversized = oversized ?? { _ in .error(413, "the request body is over \(maxBody) bytes") }
        let context = Unmanaged.passUnretained(self).toOpaque()
        logger.initialize(to: CMicroHTTPD_Logger(log: httpLibraryMessage, context: context))
        // No MHD_USE_ERROR_LOG: libmicrohttpd's own lines ("Failed to bind to port …") would repeat
        // the error thrown below in another voice. MHD_USE_ITC wakes the threads to stop.
        // MHD_USE_TURBO reads and writes before asking epoll, which mostly succeeds under load.
        let flags = UInt32(
            MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_USE_ITC.rawValue | MHD_USE_TURBO.rawValue
                | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_ALLOW_UPGRADE.rawValue)
        guard let address = SocketAddress(host: host, port: port) else { throw HTTPServerError("not an IP address: \(host)") }
        let family = address.isIPv6 ? UInt32(MHD_USE_IPv6.rawValue) : 0
        let started = address.withSockaddr { pointer, _ in
            CMicroHTTPD_start(
                flags | family, port, UInt32(limits.threads), httpAccessHandler, context, httpRequestCompleted, httpRequestLine,
                httpConnectionChanged, pointer, limits.connectionMemory, UInt32(limits.idleTimeoutSeconds), UInt32(limits.maxConnections),
                UInt32(limits.maxConnectionsPerAddress), tls?.certificate, tls?.key, logger)
        }
        guard let started else {
            // deinit, which runs for a throwing init too, stops the rest and frees the logger.
            if tls != nil { throw HTTPServerError("cannot listen on \(host):\(port) with TLS (is the port in use, or the certificate or key not PEM, or not a pair?)") }
            throw HTTPServerError("cannot listen on \(host):\(port) (is the port in use?)")
        }
        daemon.withLock { $0 = Daemon(handle: started) }
        self.port = CMicroHTTPD_port(started)
    }

    func tooLarge(_ request: HTTPRequest) -> HTTPResponse { oversized(request) }

    /// The answer to a request that starts once `shutdown` began.
    static let stopping: HTTPResponse = {
        var response = HTTPResponse.error(503, "the server is shutting down")
        response.headers.append(("connection", "close"))
        return response
    }()

    /// Requests being handled right now, including those waiting for a later answer.
    public var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Stops taking requests (one that starts now is answered 503, and its connection closed),
    /// lets requests in flight finish for up to `grace`, then stops (see ``stop()``).
    public func shutdown(grace: Duration) {
        drain(grace: grace)
        stop()
    }

    /// The first half of ``shutdown(grace:)``: stops taking requests and waits up to `grace` for
    /// those in flight. The owner can then finish the work later answers wait for (the store's
    /// queued writes) before ``stop()``, so that those answers are the real ones.
    ///
    /// The listener stays open until then: libmicrohttpd 0.9.75's own way to stop accepting
    /// (`MHD_quiesce_daemon`) aborts the process when a thread of its pool took the listening
    /// socket out of its epoll set at the same moment.
    public func drain(grace: Duration) {
        guard daemon.withLock({ $0 != nil }) else { return }
        draining.store(true, ordering: .releasing)
        let deadline = ContinuousClock.now + grace
        while requestsInFlight > 0, ContinuousClock.now < deadline { usleep(5_000) }
    }

    /// Stops accepting and closes every connection. A request still waiting for its later answer
    /// is answered 503 first, with up to a second for the answers to be sent. Safe to call twice.
    public func stop() {
        guard daemon.withLock({ $0 != nil }) else { return }
        waiting.close()
        let sent = ContinuousClock.now + .seconds(1)
        while requestsInFlight > 0, ContinuousClock.now < sent { usleep(5_000) }
        daemon.withLock { daemon in
            if let running = daemon {
                MHD_stop_daemon(running.handle)
                daemon = nil
            }
        }
        deadlines.stop()
    }

    deinit {
        stop()
        deadlines.stop()
        logger.deallocate()
    }
}

/// Why the server could not start.
public struct HTTPServerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
