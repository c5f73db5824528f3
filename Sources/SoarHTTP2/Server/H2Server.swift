import Foundation
import SoarCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/2 server on one ``EventLoop``: accepts connections, runs TLS and the server sessions,
/// and hands each complete request to its ``H2RequestHandler``.
public final class H2Server<Handler: H2RequestHandler>: EventLoopDriver, @unchecked Sendable {
    let handler: Handler
    let tls: TLSServerContext?
    public let host: String
    public let port: UInt16
    private var loop: EventLoop!
    // Loop thread only:
    private var listener: Int32 = -1
    private var connections: [Int32: H2ServerConnection<Handler>] = [:]
    private var nextID: UInt64 = 0
    private var delayed: [(deadline: UInt64, connection: UInt64, fd: Int32, stream: Int32, response: H2Response)] = []
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    /// While out of descriptors, the listener is left unwatched until then, so a connection that
    /// cannot be accepted does not spin the loop.
    private var acceptPausedUntil: UInt64?
    /// Sockets whose session has ended, read and discarded until the client closes or until the
    /// deadline: closing one with a request still unread makes the kernel reset the connection,
    /// and a reset can destroy the last answers on their way (HTTP's "lingering close").
    private var lingering: [Int32: UInt64] = [:]
    private static var lingerMilliseconds: UInt64 { 2_000 }

    /// Binds `host:port` (0 picks a free port) and starts the loop thread.
    ///
    /// - Throws: ``H2ServerError`` when the address is not an IP literal, the port is taken, or
    ///   the loop cannot start.
    public init(host: String, port: UInt16, tls: TLSServerContext?, handler: Handler) throws(H2ServerError) {
        self.handler = handler
        self.tls = tls
        self.host = host
        guard (try? Sockets.resolve(host: host, port: port, numericOnly: true)) != nil else {
            throw H2ServerError("not an IP address: \(host) (use 127.0.0.1, ::1 or another address of this machine)")
        }
        do {
            listener = try Sockets.listen(host: host, port: port)
            self.port = try Sockets.localPort(listener)
        } catch {
            if listener >= 0 { Glibc.close(listener) }
            throw H2ServerError("cannot listen on \(host):\(port): \(error.reason)")
        }
        do {
            loop = try EventLoop(name: "soar-emulator-h2", driver: self)
        } catch {
            Glibc.close(listener)
            throw H2ServerError("cannot start the HTTP/2 loop: \(error)")
        }
        let listening = listener
        loop.execute { [self] in
            do {
                try loop.watch(listening, writable: false)
            } catch {
                closeListener()
            }
        }
    }

    /// Stops the loop and closes every connection; returns once the loop has ended.
    public func stop() { loop.stop() }

    /// Stops or resumes accepting connections (the listening socket is closed while stopped).
    public func setAccepting(_ accepting: Bool) {
        loop.execute { [self] in
            if accepting && listener < 0 {
                listener = (try? Sockets.listen(host: host, port: port)) ?? -1
                if listener >= 0, (try? loop.watch(listener, writable: false)) == nil { closeListener() }
            } else if !accepting {
                closeListener()
            }
        }
    }

    private func closeListener() {
        guard listener >= 0 else { return }
        loop.forget(listener)
        Glibc.close(listener)
        listener = -1
    }

    // MARK: - EventLoopDriver

    public func socketReady(_ fd: Int32, _ events: SocketEvents, now: UInt64) {
        if fd == listener { return acceptAll() }
        if lingering[fd] != nil { return drain(fd) }
        guard let connection = connections[fd] else { return }
        if events.failed && !events.readable { return close(connection) }
        if events.readable { readable(connection) }
        if events.writable, !connection.closed { flush(connection) }
    }

    public func turnEnded(now: UInt64) {
        if let until = acceptPausedUntil, now >= until {
            acceptPausedUntil = nil
            if listener >= 0, (try? loop.watch(listener, writable: false)) == nil { closeListener() }
        }
        for (fd, deadline) in lingering where deadline <= now { stopLingering(fd) }
        guard delayed.contains(where: { $0.deadline <= now }) else { return }
        var due: [(deadline: UInt64, connection: UInt64, fd: Int32, stream: Int32, response: H2Response)] = []
        delayed.removeAll { item in
            guard item.deadline <= now else { return false }
            due.append(item)
            return true
        }
        var touched: [Int32: H2ServerConnection<Handler>] = [:]
        for item in due {
            guard let connection = connections[item.fd], connection.id == item.connection else { continue }
            connection.respond(item.response, stream: item.stream)
            touched[item.fd] = connection
        }
        for connection in touched.values { flush(connection) }
    }

