import Foundation
import SoarCore
import SoarHTTP2

/// A channel one socket joined: what it asked for in `phx_join`.
struct Channel {
    var joinRef: String?
    var identity: RealtimeIdentity
    var broadcastSelf = false
    var broadcastAck = false
    /// The socket's presence key on this topic (the one it asked for, or a random one).
    var presenceKey: String?
    /// What it follows of the database.
    var bindings: [ChangeBinding] = []
    /// A private channel's rights, by the app's policies; nil for a public channel.
    var rights: ChannelRights?
    /// Whom its broadcasts and presence reach: the topic's public room, or its private one (a
    /// public and a private channel of one name never hear each other, as on Supabase).
    var room: String

    static func room(_ topic: String, isPrivate: Bool) -> String { isPrivate ? privateMark + topic : topic }
    /// A topic's name without `realtime:` (what policies see as `realtime.topic()`).
    static func name(of topic: String) -> String { String(topic.dropFirst(topic.hasPrefix("realtime:") ? 9 : 0)) }
    /// The topic a room's messages go out on.
    static func topic(ofRoom room: String) -> String { room.hasPrefix(privateMark) ? String(room.dropFirst(privateMark.count)) : room }
    private static let privateMark = "\u{1}private\u{1}"
}

/// The channels of every socket on one loop: joins, heartbeats, broadcast and presence, as
/// Supabase Realtime answers them.
final class Channels {
    unowned let driver: Driver
    /// Private joins waiting for their check, so a second join of the topic is refused meanwhile.
    private var pendingJoins: Set<PendingJoin> = []
    struct PendingJoin: Hashable, Sendable {
        let socket: UInt64
        let topic: String
    }
    /// Who joined each topic.
    private var members: [String: [ObjectIdentifier: Client]] = [:]
    /// Presence per topic: key → each socket's metadata under it.
    private var presence: [String: [String: [ObjectIdentifier: JSONValue]]] = [:]

    init(driver: Driver) { self.driver = driver }

    func handle(_ message: PhoenixMessage, from client: Client) {
        if message.topic == "phoenix" {
            if message.event == "heartbeat" { client.send(message.reply("ok")) }
            return
        }
        switch message.event {
        case "phx_join": join(message, client)
        case "phx_leave":
            leave(message.topic, client)
            client.send(message.reply("ok"))
        case "access_token": renew(message, client)
        case "broadcast": relay(message, client)
        case "presence": track(message, client)
        default:
            client.send(message.reply("error", ["reason": .string("unknown event \(message.event)")]))
        }
    }

    // MARK: joining

