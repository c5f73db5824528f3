import SoarHTTP2

/// The provider's connection pooling as a pure state machine: it is told what happened (a request
/// queued, a connection up, an answer, a failure, the time) and answers with what to do. It does
/// no I/O and reads no clock, so every path (deadlines, PINGs, address fallback, GOAWAY, failures
/// with nothing left to wait for) is tested without sockets.
///
/// Connections open as they are needed, one at a time, up to `maxConnections`; each takes no
/// more streams than the server's SETTINGS_MAX_CONCURRENT_STREAMS and our own cap. A request the
/// server refused unprocessed goes again first; one in flight on a connection that failed fails,
/// marked as possibly delivered once it had left. Every request ends in exactly one `.fail` or is
/// handed back through `requestEnded`: nothing waits forever.
struct ConnectionPool {
    typealias ConnectionID = Int
    typealias RequestID = UInt64

    struct Configuration: Sendable {
        var maxConnections = 4
        var maxStreamsPerConnection = 1000
        /// Milliseconds for an answer, or for a PING's answer.
        var timeout: UInt64 = 30_000
        /// Milliseconds for a new connection to be usable: TCP, TLS and the server's SETTINGS.
        var connectTimeout: UInt64 = 10_000
        /// Milliseconds of quiet after which an idle connection is checked with a PING.
        var pingInterval: UInt64 = 60_000
        /// Milliseconds after a failed connection attempt during which, with no connection up,
        /// new requests fail at once with that failure instead of connecting again: a server that
        /// is down costs one attempt per interval, not one per request.
        var holdDown: UInt64 = 1_000
        /// `host:port`, for messages.
        var authority = ""
    }

    enum Action: Equatable {
        /// Resolve the host; answer with ``resolved(_:now:)``.
        case resolve
        /// Open a connection to this address; report it with the connection events.
        case connect(ConnectionID, ResolvedAddress)
        /// Send the request on the connection.
        case send(RequestID, on: ConnectionID)
        /// The request is over: complete it with this error.
        case fail(RequestID, TransportError)
        case ping(ConnectionID)
        /// Close the connection and free it; the pool has already dealt with its requests.
        case close(ConnectionID)
    }

    private struct Waiting {
        let id: RequestID
        let deadline: UInt64
        /// How often a server refused it unprocessed (REFUSED_STREAM) so far.
        var refusals = 0
    }

    /// A request refused this often by connections still open to new streams fails (not delivered,
    /// worth another try later) instead of going straight back: a server that refuses every stream
    /// must not keep the loop spinning.
    static let maxRefusals = 3

    private struct Connection {
        enum State { case opening, ready, draining }
        var state = State.opening
        let openedAt: UInt64
        var tcpUp = false
        /// The host's other addresses, tried in turn if this one fails before it is ready.
        var fallbacks: [ResolvedAddress]
        var streamLimit = 1
        var inFlight: [RequestID: (deadline: UInt64, sent: Bool, refusals: Int)] = [:]
        var lastActivity: UInt64
        var pingSentAt: UInt64?

        init(openedAt: UInt64, fallbacks: [ResolvedAddress]) {
            self.openedAt = openedAt
            self.fallbacks = fallbacks
            lastActivity = openedAt
        }
    }

    let configuration: Configuration
    private var queue: [Waiting] = []
    private var head = 0
    private var connections: [ConnectionID: Connection] = [:]
    /// Connection ids in the order they opened, so scheduling is deterministic.
    private var order: [ConnectionID] = []
    private var nextConnection: ConnectionID = 1
    private var resolving = false
    /// Some connection has been ready: a later failure to connect is less likely a wrong setup.
    private var everReady = false
    /// When a connection last failed before it was ready, and why: the reason requests that wait
    /// in vain are given, and, within `holdDown` with no connection up, the answer to new ones.
    /// Cleared once a connection is ready.
    private var lastFailure: (at: UInt64, error: TransportError)?
    private(set) var isShutDown = false
    private var actions: [Action] = []

    init(_ configuration: Configuration) { self.configuration = configuration }

    var waitingCount: Int { queue.count - head }
    var inFlightCount: Int { connections.values.reduce(0) { $0 + $1.inFlight.count } }
    var connectionCount: Int { connections.count }