    public func nextWakeup(now: UInt64) -> UInt64? {
        [delayed.map(\.deadline).min(), acceptPausedUntil, lingering.values.min()].compactMap { $0 }.min()
    }

    public func loopStopping(now: UInt64) {
        for connection in Array(connections.values) { close(connection) }
        for fd in Array(lingering.keys) { stopLingering(fd) }
        closeListener()
    }

    // MARK: - Connections

    private func acceptAll() {
        while listener >= 0 {
            let accepted: Int32?
            do {
                accepted = try Sockets.accept(listener)
            } catch {
                // Out of descriptors, say: the waiting connection stays, so the listener would stay
                // readable and spin the loop. Look again in a tenth of a second.
                if (try? loop.unwatch(listener)) != nil { acceptPausedUntil = loop.now + 100 }
                return
            }
            guard let fd = accepted else { return }
            nextID += 1
            do {
                try Sockets.setNoDelay(fd)
                let session = try tls?.session(socket: fd)
                let connection = try H2ServerConnection(id: nextID, fd: fd, tls: session, server: self)
                try loop.watch(fd, writable: false)
                connections[fd] = connection
            } catch {
                Glibc.close(fd)
                continue
            }
            handler.connectionOpened()
            let connection = connections[fd]!
            if connection.handshaking { handshake(connection) } else { flush(connection) }
        }
    }

    private func handshake(_ connection: H2ServerConnection<Handler>) {
        guard let tls = connection.tls else { return }
        switch tls.handshake() {
        case .done:
            connection.handshaking = false
            connection.state.clientCertificate = tls.verifiedClientName
            flush(connection)
        case .wantRead, .wantWrite: break
        case .closed, .failed: close(connection)
        }
    }

    private func readable(_ connection: H2ServerConnection<Handler>) {
        if connection.handshaking {
            handshake(connection)
            if connection.handshaking || connection.closed { return }
        }
        switch connection.session.wire.receive(using: &readBuffer) {
        case nil:
            flush(connection)
        case .protocolError?:
            // Tell the client why (GOAWAY PROTOCOL_ERROR), then end.
            try? connection.session.terminateForProtocolError()  // the connection ends either way
            flush(connection)
            close(connection)
        case .closed?, .failed?:
            close(connection)
        }
    }

    /// Moves the session's output to the socket; closes the connection once neither side wants more.
    func flush(_ connection: H2ServerConnection<Handler>) {
        guard !connection.closed, !connection.handshaking else { return }
        let wire = connection.session.wire
        if wire.send() != nil { return close(connection) }
        if !wire.hasPendingOutput { connection.outputDelivered() }
        do {
            try loop.setWritable(connection.fd, wire.hasPendingOutput)
        } catch {
            return close(connection)
        }
        if wire.isFinished { close(connection, lingering: true) }
    }

    /// Ends a connection: at once (a fault, a broken peer, the loop stopping), or, when its session
    /// has ended, by saying so and then draining what the client still sends until it closes.
    func close(_ connection: H2ServerConnection<Handler>, lingering: Bool = false) {
        guard !connection.closed else { return }
        connections[connection.fd] = nil
        connection.close(keepingSocket: lingering)
        if !connection.unanswered.isEmpty { handler.answersLost(connection.unanswered.count) }
        handler.connectionClosed()
        guard lingering else { return loop.forget(connection.fd) }
        connection.tls?.shutdown()  // close_notify; the socket's write side closes next either way
        Glibc.shutdown(connection.fd, Int32(SHUT_WR))
        guard (try? loop.setWritable(connection.fd, false)) != nil else { return stopLingering(connection.fd) }
        self.lingering[connection.fd] = loop.now + Self.lingerMilliseconds
        drain(connection.fd)
    }

    /// Reads and discards until the socket would block; its end, or an error, closes it.
    private func drain(_ fd: Int32) {
        while true {
            let count = readBuffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
            return stopLingering(fd)
        }
    }

    private func stopLingering(_ fd: Int32) {
        lingering[fd] = nil
        loop.forget(fd)
        Glibc.close(fd)
    }

    // MARK: - Delayed answers

    func schedule(_ response: H2Response, connection: H2ServerConnection<Handler>, stream: Int32, after milliseconds: Int) {
        // The loop's clock is truncated to the millisecond: one more keeps the delay at least as asked.
        delayed.append((loop.now + UInt64(milliseconds) + 1, connection.id, connection.fd, stream, response))
    }
}

/// Why an ``H2Server`` could not start.
public struct H2ServerError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