    private func join(_ message: PhoenixMessage, _ client: Client) {
        let config = message.payload.objectValue?["config"]?.objectValue ?? [:]
        let name = Channel.name(of: message.topic)
        guard message.topic.hasPrefix("realtime:"), !name.isEmpty, message.topic.utf8.count <= 255,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f })
        else {
            client.send(message.reply("error", ["reason": "unmatched topic: a channel's topic is realtime: and a name of printable characters, at most 255 bytes"]))
            return
        }

        if client.joined[message.topic] != nil || pendingJoins.contains(PendingJoin(socket: client.serial, topic: message.topic)) {
            // Phoenix's answer to a second join of a topic on the same socket.
            client.send(message.reply("error", ["reason": "already joined"]))
            return
        }
        guard client.joined.count < driver.limits.channelsPerSocket else {
            client.send(message.reply("error", ["reason": .string("Too many channels: at most \(driver.limits.channelsPerSocket) a socket")]))
            return
        }
        client.joinsInWindow += 1
        guard client.joinsInWindow <= driver.limits.joinsPerSecond else {
            client.send(message.reply("error", ["reason": .string("Too many joins per second: at most \(driver.limits.joinsPerSecond) a socket")]))
            return
        }
        var identity = client.identity
        if let token = message.payload.objectValue?["access_token"]?.stringValue, !token.isEmpty {
            guard let verified = driver.verify(token) else {
                client.send(message.reply("error", ["reason": "Invalid JWT: the access token is expired, signed out, or not this project's"]))
                return
            }
            identity = verified
        }
        if config["private"]?.boolValue == true {
            authorize(message, client, identity: identity)
            return
        }
        admit(message, client, identity: identity, rights: nil)
    }

    /// A private channel: the app's policies are read off the loop, then the join goes on (or is
    /// refused saying why), unless the socket left or joined the topic meanwhile.
    private func authorize(_ message: PhoenixMessage, _ client: Client, identity: RealtimeIdentity) {
        guard let authority = driver.channelAuthority.withLock({ $0 }), let loop = driver.loop else {
            client.send(message.reply("error", ["reason": "Private channels are not available on this server"]))
            return
        }
        let topic = Channel.name(of: message.topic)
        let pending = PendingJoin(socket: client.serial, topic: message.topic)
        pendingJoins.insert(pending)
        let driver = self.driver
        driver.checks.async {
            let result = authority.rights(topic: topic, identity: identity)
            _ = loop.execute { driver.channels.authorized(pending, message, identity: identity, result) }
        }
    }

    /// A private join's check came back: the join goes on, or is refused saying why, unless the
    /// socket went away meanwhile.
    private func authorized(_ pending: PendingJoin, _ message: PhoenixMessage, identity: RealtimeIdentity, _ result: Result<ChannelRights, RealtimeError>) {
        guard pendingJoins.remove(pending) != nil, let client = driver.client(serial: pending.socket), client.joined[message.topic] == nil else { return }
        switch result {
        case .failure(let error):
            client.send(message.reply("error", ["reason": .string(error.description)]))
        case .success(let rights) where !rights.read:
            client.send(message.reply("error", ["reason": .string(Self.unauthorizedRead(message.topic))]))
        case .success(let rights):
            admit(message, client, identity: identity, rights: rights)
        }
    }

    /// Joins a channel whose caller may join it.
    private func admit(_ message: PhoenixMessage, _ client: Client, identity: RealtimeIdentity, rights: ChannelRights?) {
        let config = message.payload.objectValue?["config"]?.objectValue ?? [:]
        // postgres_changes: each binding checked now (the table, the publication, the caller's
        // right to read it), so that a subscription that could never deliver says why.
        var bindings: [ChangeBinding] = []
        for value in config["postgres_changes"]?.arrayValue ?? [] {
            do throws(RealtimeError) {
                driver.nextBindingID += 1
                let binding = try ChangeBinding(value, id: driver.nextBindingID)
                guard let authority = driver.changeAuthority.withLock({ $0 }) else { throw RealtimeError("postgres_changes are not available on this server") }
                if let refusal = authority.refusal(binding, identity: identity) { throw RealtimeError(refusal) }
                bindings.append(binding)
            } catch {
                client.send(message.reply("error", ["reason": .string(error.description)]))
                return
            }
        }
        let broadcast = config["broadcast"]?.objectValue ?? [:]
        var channel = Channel(joinRef: message.joinRef ?? message.ref, identity: identity, room: Channel.room(message.topic, isPrivate: rights != nil))
        channel.rights = rights
        channel.broadcastSelf = broadcast["self"]?.boolValue ?? false
        channel.broadcastAck = broadcast["ack"]?.boolValue ?? false
        // Presence works on every channel (a client may track without having said so: newer
        // clients send `enabled: false` until a presence callback is attached); the state is sent
        // at once only to those that asked for it.
        let presenceConfig = config["presence"]?.objectValue ?? [:]
        let key = presenceConfig["key"]?.stringValue ?? ""
        channel.presenceKey = key.isEmpty ? RandomUUID.lowercase() : key
        let wantsState = config["presence"] != nil && presenceConfig["enabled"]?.boolValue != false
        channel.bindings = bindings
        client.joined[message.topic] = channel
        admit(client, to: channel.room)
        client.send(message.reply("ok", ["postgres_changes": .array(bindings.map(\.reply))]))
        if !bindings.isEmpty {
            driver.subscribe(ChangeSubscription(key: SubscriptionKey(socket: client.serial, topic: message.topic), identity: identity, bindings: bindings))
            client.send(PhoenixMessage(
                joinRef: channel.joinRef, topic: message.topic, event: "system",
                payload: ["status": "ok", "message": "Subscribed to PostgreSQL", "extension": "postgres_changes",
                          "channel": .string(Channel.name(of: message.topic))]))
        }
        if wantsState {
            client.send(PhoenixMessage(joinRef: channel.joinRef, topic: message.topic, event: "presence_state", payload: state(of: channel.room)))
        }
    }

    /// A socket left a topic: its presence goes, as a diff to who stays.
    func leave(_ topic: String, _ client: Client) {
        guard let channel = client.joined.removeValue(forKey: topic) else { return }
        remove(client, from: channel.room)
        if !channel.bindings.isEmpty { driver.unsubscribe(SubscriptionKey(socket: client.serial, topic: topic)) }
        if let key = channel.presenceKey { untrack(channel.room, key: key, client) }
    }

    func leaveAll(_ client: Client) {
        for topic in Array(client.joined.keys) { leave(topic, client) }
    }

    /// A new access token for a joined channel: a bad one ends the channel, loudly.
    private func renew(_ message: PhoenixMessage, _ client: Client) {
        guard var channel = client.joined[message.topic] else { return }
        let token = message.payload.objectValue?["access_token"]?.stringValue ?? ""
        guard let identity = driver.verify(token) else {
            close(message.topic, of: client, because: "Invalid JWT: the channel is closed")
            return
        }
        let changed = identity.role != channel.identity.role || identity.userID != channel.identity.userID
        channel.identity = identity
        client.joined[message.topic] = channel
        if !channel.bindings.isEmpty {
            driver.subscribe(ChangeSubscription(key: SubscriptionKey(socket: client.serial, topic: message.topic), identity: identity, bindings: channel.bindings))
        }
        // A private channel now acting as someone else hears and sends nothing until the app's
        // policies are read again for them; refused, it closes saying why.
        guard changed, channel.rights != nil, let authority = driver.channelAuthority.withLock({ $0 }), let loop = driver.loop else { return }
        channel.rights = ChannelRights(read: false, broadcast: false, presence: false)
        client.joined[message.topic] = channel
        remove(client, from: channel.room)
        let serial = client.serial, topic = message.topic, joinRef = channel.joinRef
        let driver = self.driver
        driver.checks.async {
            let result = authority.rights(topic: Channel.name(of: topic), identity: identity)
            _ = loop.execute { driver.channels.reauthorized(serial: serial, topic: topic, joinRef: joinRef, identity: identity, result) }
        }
    }

    /// A private channel's rights read again after a token for another user or role.
    private func reauthorized(serial: UInt64, topic: String, joinRef: String?, identity: RealtimeIdentity, _ result: Result<ChannelRights, RealtimeError>) {
        guard let client = driver.client(serial: serial), var channel = client.joined[topic], channel.joinRef == joinRef,
            channel.identity == identity
        else { return }
        guard case .success(let rights) = result, rights.read else {
            close(topic, of: client, because: Self.unauthorizedRead(topic))
            return
        }
        channel.rights = rights
        client.joined[topic] = channel
        admit(client, to: channel.room)
    }

    private func admit(_ client: Client, to room: String) {
        if members[room] == nil { driver.occupied.withLock { _ = $0.insert(room) } }
        members[room, default: [:]][ObjectIdentifier(client)] = client
    }

    private func remove(_ client: Client, from room: String) {
        members[room]?[ObjectIdentifier(client)] = nil
        guard members[room]?.isEmpty == true else { return }
        members[room] = nil
        driver.occupied.withLock { _ = $0.remove(room) }
    }

    // MARK: broadcast

    /// The joined channel `client` may broadcast on, or why it may not.
    private func broadcaster(_ topic: String, _ client: Client) -> Result<Channel, RealtimeError> {
        guard let channel = client.joined[topic] else { return .failure(RealtimeError("unmatched topic")) }
        if let rights = channel.rights, !rights.broadcast { return .failure(RealtimeError(Self.unauthorizedWrite(topic))) }
        return .success(channel)
    }

    private func relay(_ message: PhoenixMessage, _ client: Client) {
        let channel: Channel
        switch broadcaster(message.topic, client) {
        case .success(let joined): channel = joined
        case .failure(let refusal): return client.send(message.reply("error", ["reason": .string(refusal.description)]))
        }
        let fields = message.payload.objectValue ?? [:]
        broadcast(room: channel.room, event: fields["event"]?.stringValue ?? "", payload: fields["payload"] ?? [:], from: client, includeSender: channel.broadcastSelf)
        if channel.broadcastAck { client.send(message.reply("ok")) }
    }

    /// A broadcast pushed in a binary frame: delivered binary to `vsn=2.0.0` members, as text to
    /// the others; acknowledged when the sender asked for `ack`.
    func relay(_ push: BinaryBroadcast, _ client: Client) {
        let reply = { (status: String, response: JSONValue) in
            PhoenixMessage(joinRef: push.joinRef, ref: push.ref, topic: push.topic, event: "phx_reply", payload: ["status": .string(status), "response": response])
        }
        let channel: Channel
        switch broadcaster(push.topic, client) {
        case .success(let joined): channel = joined
        case .failure(let refusal): return client.send(reply("error", ["reason": .string(refusal.description)]))
        }
        for member in (members[channel.room] ?? [:]).values where member !== client || channel.broadcastSelf { member.send(push) }
        if channel.broadcastAck, push.ref != nil { client.send(reply("ok", [:])) }
    }

    /// Sends a broadcast to every socket in `room` (the sender only when it asked for `self`).
    func broadcast(room: String, event: String, payload: JSONValue, from sender: Client?, includeSender: Bool = false) {
        let topic = Channel.topic(ofRoom: room)
        for member in (members[room] ?? [:]).values where member !== sender || includeSender {
            let joinRef = member.joined[topic]?.joinRef
            member.send(PhoenixMessage(
                joinRef: joinRef, topic: topic, event: "broadcast", payload: ["type": "broadcast", "event": .string(event), "payload": payload]))
        }
    }

    /// Supabase's words for a join and a send its policies refuse.
    static func unauthorizedRead(_ topic: String) -> String {
        "Unauthorized: you do not have permissions to read from this Channel topic: " + Channel.name(of: topic)
    }

    static func unauthorizedWrite(_ topic: String) -> String {
        "Unauthorized: you do not have permissions to write to this Channel topic: " + Channel.name(of: topic)
    }

    // MARK: presence

    private func track(_ message: PhoenixMessage, _ client: Client) {
        guard let channel = client.joined[message.topic], let key = channel.presenceKey else {
            client.send(message.reply("error", ["reason": "unmatched topic"]))
            return
        }
        if let rights = channel.rights, !rights.presence {
            client.send(message.reply("error", ["reason": .string(Self.unauthorizedWrite(message.topic))]))
            return
        }
        let fields = message.payload.objectValue ?? [:]
        switch fields["event"]?.stringValue {
        case "track":
            var meta = fields["payload"]?.objectValue ?? [:]
            meta["phx_ref"] = .string(RandomUUID.lowercase())
            let old = presence[channel.room]?[key]?[ObjectIdentifier(client)]
            presence[channel.room, default: [:]][key, default: [:]][ObjectIdentifier(client)] = .object(meta)
            var leaves: [String: JSONValue] = [:]
            if let old { leaves[key] = ["metas": [old]] }
            diff(channel.room, joins: [key: ["metas": [.object(meta)]]], leaves: leaves)
            client.send(message.reply("ok"))
        case "untrack":
            untrack(channel.room, key: key, client)
            client.send(message.reply("ok"))
        default:
            client.send(message.reply("error", ["reason": "presence events are track and untrack"]))
        }
    }

    private func untrack(_ room: String, key: String, _ client: Client) {
        guard let meta = presence[room]?[key]?.removeValue(forKey: ObjectIdentifier(client)) else { return }
        if presence[room]?[key]?.isEmpty == true { presence[room]?[key] = nil }
        if presence[room]?.isEmpty == true { presence[room] = nil }
        diff(room, joins: [:], leaves: [key: ["metas": [meta]]])
    }

    private func diff(_ room: String, joins: [String: JSONValue], leaves: [String: JSONValue]) {
        let topic = Channel.topic(ofRoom: room)
        for member in (members[room] ?? [:]).values {
            member.send(PhoenixMessage(
                joinRef: member.joined[topic]?.joinRef, topic: topic, event: "presence_diff", payload: ["joins": .object(joins), "leaves": .object(leaves)]))
        }
    }

    private func state(of room: String) -> JSONValue {
        .object((presence[room] ?? [:]).mapValues { metas in ["metas": .array(Array(metas.values))] })
    }
}