    // MARK: - Events

    mutating func enqueue(_ id: RequestID, now: UInt64) -> [Action] {
        enqueue(CollectionOfOne(id), now: now)
    }

    /// Several requests at once: one round of scheduling for all of them.
    mutating func enqueue(_ ids: some Sequence<RequestID>, now: UInt64) -> [Action] {
        for id in ids {
            if isShutDown {
                actions.append(.fail(id, .shutDown))
            } else if let failed = lastFailure, elapsed(now, since: failed.at) < configuration.holdDown,
                !resolving, !connections.values.contains(where: { $0.state != .draining })
            {
                actions.append(.fail(id, failed.error))
            } else {
                queue.append(Waiting(id: id, deadline: now + configuration.timeout))
            }
        }
        schedule(now: now)
        return take()
    }

    mutating func resolved(_ result: Result<[ResolvedAddress], TransportError>, now: UInt64) -> [Action] {
        resolving = false
        guard !isShutDown else { return take() }
        switch result {
        case .success(let addresses) where !addresses.isEmpty: open(addresses, now: now)
        case .success: failIfNothingLeft(TransportError(.unreachable, "\(configuration.authority) has no address"), now: now)
        case .failure(let error): failIfNothingLeft(error, now: now)
        }
        return take()
    }

    /// The TCP connection is up; TLS and SETTINGS may still be to come.
    mutating func tcpConnected(_ connection: ConnectionID) {
        connections[connection]?.tcpUp = true
    }

    /// The server's SETTINGS came (the first or a later one): its stream limit is known.
    mutating func settingsReceived(_ connection: ConnectionID, streamLimit: Int, now: UInt64) -> [Action] {
        guard connections[connection] != nil else { return take() }
        connections[connection]!.streamLimit = max(0, streamLimit)
        if connections[connection]!.state == .opening {
            connections[connection]!.state = .ready
            connections[connection]!.lastActivity = now
            everReady = true
            lastFailure = nil
        }
        schedule(now: now)
        return take()
    }

    /// The request's HEADERS left: the server may act on it from now on.
    mutating func requestSent(_ id: RequestID, on connection: ConnectionID) {
        connections[connection]?.inFlight[id]?.sent = true
    }

    /// The request is over on this connection (answered, or completed by the caller): its stream is free.
    mutating func requestEnded(_ id: RequestID, on connection: ConnectionID, now: UInt64) -> [Action] {
        // In place (`connections[x]!.…`): a copy of the entry would copy its whole in-flight table.
        guard connections[connection]?.inFlight.removeValue(forKey: id) != nil else { return take() }
        connections[connection]!.lastActivity = now
        closeIfDrained(connection)
        schedule(now: now)
        return take()
    }

    /// The server refused the request unprocessed (past GOAWAY's last stream, or over its limit):
    /// it goes again before anything else.
    mutating func requestRefused(_ id: RequestID, on connection: ConnectionID, now: UInt64) -> [Action] {
        let ready = connections[connection]?.state == .ready
        guard let request = connections[connection]?.inFlight.removeValue(forKey: id) else { return take() }
        // Refused by a connection going away (GOAWAY), it simply moves: only refusals by one the
        // pool still sends to count.
        let refusals = request.refusals + (ready ? 1 : 0)
        if refusals < Self.maxRefusals {
            requeue(Waiting(id: id, deadline: request.deadline, refusals: refusals))
        } else {
            actions.append(.fail(id, TransportError(.unreachable, "the server refused the request \(Self.maxRefusals) times without processing it (REFUSED_STREAM)")))
        }
        closeIfDrained(connection)
        schedule(now: now)
        return take()
    }

    /// GOAWAY: the connection takes nothing new and closes once its streams have ended.
    mutating func goawayReceived(_ connection: ConnectionID, now: UInt64) -> [Action] {
        guard connections[connection] != nil else { return take() }
        connections[connection]!.state = .draining
        closeIfDrained(connection)
        schedule(now: now)
        return take()
    }

    mutating func pingAnswered(_ connection: ConnectionID, now: UInt64) {
        connections[connection]?.pingSentAt = nil
        connections[connection]?.lastActivity = now
    }

