import CLinux
import CNghttp2
import Foundation
import SoarCrypto
import SoarHTTP
import SoarHTTP2
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/2 server on one epoll thread: accepts connections, runs TLS and nghttp2, and hands
/// each complete request to a ``StreamHandler``.
final class H2Server: @unchecked Sendable {
    let handler: any StreamHandler
    let tls: TLSServerContext?
    let callbacks: OpaquePointer
    let host: String
    private(set) var port: UInt16
    private let epoll: Int32
    private let wake: Int32
    private var listener: Int32 = -1
    private var connections: [Int32: H2Connection] = [:]
    private var nextID: UInt64 = 0
    private var delayed: [(deadline: UInt64, connection: UInt64, fd: Int32, stream: Int32, response: HTTPResponse)] = []
    private var thread: Thread?
    private let stopping = Atomic(false)
    private let done = DispatchSemaphore(value: 0)
    /// Read from another thread through ``setAccepting(_:)``; applied on the loop.
    private let accepting = Atomic(true)
    private var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    /// Binds `host:port` (0 picks a free port) and starts the loop thread.
    init(host: String, port: UInt16, tls: TLSServerContext?, handler: any StreamHandler) throws(EmulatorError) {
        self.handler = handler
        self.tls = tls
        self.host = host
        self.port = port
        self.callbacks = makeServerCallbacks()
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard epoll >= 0, wake >= 0 else { throw EmulatorError("cannot create epoll: \(String(cString: strerror(errno)))") }
        epollWatch(epoll, wake, writable: false, add: true)
        try openListener()
        let thread = Thread { [self] in
            blockBrokenPipeSignal()
            run()
        }
        thread.name = "soar-emulator-h2"
        self.thread = thread
        thread.start()
    }

    deinit {
        nghttp2_session_callbacks_del(callbacks)
    }

    /// Stops the loop and closes every connection; returns once the loop has ended.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signal()
        done.wait()
    }

    /// Stops or resumes accepting connections (the listening socket is closed while stopped).
    func setAccepting(_ value: Bool) {
        accepting.store(value, ordering: .releasing)
        signal()
    }

    private func signal() {
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
    }

    private func openListener() throws(EmulatorError) {
        let fd = try Socket.listen(host: host, port: port)
        listener = fd
        port = Socket.localPort(fd)
        epollWatch(epoll, fd, writable: false, add: true)
    }

    private func closeListener() {
        guard listener >= 0 else { return }
        epoll_ctl(epoll, EPOLL_CTL_DEL, listener, nil)
        Glibc.close(listener)
        listener = -1
    }

    // MARK: - The loop

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        while !stopping.load(ordering: .acquiring) {
            let count = epoll_wait(epoll, &events, Int32(events.count), nextTimeout())
            for index in 0..<max(0, Int(count)) {
                let fd = events[index].data.fd
                let flags = events[index].events
                if fd == wake {
                    var value: UInt64 = 0
                    _ = Glibc.read(wake, &value, 8)
                } else if fd == listener {
                    acceptAll()
                } else if let connection = connections[fd] {
                    if flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 && flags & EPOLLIN.rawValue == 0 {
                        close(connection)
                        continue
                    }
                    if flags & EPOLLIN.rawValue != 0 { readable(connection) }
                    if flags & EPOLLOUT.rawValue != 0, !connection.closed { flush(connection) }
                }
            }
            fireTimers()
            let wanted = accepting.load(ordering: .acquiring)
            if wanted && listener < 0 { try? openListener() }
            if !wanted && listener >= 0 { closeListener() }
        }
        for connection in Array(connections.values) { close(connection) }
        closeListener()
        Glibc.close(wake)
        Glibc.close(epoll)
        done.signal()
    }

    private func acceptAll() {
        while true {
            let fd = CLinux_accept(listener)
            guard fd >= 0 else { return }
            setNoDelay(fd)
            nextID += 1
            let session = try? tls?.session(socket: fd)
            if tls != nil && session == nil {
                Glibc.close(fd)
                continue
            }
            let connection = H2Connection(id: nextID, fd: fd, tls: session, server: self)
            guard connection.start() else {
                Glibc.close(fd)
                continue
            }
            connections[fd] = connection
            handler.connectionOpened()
            epollWatch(epoll, fd, writable: false, add: true)
            if session != nil { handshake(connection) } else { flush(connection) }
        }
    }

    private func handshake(_ connection: H2Connection) {
        guard let tls = connection.tls else { return }
        switch tls.handshake() {
        case .done:
            connection.handshaking = false
            connection.auth.clientCertificate = tls.verifiedClientName
            flush(connection)
        case .wantRead, .wantWrite: break
        case .closed, .failed: close(connection)
        }
    }

    private func readable(_ connection: H2Connection) {
        if connection.handshaking {
            handshake(connection)
            if connection.handshaking || connection.closed { return }
        }
        guard let wire = connection.wire else { return }
        switch wire.receive(using: &readBuffer) {
        case nil:
            flush(connection)
        case .protocolError?:
            // nghttp2 has queued GOAWAY where it could; send it and end.
            nghttp2_session_terminate_session(wire.session, NGHTTP2_PROTOCOL_ERROR.rawValue)
            flush(connection)
            close(connection)
        case .closed?, .failed?:
            close(connection)
        }
    }

    /// Moves nghttp2's output to the socket; closes the connection once neither side wants more.
    func flush(_ connection: H2Connection) {
        guard !connection.closed, !connection.handshaking, let wire = connection.wire else { return }
        if wire.send() != nil {
            close(connection)
            return
        }
        let pending = wire.hasPendingOutput
        if pending != connection.wantsWrite {
            connection.wantsWrite = pending
            epollWatch(epoll, connection.fd, writable: pending, add: false)
        }
        if wire.isFinished { close(connection) }
    }

    func close(_ connection: H2Connection) {
        guard !connection.closed else { return }
        connection.closed = true
        connection.wire?.isClosed = true
        epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, nil)
        Glibc.close(connection.fd)
        connections[connection.fd] = nil
        if !connection.unanswered.isEmpty { handler.deliveryAnswersLost(connection.unanswered.count) }
        handler.connectionClosed()
    }

    // MARK: - Delayed answers

    func schedule(_ response: HTTPResponse, connection: H2Connection, stream: Int32, after milliseconds: Int) {
        delayed.append((monotonicMilliseconds() + UInt64(milliseconds), connection.id, connection.fd, stream, response))
    }

    private func nextTimeout() -> Int32 {
        guard let soonest = delayed.map(\.deadline).min() else { return -1 }
        let now = monotonicMilliseconds()
        return soonest <= now ? 0 : Int32(min(soonest - now, 60_000))
    }

    private func fireTimers() {
        guard !delayed.isEmpty else { return }
        let now = monotonicMilliseconds()
        let due = delayed.filter { $0.deadline <= now }
        delayed.removeAll { $0.deadline <= now }
        var touched: [Int32: H2Connection] = [:]
        for item in due {
            guard let connection = connections[item.fd], connection.id == item.connection else { continue }
            connection.respond(item.response, stream: item.stream)
            touched[item.fd] = connection
        }
        for connection in touched.values { flush(connection) }
    }
}
