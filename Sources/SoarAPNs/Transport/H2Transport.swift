import CLinux
import CNghttp2
import Foundation
import SoarCrypto
import SoarHTTP2
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// HTTP/2 to APNs through nghttp2 and OpenSSL, driven by one epoll thread: many streams on each of
/// a few connections, each connection's frames written in one batch per turn of the loop.
///
/// It opens connections as they are needed, up to `maxConnections`, and gives each no more streams
/// than the server's SETTINGS_MAX_CONCURRENT_STREAMS (APNs' 1 until a first success, then more).
/// Requests a server refused unprocessed (past GOAWAY's last stream, or over its limit) go again on
/// another connection; requests on a connection that broke fail, for the retry policy to decide.
/// An idle connection is checked with a PING every `pingInterval` and closed if none comes back.
final class H2Transport: Transport, @unchecked Sendable {
    struct Options: Sendable {
        var caFile: String?
        var certificate: CertificateCredentials?
        var maxConnections = 4
        var maxStreamsPerConnection = 1000
        var timeout: Duration = .seconds(30)
        var pingInterval: Duration = .seconds(60)
        /// Host name to addresses; tests hand in their own.
        var resolver: @Sendable (String, UInt16) throws(APNsConfigurationError) -> [ResolvedAddress] = ClientSocket.resolve
    }

