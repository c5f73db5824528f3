import CNghttp2
import Foundation
import SoarCrypto
import SoarHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/2 connection to APNs: a non-blocking socket, TLS, and an nghttp2 client session.
///
/// Lives on the transport's thread only.
final class ClientConnection {
    enum State { case connecting, handshaking, ready, closed }

    let fd: Int32
    unowned let transport: H2Transport
    private(set) var state: State = .connecting
    /// The socket and its session, once connected.
    private var wire: H2Wire?
    var session: OpaquePointer? { wire?.session }
    var streams: [Int32: ClientStream] = [:]
    /// The server's first SETTINGS has come, so its stream limit is known.
    var settingsReceived = false
    /// GOAWAY came: no new streams; the connection ends once its streams have.
    var goingAway = false
    var lastActivity: UInt64
    var pingSentAt: UInt64?
    let openedAt: UInt64
    /// The host's other addresses, tried in turn if this one fails before the connection is up.
    let fallbacks: [ResolvedAddress]
    private(set) var wantsWrite = true
    /// What epoll was last told: EPOLLOUT is asked for while connecting and while writes wait.
    var watchedForWrite = true

    init(fd: Int32, transport: H2Transport, now: UInt64, fallbacks: [ResolvedAddress]) {
        self.fd = fd
        self.transport = transport
        self.fallbacks = fallbacks
        lastActivity = now
        openedAt = now
    }

    deinit {
        if let session = wire?.session { nghttp2_session_del(session) }
        Glibc.close(fd)
    }

    /// Streams the server will take now: its SETTINGS_MAX_CONCURRENT_STREAMS (APNs' 1 until a first
    /// success, then more), capped by ours, less those open.
    var capacity: Int {
        guard state == .ready, settingsReceived, !goingAway, let session else { return 0 }
        let limit = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, min(limit, transport.options.maxStreamsPerConnection) - streams.count)
    }

    // MARK: - Events

    /// The socket is writable or readable; moves the connection along. Returns an error once it has failed.
    func ready(readable: Bool, writable: Bool, now: UInt64) -> String? {
        if state == .connecting {
            guard writable || readable else { return nil }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
            if error != 0 { return "cannot connect to \(transport.endpoint.authority): \(String(cString: strerror(error)))" }
            if let failure = startSession() { return failure }
        }
        if state == .handshaking {
            guard let tls = wire?.tls else { return "no TLS session" }
            switch tls.handshake() {
            case .done:
                guard tls.negotiatedProtocol == "h2" else { return "the server at \(transport.endpoint.authority) does not speak HTTP/2 (ALPN h2)" }
                state = .ready
            case .wantRead:
                wantsWrite = false
                return nil
            case .wantWrite:
                wantsWrite = true
                return nil
            case .closed: return "the server closed the connection during the TLS handshake"
            case .failed(let reason): return "TLS handshake with \(transport.endpoint.authority) failed: \(reason)"
            }
        }
        if readable, let failure = read(now: now) { return failure }
        return flush()
    }

    private func startSession() -> String? {
        var tls: TLSSession?
        if transport.endpoint.tls {
            do {
                tls = try transport.tlsContext?.session(socket: fd, host: transport.endpoint.host)
            } catch {
                return "TLS setup failed: \(error.description)"
            }
            state = .handshaking
        } else {
            state = .ready
        }
        var created: OpaquePointer?
        guard nghttp2_session_client_new(&created, transport.callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0, let created else {
            return "nghttp2 could not create a session"
        }
        wire = H2Wire(fd: fd, tls: tls, session: created)
        // No server push; a window large enough that answers never wait on WINDOW_UPDATE.
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(created, 0, &settings, settings.count)
        return nil
    }

    private func read(now: UInt64) -> String? {
        guard state == .ready, let wire else { return nil }
        lastActivity = now
        return wire.receive(using: &transport.readBuffer).map(Self.describe)
    }

    /// Moves nghttp2's output to the socket. Returns an error once the connection has failed, or
    /// when it has nothing left to do after GOAWAY.
    func flush() -> String? {
        guard state == .ready, let wire else { return nil }
        if let end = wire.send() { return Self.describe(end) }
        wantsWrite = wire.hasPendingOutput
        if goingAway && streams.isEmpty && !wantsWrite { return "the server sent GOAWAY" }
        return wire.isFinished ? "the HTTP/2 session ended" : nil
    }

    private static func describe(_ end: H2Wire.End) -> String {
        switch end {
        case .closed: "the server closed the connection"
        case .failed(let reason): "connection lost: \(reason)"
        case .protocolError(let reason): "HTTP/2 protocol error: \(reason)"
        }
    }

    // MARK: - Requests

    /// Headers whose values change with every notification.
    static let uniqueHeaders: Set<String> = [":path", "apns-id"]

    /// Queues `stream` as an HTTP/2 POST; false when nghttp2 refused it.
    func open(_ stream: ClientStream) -> Bool {
        guard let session else { return false }
        let endpoint = transport.endpoint
        var headers = [(":method", "POST"), (":scheme", endpoint.tls ? "https" : "http"), (":authority", endpoint.authority), (":path", stream.request.path)]
        headers += stream.request.headers
        headers.append(("content-length", String(stream.request.body.count)))
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readRequestBody)
        let id = withHeaderBlock(headers, unique: Self.uniqueHeaders) { nva, count in nghttp2_submit_request(session, nil, nva, count, &provider, nil) }
        guard id > 0 else { return false }
        streams[id] = stream
        return true
    }

    /// Sends a PING (Apple: the way to check a connection's health).
    func ping(now: UInt64) {
        guard let session else { return }
        nghttp2_submit_ping(session, 0, nil)
        pingSentAt = now
    }

    /// Resets a stream whose answer is overdue; it is failed by the caller.
    func cancel(_ id: Int32) {
        guard let session else { return }
        streams[id] = nil
        nghttp2_submit_rst_stream(session, 0, id, NGHTTP2_CANCEL.rawValue)
    }

    /// Marks the connection closed and hands back the streams it still held.
    func close() -> [ClientStream] {
        state = .closed
        wire?.isClosed = true
        let left = Array(streams.values)
        streams.removeAll()
        return left
    }
}