    /// The connection failed and the caller has closed it.
    mutating func connectionFailed(_ connection: ConnectionID, _ error: TransportError, now: UInt64) -> [Action] {
        drop(connection, because: error, now: now)
        schedule(now: now)
        return take()
    }

    /// Deadlines: answers, PINGs, connections that never came up, requests that never got a stream.
    mutating func tick(now: UInt64) -> [Action] {
        guard !isShutDown else { return take() }
        for connection in order {
            guard var entry = connections[connection] else { continue }
            if entry.state == .opening {
                if elapsed(now, since: entry.openedAt) >= configuration.connectTimeout {
                    actions.append(.close(connection))
                    drop(connection, because: connectTimeoutError(tcpUp: entry.tcpUp), now: now)
                }
                continue
            }
            let overdue = entry.inFlight.filter { $0.value.deadline <= now }
            if !overdue.isEmpty {
                // A connection that leaves an answer out this long is stalled: it is closed, so the
                // requests after these do not wait on it too.
                for (id, request) in overdue.sorted(by: { $0.key < $1.key }) {
                    entry.inFlight[id] = nil
                    actions.append(.fail(id, request.sent
                        ? TransportError(.timedOut, "no answer within \(seconds(configuration.timeout)); it may have been delivered")
                        : TransportError(.unreachable, "the request could not leave within \(seconds(configuration.timeout))")))
                }
                connections[connection] = entry
                actions.append(.close(connection))
                drop(connection, because: TransportError(.answerLost, "\(configuration.authority) stopped answering"), now: now)
                continue
            }
            if let sent = entry.pingSentAt {
                if elapsed(now, since: sent) >= configuration.timeout {
                    connections[connection] = entry
                    actions.append(.close(connection))
                    drop(connection, because: TransportError(.answerLost, "no answer to PING within \(seconds(configuration.timeout))"), now: now)
                    continue
                }
            } else if entry.state == .ready, entry.inFlight.isEmpty, elapsed(now, since: entry.lastActivity) >= configuration.pingInterval {
                entry.pingSentAt = now
                actions.append(.ping(connection))
            }
            connections[connection] = entry
            closeIfDrained(connection)
        }
        while head < queue.count, queue[head].deadline <= now {
            let waited = queue[head]
            head += 1
            let anyReady = connections.values.contains { $0.state == .ready }
            actions.append(.fail(waited.id, !anyReady
                ? lastFailure?.error ?? TransportError(.unreachable, "no connection to \(configuration.authority) within \(seconds(configuration.timeout))")
                : TransportError(.unreachable, "no free stream to \(configuration.authority) within \(seconds(configuration.timeout))")))
        }
        schedule(now: now)
        return take()
    }

    /// When ``tick(now:)`` next has work: a tenth of a second while anything waits, is in flight or
    /// is coming up; the next PING while connections idle; never without connections.
    func nextWakeup(now: UInt64) -> UInt64? {
        if head < queue.count || resolving { return now + 100 }
        var soonest: UInt64?
        for entry in connections.values {
            if entry.state == .opening || !entry.inFlight.isEmpty || entry.pingSentAt != nil { return now + 100 }
            let due = entry.lastActivity + configuration.pingInterval
            soonest = min(soonest ?? due, due)
        }
        return soonest
    }

    /// Fails everything queued and in flight and closes every connection; later requests fail at once.
    mutating func shutdown() -> [Action] {
        guard !isShutDown else { return take() }
        isShutDown = true
        for waiting in queue[head...] { actions.append(.fail(waiting.id, .shutDown)) }
        queue.removeAll()
        head = 0
        for connection in order {
            guard let entry = connections[connection] else { continue }
            for id in entry.inFlight.keys.sorted() { actions.append(.fail(id, .shutDown)) }
            actions.append(.close(connection))
        }
        connections.removeAll()
        order.removeAll()
        return take()
    }

    // MARK: - Inside

    /// Hands over the actions gathered so far. Moved out, not copied: keeping the capacity would
    /// make a new buffer of that size on every event, since the caller still holds the old one.
    private mutating func take() -> [Action] {
        defer { actions = [] }
        return actions
    }

