import Foundation
import SoarCrypto
import SoarHTTP2

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/2 connection to APNs: a non-blocking socket, TLS, and a client session. It moves
/// bytes and reports what happened to its transport; the pool decides everything else.
///
/// Lives on the transport's loop thread only.
final class ClientConnection: H2ClientSessionDelegate {
    enum Phase { case connecting, handshaking, open, closed }

    let id: ConnectionPool.ConnectionID
    let fd: Int32
    unowned let transport: H2Transport
    private(set) var phase = Phase.connecting
    private var tls: TLSSession?
    private var session: H2ClientSession?
    /// Which request each open stream carries.
    private var requests: [Int32: ConnectionPool.RequestID] = [:]

    init(id: ConnectionPool.ConnectionID, fd: Int32, transport: H2Transport) {
        self.id = id
        self.fd = fd
        self.transport = transport
    }

    /// The socket is ready; moves the connection along.
    ///
    /// - Returns: why the connection failed, once it has.
    func socketReady(_ events: SocketEvents) -> TransportError? {
        let endpoint = transport.endpoint
        if phase == .connecting {
            if let error = Sockets.pendingError(fd) { return TransportError(.unreachable, "cannot connect to \(endpoint.authority): \(error.reason)") }
            transport.tcpConnected(self)
            if let failure = startSession() { return failure }
        }
        if phase == .handshaking, let tls {
            switch tls.handshake() {
            case .done:
                guard tls.negotiatedProtocol == "h2" else {
                    return TransportError(.misconfigured, "the server at \(endpoint.authority) does not speak HTTP/2 (ALPN h2)")
                }
                phase = .open
            case .wantRead: return watchWrites(false)
            case .wantWrite: return watchWrites(true)
            case .closed: return TransportError(.unreachable, "\(endpoint.authority) closed the connection during the TLS handshake")
            case .failed(let reason):
                // `reason` names a certificate that did not verify (see TLSSession.step).
                return TransportError(.misconfigured, "TLS handshake with \(endpoint.authority) failed: \(reason)")
            }
        }
        if events.readable || events.failed, let session {
            if let end = session.wire.receive(using: &transport.readBuffer) { return describe(end) }
        }
        return flush()
    }

    private func startSession() -> TransportError? {
        let endpoint = transport.endpoint
        if let context = transport.tlsContext {
            do {
                tls = try context.session(socket: fd, host: endpoint.host)
            } catch {
                return TransportError(.misconfigured, "TLS setup for \(endpoint.authority) failed: \(error.description)")
            }
        }
        do {
            // No server push; a window large enough that answers never wait on WINDOW_UPDATE.
            // APNs says all that matters in `apns-*` headers and the body; its `apns-id` repeats
            // the one the request carried, which the client already has.
            session = try H2ClientSession(
                fd: fd, tls: tls, settings: [.noServerPush, .initialWindowSize(1 << 20)],
                keepingHeaders: { $0.hasPrefix("apns-") && !$0.equals("apns-id") }, delegate: self)
        } catch {
            return TransportError(.unreachable, "cannot start HTTP/2: \(error)")
        }
        phase = tls == nil ? .open : .handshaking
        return nil
    }

    /// Moves the session's output to the socket.
    ///
    /// - Returns: why the connection failed, once it has.
    func flush() -> TransportError? {
        guard phase == .open, let session else { return nil }
        if let end = session.send() { return describe(end) }
        if let failure = watchWrites(session.wire.hasPendingOutput) { return failure }
        return session.wire.isFinished ? TransportError(.unreachable, "the HTTP/2 session with \(transport.endpoint.authority) ended") : nil
    }

    private func watchWrites(_ writable: Bool) -> TransportError? {
        do {
            try transport.loop.setWritable(fd, writable)
            return nil
        } catch {
            return TransportError(.unreachable, "cannot watch the connection: \(error)")
        }
    }

    private func describe(_ end: H2Wire.End) -> TransportError {
        let authority = transport.endpoint.authority
        switch end {
        case .closed: return TransportError(.unreachable, "\(authority) closed the connection")
        case .failed(let reason): return TransportError(.unreachable, "connection to \(authority) lost: \(reason)")
        case .protocolError(let reason): return TransportError(.unreachable, "HTTP/2 protocol error from \(authority): \(reason)")
        }
    }

    // MARK: - Requests

    /// Queues a request as an HTTP/2 POST on this connection.
    func send(_ id: ConnectionPool.RequestID, _ request: TransportRequest) throws(H2Error) {
        guard let session else { throw H2Error(call: "send before the session started", code: -1) }
        let endpoint = transport.endpoint
        let stream = try session.request(body: request.body) { block in
            block.add(":method", "POST")
            block.add(":scheme", endpoint.tls ? "https" : "http")
            block.add(":authority", endpoint.authority)
            // The path and apns-id change with every notification: kept out of the HPACK table.
            block.add(":path", request.path, indexed: false)
            for (name, value) in request.headers { block.add(name, value, indexed: name != "apns-id") }
            if let authorization = request.authorization { block.add("authorization", authorization) }
            block.add("content-length", String(request.body.count))
        }
        requests[stream] = id
    }

    /// Sends a PING (Apple: the way to check a connection's health).
    func ping() throws(H2Error) {
        try session?.ping()
    }

    /// Closes the socket; nothing more is read, written or reported.
    func close() {
        guard phase != .closed else { return }
        phase = .closed
        session?.wire.isClosed = true
        transport.loop.forget(fd)
        Glibc.close(fd)
    }

    // MARK: - H2ClientSessionDelegate

    func sessionReceivedSettings() {
        guard let session else { return }
        transport.settingsReceived(self, streamLimit: session.serverStreamLimit)
    }

    func requestSent(stream: Int32) {
        if let id = requests[stream] { transport.requestSent(id, on: self) }
    }

    func streamEnded(stream: Int32, response: H2Response?, refused: Bool, errorCode: UInt32) {
        guard let id = requests.removeValue(forKey: stream) else { return }
        transport.streamEnded(id, on: self, response: response, refused: refused, errorCode: errorCode)
    }

    func goawayReceived(lastStreamID: Int32) { transport.goawayReceived(self) }

    func pingAcknowledged() { transport.pingAnswered(self) }
}
