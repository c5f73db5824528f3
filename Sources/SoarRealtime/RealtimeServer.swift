import Foundation
import SoarCore
import SoarHTTP
import SoarHTTP2

/// Who a socket or a channel acts as: the API key's role, or the user a joined access token names.
public struct RealtimeIdentity: Sendable, Equatable {
    public var role: String
    public var userID: String?
    /// When the token stops being valid (Unix seconds); nil for API keys.
    public var expiresAt: Int?

    public init(role: String, userID: String? = nil, expiresAt: Int? = nil) {
        self.role = role
        self.userID = userID
        self.expiresAt = expiresAt
    }
}

/// Supabase Realtime's WebSocket side on one event loop: sockets taken over from the HTTP server,
/// the Phoenix protocol on them, and the channels (``Channels``) they join.
public final class RealtimeServer: @unchecked Sendable {
    public struct Limits: Sendable {
        /// Channels one socket may join (Supabase's default: 100).
        public var channelsPerSocket = 100
        /// A socket that sends nothing (not even a heartbeat) for this long is closed.
        public var idleTimeout: UInt64 = 60_000
        /// Messages one socket may send a second; more are answered with an error, not handled.
        public var messagesPerSecond = 100
        /// Joins one socket may ask for a second.
        public var joinsPerSecond = 50
        /// The largest message a socket may send (1 MB); a larger one closes it with 1009.
        public var maxMessageBytes = 1 << 20

        public init() {}
    }

    private let loop: EventLoop
    private let driver: Driver

    /// Starts the loop. `verify` turns an access token into an identity, or nil when it is not valid.
    public init(
        limits: Limits = Limits(), clock: @escaping @Sendable () -> Date = Date.init, verify: @escaping @Sendable (String) -> RealtimeIdentity?
    ) throws(SystemError) {
        driver = Driver(limits: limits, clock: clock, verify: verify)
        loop = try EventLoop(name: "soar.realtime", driver: driver)
        driver.loop = loop
    }

    /// Takes over an upgraded connection speaking `version`, as `identity` (the API key's).
    public func adopt(_ socket: UpgradedSocket, version: PhoenixVersion, identity: RealtimeIdentity) {
        let driver = self.driver
        let accepted = loop.execute { driver.adopt(socket, version: version.value, identity: identity) }
        if !accepted { socket.close() }
    }

    /// Sends a broadcast from the server side (`POST /realtime/v1/api/broadcast`).
    public func broadcast(topic: String, event: String, payload: JSONValue, isPrivate: Bool = false) {
        let driver = self.driver
        loop.execute { driver.channels.broadcast(room: Channel.room("realtime:" + topic, isPrivate: isPrivate), event: event, payload: payload, from: nil) }
    }

    /// Who decides whether a subscription may follow a table; without one, postgres_changes are refused.
    /// Whether any socket has joined `topic` (without `realtime:`): what a server-side
    /// broadcaster asks before it does the work of a broadcast nobody would hear.
    public func hasMembers(topic: String, isPrivate: Bool) -> Bool {
        let room = Channel.room("realtime:" + topic, isPrivate: isPrivate)
        return driver.occupied.withLock { $0.contains(room) }
    }

    public func setChangeAuthority(_ authority: any ChangeAuthority) { driver.changeAuthority.withLock { $0 = authority } }

    /// What decides private channels; without one they are refused, saying so.
    public func setChannelAuthority(_ authority: any ChannelAuthority) { driver.channelAuthority.withLock { $0 = authority } }

    /// The channels following database changes now (any thread).
    public func changeSubscriptions() -> [ChangeSubscription] { driver.subscriptions.withLock { Array($0.values) } }

    /// Sends `postgres_changes` payloads (`{"ids", "data"}`, already written as JSON) each to its
    /// subscription if it is still there, in order, in one task of the loop.
    public func deliver(_ deliveries: [(payload: [UInt8], key: SubscriptionKey)]) {
        guard !deliveries.isEmpty else { return }
        let driver = self.driver
        loop.execute { for delivery in deliveries { driver.channels.deliver(delivery.payload, to: delivery.key) } }
    }

    /// Closes every socket and stops the loop.
    public func stop() { loop.stop() }

    /// How many sockets are open (for `/metrics` and tests).
    public var socketCount: Int { driver.count.withLock { $0 } }

    /// Realtime's lines of `/metrics`: open sockets, and channels following database changes.
    public var metricsText: String {
        """
        # HELP soar_realtime_sockets Realtime WebSockets open.
        # TYPE soar_realtime_sockets gauge
        soar_realtime_sockets \(socketCount)
        # HELP soar_realtime_change_subscriptions Channels following database changes.
        # TYPE soar_realtime_change_subscriptions gauge
        soar_realtime_change_subscriptions \(driver.subscriptions.withLock { $0.count })

        """
    }
}

/// The serializer a socket asked for with `vsn`.
public struct PhoenixVersion: Sendable {
    let value: PhoenixMessage.Version
    /// Nil for a version Soar does not speak.
    public init?(vsn: String?) {
        guard let value = PhoenixMessage.Version(vsn) else { return nil }
        self.value = value
    }
}

