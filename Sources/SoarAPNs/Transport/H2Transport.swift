import Foundation
import SoarCore
import SoarCrypto
import SoarHTTP2
import Synchronization

/// HTTP/2 to APNs on one ``EventLoop`` thread: a ``ConnectionPool`` decides, ``ClientConnection``s
/// move the bytes, and this type carries the pool's actions out and reports back what happened.
final class H2Transport: Transport, EventLoopDriver, @unchecked Sendable {
    struct Options: Sendable {
        var caFile: String?
        var certificate: CertificateCredentials?
        var maxConnections = 4
        var maxStreamsPerConnection = 1000
        var timeout: Duration = .seconds(30)
        var connectTimeout: Duration = .seconds(10)
        var pingInterval: Duration = .seconds(60)
        /// Host name to addresses; tests hand in their own.
        var resolver: @Sendable (String, UInt16) throws(ResolveError) -> [ResolvedAddress] = { host, port throws(ResolveError) in
            try Sockets.resolve(host: host, port: port)
        }
    }

    let endpoint: Endpoint
    let options: Options
    let tlsContext: TLSClientContext?
    private(set) var loop: EventLoop!
    /// Requests handed in from other threads, waiting for the loop to take them.
    private let inbox = Locked<[TransportSubmission]>([])
    /// Scratch space for reads, shared by the connections.
    var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
    // Loop thread only:
    private var pool: ConnectionPool
    private var pending: [ConnectionPool.RequestID: TransportSubmission] = [:]
    private var nextRequest: ConnectionPool.RequestID = 0
    private var connections: [ConnectionPool.ConnectionID: ClientConnection] = [:]
    private var byDescriptor: [Int32: ClientConnection] = [:]
    private var lastTick: UInt64 = 0

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
        pool = ConnectionPool(ConnectionPool.Configuration(
            maxConnections: options.maxConnections, maxStreamsPerConnection: options.maxStreamsPerConnection,
            timeout: options.timeout.milliseconds, connectTimeout: min(options.connectTimeout, options.timeout).milliseconds,
            pingInterval: options.pingInterval.milliseconds, authority: endpoint.authority))
        do {
            loop = try EventLoop(name: "soar-apns-h2", driver: self)
        } catch {
            throw .init("cannot start the HTTP/2 loop: \(error)")
        }
    }

    func submit(_ batch: [TransportSubmission]) {
        guard !batch.isEmpty else { return }
        // From the loop's own thread (a completion sending the next notification) requests are
        // taken at once, so they leave with this turn's writes instead of waiting for the next turn.
        if loop.inLoop { return accept(batch) }
        // From other threads requests gather in the inbox, and one loop task takes all that came
        // meanwhile: a bulk send's thousands cost a handful of tasks, not one each.
        let first = inbox.withLock { inbox in
            defer { inbox.append(contentsOf: batch) }
            return inbox.isEmpty
        }
        guard first else { return }
        let queued = loop.execute { [self] in accept(inbox.withLock { $0.take() }) }
        if !queued {
            for pending in inbox.withLock({ $0.take() }) { pending.completion(.failure(.shutDown)) }
        }
    }

    private func accept(_ requests: [TransportSubmission]) {
        guard !requests.isEmpty else { return }
        let first = nextRequest + 1
        for request in requests {
            nextRequest += 1
            pending[nextRequest] = request
        }
        apply(pool.enqueue(first...nextRequest, now: loop.now))
    }

    /// Fails what is still queued or in flight, closes the connections and stops the thread;
    /// from the loop's own thread, after the current turn.
    func shutdown() { loop.stop() }

    // MARK: - EventLoopDriver

    func socketReady(_ fd: Int32, _ events: SocketEvents, now: UInt64) {
        guard let connection = byDescriptor[fd] else { return }
        if let failure = connection.socketReady(events) { fail(connection, failure, now: now) }
    }

    func turnEnded(now: UInt64) {
        if now >= lastTick + 100 || now < lastTick {
            lastTick = now
            apply(pool.tick(now: now))
        }
        for connection in Array(connections.values) where connection.phase == .open {
            if let failure = connection.flush() { fail(connection, failure, now: now) }
        }
    }

    func nextWakeup(now: UInt64) -> UInt64? { pool.nextWakeup(now: now) }

    func loopStopping(now: UInt64) { apply(pool.shutdown()) }

    // MARK: - Carrying out the pool's actions

    private func apply(_ actions: [ConnectionPool.Action]) {
        for action in actions {
            switch action {
            case .resolve: resolve()
            case .connect(let id, let address): connect(id, to: address)
            case .send(let id, let connectionID):
                guard let request = pending[id]?.request, let connection = connections[connectionID] else { continue }
                do {
                    try connection.send(id, request)
                } catch where error.takesNoNewStreams {
                    // The connection takes nothing more; marked so first, or the request would be
                    // handed straight back to it.
                    apply(pool.goawayReceived(connectionID, now: loop.now))
                    apply(pool.requestRefused(id, on: connectionID, now: loop.now))
                } catch {
                    finish(id, .failure(TransportError(.unreachable, "the request could not be queued: \(error)")))
                    apply(pool.requestEnded(id, on: connectionID, now: loop.now))
                }
            case .fail(let id, let error): finish(id, .failure(error))
            case .ping(let connectionID):
                guard let connection = connections[connectionID] else { continue }
                do {
                    try connection.ping()
                } catch {
                    fail(connection, TransportError(.unreachable, "cannot send PING: \(error)"), now: loop.now)
                }
            case .close(let connectionID): release(connectionID)
            }
        }
    }

    private func finish(_ id: ConnectionPool.RequestID, _ result: TransportResult) {
        pending.removeValue(forKey: id)?.completion(result)
    }

    /// Resolves the host on another thread, so a slow resolver never holds up open connections.
    /// That thread holds the transport only weakly: a resolve that outlives the client must not
    /// be the one to free it (and its TLS context) while the process exits.
    private func resolve() {
        let (resolver, host, port, loop) = (options.resolver, endpoint.host, endpoint.port, loop!)
        DispatchQueue.global().async { [weak self] in
            let result: Result<[ResolvedAddress], TransportError>
            do throws(ResolveError) {
                result = .success(try resolver(host, port))
            } catch {
                result = .failure(TransportError(.unreachable, error.description))
            }
            loop.execute { [weak self] in
                guard let self else { return }
                apply(pool.resolved(result, now: loop.now))
            }
        }
    }

    private func connect(_ id: ConnectionPool.ConnectionID, to address: ResolvedAddress) {
        let now = loop.now
        let fd: Int32
        do {
            fd = try Sockets.connect(address)
        } catch {
            apply(pool.connectionFailed(id, TransportError(.unreachable, "cannot connect to \(endpoint.authority): \(error.reason)"), now: now))
            return
        }
        let connection = ClientConnection(id: id, fd: fd, transport: self)
        connections[id] = connection
        byDescriptor[fd] = connection
        do {
            try loop.watch(fd, writable: true)
        } catch {
            fail(connection, TransportError(.unreachable, "cannot watch the connection: \(error)"), now: now)
        }
    }

    /// Closes a connection that failed and tells the pool.
    private func fail(_ connection: ClientConnection, _ error: TransportError, now: UInt64) {
        guard connections[connection.id] === connection else { return }
        release(connection.id)
        apply(pool.connectionFailed(connection.id, error, now: now))
    }

    private func release(_ id: ConnectionPool.ConnectionID) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        byDescriptor[connection.fd] = nil
        connection.close()
    }

    // MARK: - What connections report

    func tcpConnected(_ connection: ClientConnection) { pool.tcpConnected(connection.id) }

    func settingsReceived(_ connection: ClientConnection, streamLimit: Int) {
        apply(pool.settingsReceived(connection.id, streamLimit: streamLimit, now: loop.now))
    }

    func requestSent(_ id: ConnectionPool.RequestID, on connection: ClientConnection) { pool.requestSent(id, on: connection.id) }

    func streamEnded(_ id: ConnectionPool.RequestID, on connection: ClientConnection, response: H2Response?, refused: Bool, errorCode: UInt32) {
        let now = loop.now
        if let response {
            finish(id, .response(status: response.status, headers: response.headers, body: response.body))
        } else if refused {
            apply(pool.requestRefused(id, on: connection.id, now: now))
            return
        } else {
            finish(id, .failure(TransportError(.answerLost, "the server reset the stream (\(H2Error.name(ofStreamError: errorCode))); it may have been delivered")))
        }
        apply(pool.requestEnded(id, on: connection.id, now: now))
    }

    func goawayReceived(_ connection: ClientConnection) { apply(pool.goawayReceived(connection.id, now: loop.now)) }

    func pingAnswered(_ connection: ClientConnection) { pool.pingAnswered(connection.id, now: loop.now) }
}

extension Array {
    /// The elements, leaving the array empty.
    fileprivate mutating func take() -> Array {
        defer { self = [] }
        return self
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