    /// Hands queued requests to connections with room, opening another while all are full.
    private mutating func schedule(now: UInt64) {
        guard !isShutDown else { return }
        for connection in order where head < queue.count {
            guard let entry = connections[connection], entry.state == .ready else { continue }
            var room = min(entry.streamLimit, configuration.maxStreamsPerConnection) - entry.inFlight.count
            while room > 0, head < queue.count {
                let waiting = queue[head]
                head += 1
                connections[connection]!.inFlight[waiting.id] = (waiting.deadline, false, waiting.refusals)
                actions.append(.send(waiting.id, on: connection))
                room -= 1
            }
        }
        if head < queue.count {
            let opening = resolving || connections.values.contains { $0.state == .opening }
            if !opening && connections.count < configuration.maxConnections {
                resolving = true
                actions.append(.resolve)
            }
        }
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 4096 {
            queue.removeFirst(head)
            head = 0
        }
    }

    private mutating func requeue(_ waiting: Waiting) {
        if head > 0 {
            head -= 1
            queue[head] = waiting
        } else {
            queue.insert(waiting, at: 0)
        }
    }

    private mutating func open(_ addresses: [ResolvedAddress], now: UInt64) {
        let connection = nextConnection
        nextConnection += 1
        connections[connection] = Connection(openedAt: now, fallbacks: Array(addresses.dropFirst()))
        order.append(connection)
        actions.append(.connect(connection, addresses[0]))
    }

    /// Forgets a connection: requests that had not left go again, those that had fail (the server
    /// may have acted on them). One that never came up tries the host's next address.
    private mutating func drop(_ connection: ConnectionID, because error: TransportError, now: UInt64) {
        guard let entry = connections.removeValue(forKey: connection) else { return }
        order.removeAll { $0 == connection }
        for (id, request) in entry.inFlight.sorted(by: { $0.key > $1.key }) {
            if request.sent {
                let lost = error.mayHaveBeenDelivered ? error : TransportError(.answerLost, "\(error.message) after the request was sent; it may have been delivered")
                actions.append(.fail(id, lost))
            } else {
                requeue(Waiting(id: id, deadline: request.deadline, refusals: request.refusals))
            }
        }
        guard entry.state == .opening else { return }
        var error = error
        if entry.tcpUp, !everReady, error.kind == .unreachable {
            // It took the TCP connection and then failed to become HTTP/2, and no connection to it
            // has ever worked: the wrong protocol or port, not a passing outage.
            error = TransportError(.misconfigured, "\(error.message) (is \(configuration.authority) an APNs server, and is the scheme right?)")
        }
        if !entry.fallbacks.isEmpty && error.kind != .misconfigured {
            lastFailure = (now, error)
            open(entry.fallbacks, now: now)
        } else {
            failIfNothingLeft(error, now: now)
        }
    }

    /// Records a failure to connect and fails what waits when no connection is ready or coming to take it.
    private mutating func failIfNothingLeft(_ error: TransportError, now: UInt64) {
        lastFailure = (now, error)
        guard !resolving, connections.isEmpty || (error.kind == .misconfigured && !everReady) else { return }
        for waiting in queue[head...] { actions.append(.fail(waiting.id, error)) }
        queue.removeAll(keepingCapacity: true)
        head = 0
    }

    private mutating func closeIfDrained(_ connection: ConnectionID) {
        guard let entry = connections[connection], entry.state == .draining, entry.inFlight.isEmpty else { return }
        connections[connection] = nil
        order.removeAll { $0 == connection }
        actions.append(.close(connection))
    }

    private func connectTimeoutError(tcpUp: Bool) -> TransportError {
        let limit = seconds(configuration.connectTimeout)
        if !tcpUp { return TransportError(.unreachable, "cannot connect to \(configuration.authority) within \(limit)") }
        // It took the TCP connection but never finished TLS and HTTP/2: most likely not an APNs server.
        return TransportError(everReady ? .unreachable : .misconfigured,
            "\(configuration.authority) accepted the connection but did not complete TLS and HTTP/2 within \(limit); is it an APNs server?")
    }

    private func seconds(_ milliseconds: UInt64) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000) s" : "\(milliseconds) ms"
    }

    /// `now - since`, or 0 when `since` is later (a timestamp taken after the turn's clock).
    private func elapsed(_ now: UInt64, since: UInt64) -> UInt64 { now >= since ? now - since : 0 }
}