/// The loop's side: every method runs on the loop thread (hence unchecked: nothing is shared).
final class Driver: EventLoopDriver, @unchecked Sendable {
    let limits: RealtimeServer.Limits
    let verify: @Sendable (String) -> RealtimeIdentity?
    weak var loop: EventLoop?
    private(set) var clients: [Int32: Client] = [:]
    let count = Locked(0)
    lazy var channels = Channels(driver: self)
    let changeAuthority = Locked<(any ChangeAuthority)?>(nil)
    let channelAuthority = Locked<(any ChannelAuthority)?>(nil)
    /// Private-channel checks run here, off the loop (they read the database).
    let checks = DispatchQueue(label: "soar.realtime.authorization", attributes: .concurrent)
    /// The rooms someone has joined, read from other threads (``RealtimeServer/hasMembers(topic:isPrivate:)``).
    let occupied = Locked(Set<String>())
    /// Channels following database changes, read by the change feed from its own thread.
    let subscriptions = Locked([SubscriptionKey: ChangeSubscription]())
    var nextBindingID = 0
    private var nextSerial: UInt64 = 0
    private var bySerial: [UInt64: Client] = [:]

    func subscribe(_ subscription: ChangeSubscription) { subscriptions.withLock { $0[subscription.key] = subscription } }
    func unsubscribe(_ key: SubscriptionKey) { _ = subscriptions.withLock { $0.removeValue(forKey: key) } }
    func client(serial: UInt64) -> Client? { bySerial[serial] }

    /// Wall time, for tokens' expiry.
    let clock: @Sendable () -> Date

    init(limits: RealtimeServer.Limits, clock: @escaping @Sendable () -> Date, verify: @escaping @Sendable (String) -> RealtimeIdentity?) {
        self.limits = limits
        self.clock = clock
        self.verify = verify
    }

    func adopt(_ socket: UpgradedSocket, version: PhoenixMessage.Version, identity: RealtimeIdentity) {
        nextSerial += 1
        let client = Client(socket: socket, serial: nextSerial, version: version, identity: identity, now: loop?.now ?? 0)
        bySerial[client.serial] = client
        client.webSocket = WebSocket(fd: socket.fd, extra: socket.extra, maxMessage: limits.maxMessageBytes) { [weak self, weak client] message in
            guard let self, let client else { return }
            self.received(message, from: client)
        }
        clients[socket.fd] = client
        count.withLock { $0 = clients.count }
        do { try loop?.watch(socket.fd, writable: false) } catch {
            drop(client)
            return
        }
        // The client's first frames may already be in hand.
        if !socket.extra.isEmpty { service(client, readable: true, writable: false) }
    }

    func received(_ message: WebSocket.Message, from client: Client) {
        let now = loop?.now ?? 0
        client.lastHeard = now
        if now >= client.windowStart + 1000 {
            client.windowStart = now
            client.messagesInWindow = 0
            client.joinsInWindow = 0
        }
        client.messagesInWindow += 1
        guard case .text(let data) = message else {
            guard case .binary(let frame) = message, client.version == .v2 else {
                client.send(PhoenixMessage(topic: "phoenix", event: "phx_error", payload: ["reason": "binary frames need vsn=2.0.0"]))
                return
            }
            do {
                let push = try BinaryBroadcast.decodePush(frame)
                guard client.messagesInWindow <= limits.messagesPerSecond else {
                    client.send(PhoenixMessage(joinRef: push.joinRef, ref: push.ref, topic: push.topic, event: "phx_reply", payload: [
                        "status": "error", "response": ["reason": .string("Too many messages per second: at most \(limits.messagesPerSecond) a socket")],
                    ]))
                    return
                }
                channels.relay(push, client)
            } catch {
                client.webSocket?.close(code: 1007, reason: error.description)
            }
            return
        }
        do {
            let decoded = try PhoenixMessage.decode(data, client.version)
            guard client.messagesInWindow <= limits.messagesPerSecond else {
                client.send(decoded.reply("error", ["reason": .string("Too many messages per second: at most \(limits.messagesPerSecond) a socket")]))
                return
            }
            channels.handle(decoded, from: client)
        } catch {
            client.webSocket?.close(code: 1007, reason: error.description)
        }
    }

    /// Ends a client: its channels left (presence told), its socket given back and closed.
    func drop(_ client: Client) {
        guard clients.removeValue(forKey: client.socket.fd) != nil else { return }
        bySerial[client.serial] = nil
        count.withLock { $0 = clients.count }
        channels.leaveAll(client)
        try? loop?.unwatch(client.socket.fd)
        client.webSocket = nil
        client.socket.close()
    }