    let endpoint: Endpoint
    let options: Options
    let tlsContext: TLSClientContext?
    let callbacks: OpaquePointer
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)

    private let epoll: Int32
    private let wake: Int32
    private let incoming = Mutex<[(TransportRequest, deadline: UInt64, @Sendable (TransportResult) -> Void)]>([])
    private let wakePending = Atomic(false)
    private let running = Atomic(true)
    private let finished = DispatchSemaphore(value: 0)
    private let loopThread = Atomic<pthread_t>(0)
    // Loop thread only:
    private var queue: [ClientStream] = []
    private var queueHead = 0
    private var connections: [Int32: ClientConnection] = [:]
    private var lastSweep: UInt64 = 0
    private var lastFailure: String?
    private var resolving = false
    private let resolved = Mutex<Result<[ResolvedAddress], APNsConfigurationError>?>(nil)

    init(baseURL: String, options: Options) throws(APNsConfigurationError) {
        guard let endpoint = Endpoint(baseURL: baseURL) else { throw .init("not an https:// or http:// URL with a host: \(baseURL)") }
        self.endpoint = endpoint
        self.options = options
        if endpoint.tls {
            do {
                tlsContext = try TLSClientContext(caFile: options.caFile, identity: options.certificate.map(\.identity))
            } catch {
                throw .init(error.description)
            }
        } else {
            tlsContext = nil
        }
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard epoll >= 0, wake >= 0 else { throw .init("cannot create epoll: \(String(cString: strerror(errno)))") }
        callbacks = makeClientCallbacks()
        epollWatch(epoll, wake, writable: false, add: true)
        let thread = Thread { [self] in
            blockBrokenPipeSignal()
            loopThread.store(pthread_self(), ordering: .relaxed)
            run()
        }
        thread.name = "soar-apns-h2"
        thread.start()
    }

    deinit {
        shutdown()
        nghttp2_session_callbacks_del(callbacks)
        Glibc.close(wake)
        Glibc.close(epoll)
    }

    func submit(_ request: TransportRequest, completion: @escaping @Sendable (TransportResult) -> Void) {
        guard running.load(ordering: .acquiring) else { return completion(.failure("the APNs client was shut down")) }
        let deadline = monotonicMilliseconds() + options.timeout.milliseconds
        incoming.withLock { $0.append((request, deadline, completion)) }
        // From the loop's own thread (a completion sending the next) the loop drains the queue
        // before it waits; from elsewhere one wake-up serves every request queued before it is seen.
        if pthread_self() != loopThread.load(ordering: .relaxed), !wakePending.exchange(true, ordering: .acquiringAndReleasing) {
            var one: UInt64 = 1
            _ = Glibc.write(wake, &one, 8)
        }
    }

    /// Fails what is still queued or in flight, closes the connections and stops the thread.
    ///
    /// From the loop's own thread (a completion that drops the last reference to the client) it
    /// only asks the loop to end after this turn, since waiting there would never return.
    func shutdown() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        guard pthread_self() != loopThread.load(ordering: .relaxed) else { return }
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)
        finished.wait()
    }

    /// Puts a stream the server refused unprocessed back at the head of the queue.
    func requeue(_ stream: ClientStream) {
        stream.rewind()
        if queueHead > 0 {
            queueHead -= 1
            queue[queueHead] = stream
        } else {
            queue.insert(stream, at: 0)
        }
    }

    // MARK: - The loop

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while running.load(ordering: .acquiring) {
            let count = epoll_wait(epoll, &events, Int32(events.count), waitMilliseconds())
            let now = monotonicMilliseconds()
            for index in 0..<max(0, Int(count)) {
                let fd = events[index].data.fd
                if fd == wake {
                    var value: UInt64 = 0
                    _ = Glibc.read(wake, &value, 8)
                    wakePending.store(false, ordering: .releasing)
                    continue
                }
                guard let connection = connections[fd] else { continue }
                let flags = events[index].events
                let failed = flags & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
                if let failure = connection.ready(readable: flags & EPOLLIN.rawValue != 0 || failed, writable: flags & EPOLLOUT.rawValue != 0, now: now) {
                    close(connection, because: failure)
                }
            }
            let arrived = incoming.withLock { queue in defer { queue.removeAll(keepingCapacity: true) }; return queue }
            for (request, deadline, completion) in arrived { queue.append(ClientStream(request, deadline: deadline, completion: completion)) }
            takeResolved(now: now)
            if now - lastSweep >= 100 {
                lastSweep = now
                sweep(now: now)
            }
            schedule(now: now)
            for connection in connections.values where connection.state != .connecting {
                if let failure = connection.flush() {
                    close(connection, because: failure)
                } else if connection.wantsWrite != connection.watchedForWrite {
                    connection.watchedForWrite = connection.wantsWrite
                    epollWatch(epoll, connection.fd, writable: connection.wantsWrite, add: false)
                }
            }
        }
        for connection in Array(connections.values) { close(connection, because: "the APNs client was shut down", requeue: false) }
        for stream in queue[queueHead...] { stream.completion(.failure("the APNs client was shut down")) }
        for (_, _, completion) in incoming.withLock({ $0 }) { completion(.failure("the APNs client was shut down")) }
        queue.removeAll()
        finished.signal()
    }

    /// Gives queued requests to connections with room, opening another (one at a time, up to
    /// `maxConnections`) while all are full.
    private func schedule(now: UInt64) {
        while queueHead < queue.count {
            guard let connection = connections.values.first(where: { $0.capacity > 0 }) else {
                let opening = resolving || connections.values.contains { $0.state != .ready || !$0.settingsReceived }
                if !opening && connections.count < options.maxConnections { connect(now: now) }
                break
            }
            var room = connection.capacity
            while room > 0, queueHead < queue.count {
                let stream = queue[queueHead]
                queueHead += 1
                if connection.open(stream) {
                    room -= 1
                } else {
                    stream.completion(.failure("nghttp2 refused the request"))
                }
            }
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead > 4096 {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    /// Answers overdue, PINGs for idle connections, PINGs unanswered, connections that never came up.
    private func sweep(now: UInt64) {
        let timeout = options.timeout.milliseconds
        for connection in Array(connections.values) {
            if connection.state != .ready || !connection.settingsReceived {
                if now - connection.openedAt > timeout { close(connection, because: "no HTTP/2 connection to \(endpoint.authority) within \(options.timeout)") }
                continue
            }
            for (id, stream) in connection.streams where stream.deadline <= now {
                connection.cancel(id)
                stream.completion(.failure("no answer within \(options.timeout)"))
            }
            if let sent = connection.pingSentAt {
                if now - sent > timeout { close(connection, because: "no answer to PING within \(options.timeout)") }
            } else if connection.streams.isEmpty, now - connection.lastActivity >= options.pingInterval.milliseconds {
                connection.ping(now: now)
            }
        }
        // Requests that waited for a connection longer than their timeout fail rather than wait forever.
        while queueHead < queue.count, queue[queueHead].deadline <= now {
            let up = connections.values.contains { $0.settingsReceived }
            queue[queueHead].completion(.failure(!up ? lastFailure ?? "no connection to \(endpoint.authority) within \(options.timeout)" : "no free stream within \(options.timeout)"))
            queueHead += 1
        }
    }

    /// How long the loop may sleep: a tenth of a second while anything is in flight or coming up
    /// (for timeouts), a quarter of the PING interval while connections idle, forever without any.
    private func waitMilliseconds() -> Int32 {
        if queueHead < queue.count || connections.values.contains(where: { !$0.streams.isEmpty || $0.state != .ready || $0.pingSentAt != nil }) {
            return 100
        }
        if connections.isEmpty && !resolving { return -1 }
        return Int32(clamping: max(100, min(options.pingInterval.milliseconds, options.timeout.milliseconds) / 4))
    }

    /// Starts a new connection. A host name is resolved on another thread, so a slow resolver
    /// never holds up the connections already open; the answer comes back through `resolved`.
    private func connect(now: UInt64) {
        guard !resolving else { return }
        resolving = true
        let (resolver, host, port) = (options.resolver, endpoint.host, endpoint.port)
        DispatchQueue.global().async { [self] in
            let result = Result { () throws(APNsConfigurationError) in try resolver(host, port) }
            resolved.withLock { $0 = result }
            var one: UInt64 = 1
            _ = Glibc.write(wake, &one, 8)
        }
    }

    /// Takes the resolver's answer, if one came, and connects to its first address that starts.
    private func takeResolved(now: UInt64) {
        guard let result = resolved.withLock({ slot in defer { slot = nil }; return slot }) else { return }
        resolving = false
        switch result {
        case .success(let addresses): open(addresses, now: now)
        case .failure(let error): failQueued(error.description)
        }
    }

    /// Connects to the first of `addresses` that accepts a connect; the rest stay with the
    /// connection, to be tried in turn if it fails before it is up.
    private func open(_ addresses: [ResolvedAddress], now: UInt64) {
        var rest = addresses[...]
        var problem = "no address"
        while let address = rest.popFirst() {
            switch ClientSocket.connect(address) {
            case .success(let fd):
                let connection = ClientConnection(fd: fd, transport: self, now: now, fallbacks: Array(rest))
                connections[fd] = connection
                epollWatch(epoll, fd, writable: true, add: true)
                return
            case .failure(let error):
                problem = error.description
            }
        }
        failQueued("cannot connect to \(endpoint.authority): \(problem)")
    }

    /// Ends a connection. Streams that never left are queued again; those that did fail, since the
    /// server may have acted on them. When no connection is left, what waits fails with the reason.
    private func close(_ connection: ClientConnection, because reason: String, requeue: Bool = true) {
        guard connections.removeValue(forKey: connection.fd) != nil else { return }
        epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, nil)
        let wasUp = connection.settingsReceived
        for stream in connection.close() {
            if requeue && !stream.sent { self.requeue(stream) } else { stream.completion(.failure(reason)) }
        }
        if !wasUp {
            lastFailure = reason
            if requeue && !connection.fallbacks.isEmpty {
                open(connection.fallbacks, now: monotonicMilliseconds())
            } else if connections.isEmpty && !resolving {
                failQueued(reason)
            }
        }
    }

    private func failQueued(_ reason: String) {
        lastFailure = reason
        let waiting = queue[queueHead...]
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
        for stream in waiting { stream.completion(.failure(reason)) }
    }
}

extension Duration {
    var milliseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) * 1000 + UInt64(max(0, attoseconds)) / 1_000_000_000_000_000
    }
}

extension CertificateCredentials {
    var identity: TLSClientContext.Identity {
        switch format {
        case .pem: .pem(certificateFile: certificateFile, keyFile: keyFile, password: password)
        case .pkcs12: .pkcs12(file: certificateFile, password: password)
        }
    }
}