extension Channels {
    /// A change for a subscription: sent on its topic if the socket still follows it.
    func deliver(_ payload: [UInt8], to key: SubscriptionKey) {
        guard let client = driver.client(serial: key.socket), let channel = client.joined[key.topic], !channel.bindings.isEmpty else { return }
        client.send(joinRef: channel.joinRef, topic: key.topic, event: "postgres_changes", payload: payload)
    }
}

extension Channels {
    /// Ends a channel from the server's side: a `system` error saying why, then `phx_close`.
    func close(_ topic: String, of client: Client, because reason: String) {
        guard let channel = client.joined[topic] else { return }
        client.send(PhoenixMessage(
            joinRef: channel.joinRef, topic: topic, event: "system",
            payload: ["status": "error", "extension": "system", "channel": .string(topic), "message": .string(reason)]))
        client.send(PhoenixMessage(joinRef: channel.joinRef, topic: topic, event: "phx_close", payload: [:]))
        leave(topic, client)
    }

    /// Closes the channels whose token has run out by `now` (Unix seconds).
    func expire(_ client: Client, at now: Int) {
        for (topic, channel) in client.joined {
            if let expiry = channel.identity.expiresAt, expiry <= now { close(topic, of: client, because: "Token has expired: the channel is closed") }
        }
    }
}