    /// Ends a client whose close frame went out while it may still be sending: its channels are
    /// left now, and what it sends is read and dropped until it closes too (or 2 s pass), so that
    /// closing does not reset the connection before the peer has read why.
    func linger(_ client: Client, now: UInt64) {
        guard client.lingeringSince == nil else { return }
        client.lingeringSince = now
        channels.leaveAll(client)
        client.webSocket = nil
        _ = shutdown(client.socket.fd, Int32(SHUT_WR))
        try? loop?.setWritable(client.socket.fd, false)
    }

    /// Reads and drops what a lingering client sends; true once it has closed its side.
    private func drained(_ client: Client) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(client.socket.fd, &buffer, buffer.count, 0)
            if count > 0 { continue }
            return count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
        }
    }

    // MARK: EventLoopDriver

    func socketReady(_ fd: Int32, _ events: SocketEvents, now: UInt64) {
        guard let client = clients[fd] else { return }
        service(client, readable: events.readable || events.failed, writable: events.writable)
    }

    private func service(_ client: Client, readable: Bool, writable: Bool) {
        if client.lingeringSince != nil {
            if drained(client) { drop(client) }
            return
        }
        guard let socket = client.webSocket else { return }
        var open = true
        if readable { open = socket.readable() }
        if open && writable { open = socket.writable() }
        if !open || client.tooSlow {
            // wslay may have queued the close frame that says why (1009 for a message too large).
            if socket.wantsWrite { _ = socket.writable() }
            linger(client, now: loop?.now ?? 0)
        }
    }

    func turnEnded(now: UInt64) {
        for client in clients.values {
            if let since = client.lingeringSince {
                if now > since + 2000 { drop(client) }
                continue
            }
            guard let socket = client.webSocket else { continue }
            channels.expire(client, at: Int(clock().timeIntervalSince1970))
            if now > client.lastHeard + limits.idleTimeout {
                socket.close(code: 1000, reason: "no heartbeat for \(limits.idleTimeout / 1000) s")
                client.lastHeard = now  // once
            }
            if client.tooSlow || (socket.wantsWrite && !socket.writable()) || !socket.isOpen { linger(client, now: now) }
        }
        // After every drop: a drop tells the others (presence), whose sockets then have writing to do.
        for client in clients.values {
            guard let socket = client.webSocket else { continue }
            try? loop?.setWritable(client.socket.fd, socket.wantsWrite)
        }
    }

    func nextWakeup(now: UInt64) -> UInt64? {
        let wall = clock().timeIntervalSince1970
        return clients.values.map { client in
            let idle = client.lingeringSince.map { $0 + 2001 } ?? client.lastHeard + limits.idleTimeout + 1
            // A channel's token running out ends the channel then.
            let expiry = client.joined.values.compactMap(\.identity.expiresAt).min().map { now + UInt64(max(0, (Double($0) - wall) * 1000)) + 1 }
            return min(idle, expiry ?? idle)
        }.min()
    }

    func loopStopping(now: UInt64) {
        for client in Array(clients.values) {
            client.webSocket?.close(code: 1001, reason: "the server is stopping")
            _ = client.webSocket?.writable()
            drop(client)
        }
    }
}

/// One socket: its protocol version, who it is, and the channels it joined.
final class Client {
    let socket: UpgradedSocket
    /// Unique for the server's life (descriptors are reused).
    let serial: UInt64
    let version: PhoenixMessage.Version
    let identity: RealtimeIdentity
    var webSocket: WebSocket?
    var lastHeard: UInt64
    /// Joined channels by topic.
    var joined: [String: Channel] = [:]
    /// Set when a message could not be queued: the peer does not read fast enough.
    var tooSlow = false
    /// When its close went out, while what it still sends is read and dropped.
    var lingeringSince: UInt64?
    /// The current second's messages and joins, for the limits.
    var windowStart: UInt64 = 0
    var messagesInWindow = 0
    var joinsInWindow = 0

    init(socket: UpgradedSocket, serial: UInt64, version: PhoenixMessage.Version, identity: RealtimeIdentity, now: UInt64) {
        self.socket = socket
        self.serial = serial
        self.version = version
        self.identity = identity
        lastHeard = now
    }

    func send(_ message: PhoenixMessage) {
        guard let webSocket else { return }
        if !webSocket.send(.text(message.encoded(version))) { tooSlow = true }
    }

    /// A message whose payload is already JSON text.
    func send(joinRef: String?, topic: String, event: String, payload: [UInt8]) {
        guard let webSocket else { return }
        if !webSocket.send(.text(PhoenixMessage.encoded(joinRef: joinRef, topic: topic, event: event, payload: payload, version))) { tooSlow = true }
    }

    /// A broadcast that came in a binary frame: binary to a `vsn=2.0.0` socket, text to another.
    func send(_ broadcast: BinaryBroadcast) {
        guard let webSocket else { return }
        guard version == .v2 else {
            return send(PhoenixMessage(
                joinRef: joined[broadcast.topic]?.joinRef, topic: broadcast.topic, event: "broadcast",
                payload: ["type": "broadcast", "event": .string(broadcast.event), "payload": broadcast.textPayload]))
        }
        if !webSocket.send(.binary(broadcast.delivery)) { tooSlow = true }
    }
}
