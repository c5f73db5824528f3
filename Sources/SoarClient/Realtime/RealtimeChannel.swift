import Foundation
import SoarCore

/// A row change a channel follows, as Supabase Realtime sends it.
public struct DatabaseChange: Sendable, Equatable {
    /// `INSERT`, `UPDATE` or `DELETE`.
    public var type: String
    public var table: String
    /// The row as the subscriber may read it (nil for a delete).
    public var record: JSONValue?
    /// For updates and deletes: the row's primary key.
    public var oldRecord: JSONValue?
    public var commitTimestamp: String

    /// The record as a model (`Todo`, `NotificationRow`…).
    public func decode<Model: Decodable>(_ type: Model.Type) throws -> Model {
        try JSONCoding.decode(Model.self, from: (record ?? .null).jsonData)
    }
}

/// A row change as a model: `Todo` inserted or updated, or the key of one deleted.
public enum RowChange<Row: Sendable>: Sendable {
    case insert(Row)
    case update(Row)
    /// The deleted row's primary key (the whole old row when the table's replica identity is full).
    case delete(JSONValue)
}

extension RowChange: Equatable where Row: Equatable {}

/// Who joined and left a channel's presence: each key's metas (what `track` sent).
public struct PresenceChange: Sendable, Equatable {
    public var joins: [String: [JSONValue]]
    public var leaves: [String: [JSONValue]]
}

/// Where a channel stands, as supabase-swift names it.
public enum ChannelStatus: Sendable, Equatable {
    case unsubscribed, subscribing, subscribed, unsubscribing
}

/// One channel: what it follows, set before `subscribe()`, and streams of what arrives.
public final class RealtimeChannel: @unchecked Sendable {
    struct ChangeBinding {
        var event: String
        var table: String?
        var filter: String?
        var id: Int?
        let continuation: AsyncStream<DatabaseChange>.Continuation
    }

    let topic: String
    private unowned let client: RealtimeClient
    private let state = Locked(State())

    struct State {
        var changes: [ChangeBinding] = []
        var broadcasts: [(event: String, continuation: AsyncStream<JSONValue>.Continuation)] = []
        var presenceListeners: [AsyncStream<PresenceChange>.Continuation] = []
        /// Every present key's metas, kept from `presence_state` and `presence_diff`.
        var presence: [String: [JSONValue]] = [:]
        var statusListeners: [AsyncStream<ChannelStatus>.Continuation] = []
        var joinRef: String?
        /// Subscribed by the app and not left: joined again after a reconnect.
        var wanted = false
        var status = ChannelStatus.unsubscribed
    }

    let isPrivate: Bool

    init(topic: String, client: RealtimeClient, isPrivate: Bool) {
        self.topic = topic
        self.client = client
        self.isPrivate = isPrivate
    }

    var wasJoined: Bool { state.withLock { $0.wanted } }
    var joinRef: String? { state.withLock { $0.joinRef } }

    /// The channel's status now.
    public var status: ChannelStatus { state.withLock { $0.status } }

    /// The status now, then every change (a reconnect shows as `subscribing`, then `subscribed`).
    public var statusChange: AsyncStream<ChannelStatus> {
        let (stream, continuation) = AsyncStream<ChannelStatus>.makeStream()
        state.withLock { state in
            continuation.yield(state.status)
            state.statusListeners.append(continuation)
        }
        return stream
    }

    /// Row changes of `table` (nil: every table in the publication), `event` `*`, `INSERT`,
    /// `UPDATE` or `DELETE`, narrowed by `filter` (`column=eq.value`…). Ask before `subscribe()`.
    public func changes(event: String = "*", table: String? = nil, filter: String? = nil) -> AsyncStream<DatabaseChange> {
        let (stream, continuation) = AsyncStream<DatabaseChange>.makeStream()
        state.withLock { $0.changes.append(ChangeBinding(event: event, table: table, filter: filter, id: nil, continuation: continuation)) }
        return stream
    }

    /// Row changes of `table` decoded as `Row` (`Todo`, `NotificationRow`…); a record that does not
    /// decode is skipped. Ask before `subscribe()`.
    public func changes<Row: Decodable & Sendable>(of type: Row.Type, event: String = "*", table: String, filter: String? = nil) -> AsyncStream<RowChange<Row>> {
        let raw = changes(event: event, table: table, filter: filter)
        return AsyncStream { continuation in
            let task = Task {
                for await change in raw {
                    switch change.type {
                    case "INSERT": if let row = try? change.decode(Row.self) { continuation.yield(.insert(row)) }
                    case "UPDATE": if let row = try? change.decode(Row.self) { continuation.yield(.update(row)) }
                    case "DELETE": continuation.yield(.delete(change.oldRecord ?? .null))
                    default: break
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Broadcasts of `event` (`*`: all) on this channel.
    public func broadcasts(event: String = "*") -> AsyncStream<JSONValue> {
        let (stream, continuation) = AsyncStream<JSONValue>.makeStream()
        state.withLock { $0.broadcasts.append((event, continuation)) }
        return stream
    }

    /// Joins: the server checks each change binding (the table, the publication, the user's right
    /// to read it) and answers with an error that says why when one cannot be followed.
    public func subscribe() async throws(AppError) {
        do { try await join() } catch { throw AppError.map(error) }
    }

    /// Sends a broadcast to the channel's other members.
    public func broadcast(event: String, payload: JSONValue) async throws(AppError) {
        do {
            _ = try await client.request(
                topic: topic, event: "broadcast", payload: ["type": "broadcast", "event": .string(event), "payload": payload],
                joinRef: state.withLock { $0.joinRef })
        } catch { throw AppError.map(error) }
    }

    // MARK: presence

    /// Who is present now, by key: the metas each member tracked.
    public var presenceState: [String: [JSONValue]] { state.withLock { $0.presence } }

    /// Joins and leaves of the channel's presence, starting with everyone present on joining.
    public func presenceChange() -> AsyncStream<PresenceChange> {
        let (stream, continuation) = AsyncStream<PresenceChange>.makeStream()
        state.withLock { $0.presenceListeners.append(continuation) }
        return stream
    }

    /// Tells the channel's members this client is here, with `meta` (a name, a status…);
    /// tracking again replaces it.
    public func track(_ meta: [String: JSONValue]) async throws(AppError) {
        try await presence(["type": "presence", "event": "track", "payload": .object(meta)])
    }

    /// Leaves the channel's presence.
    public func untrack() async throws(AppError) {
        try await presence(["type": "presence", "event": "untrack"])
    }

    private func presence(_ payload: JSONValue) async throws(AppError) {
        do {
            _ = try await client.request(topic: topic, event: "presence", payload: payload, joinRef: state.withLock { $0.joinRef })
        } catch { throw AppError.map(error) }
    }

    /// Leaves the channel; its streams end.
    public func unsubscribe() async {
        set(.unsubscribing)
        _ = try? await client.request(topic: topic, event: "phx_leave", payload: [:], joinRef: state.withLock { $0.joinRef })
        finish()
        await client.forget(topic)
    }

    // MARK: from the client

    func join() async throws {
        let bindings = state.withLock { $0.changes }
        let token = await client.accessToken()
        var config: [String: JSONValue] = ["broadcast": ["self": false, "ack": true], "presence": ["key": ""], "private": .bool(isPrivate)]
        config["postgres_changes"] = .array(bindings.map { binding in
            var object: [String: JSONValue] = ["event": .string(binding.event), "schema": "public"]
            if let table = binding.table { object["table"] = .string(binding.table ?? table) }
            if let filter = binding.filter { object["filter"] = .string(filter) }
            return .object(object)
        })
        let joinRef = UUID().uuidString.lowercased()
        state.withLock { $0.joinRef = joinRef }
        set(.subscribing)
        let response: JSONValue
        do {
            response = try await client.request(topic: topic, event: "phx_join", payload: ["config": .object(config), "access_token": .string(token)], joinRef: joinRef)
        } catch {
            set(.unsubscribed)
            throw error
        }
        let ids = (response.objectValue?["postgres_changes"]?.arrayValue ?? []).map { $0.objectValue?["id"]?.intValue }
        state.withLock { state in
            for index in state.changes.indices where index < ids.count { state.changes[index].id = ids[index] }
            state.wanted = true
        }
        set(.subscribed)
    }

    /// The socket dropped: unsubscribed until the client joins again.
    func lost() { set(.unsubscribed) }

    private func set(_ status: ChannelStatus) {
        let listeners = state.withLock { state -> [AsyncStream<ChannelStatus>.Continuation] in
            guard state.status != status else { return [] }
            state.status = status
            return state.statusListeners
        }
        listeners.forEach { $0.yield(status) }
    }

    func received(event: String, payload: JSONValue) {
        let fields = payload.objectValue ?? [:]
        switch event {
        case "postgres_changes":
            let ids = Set((fields["ids"]?.arrayValue ?? []).compactMap(\.intValue))
            let data = fields["data"]?.objectValue ?? [:]
            let change = DatabaseChange(
                type: data["type"]?.stringValue ?? "", table: data["table"]?.stringValue ?? "", record: data["record"],
                oldRecord: data["old_record"], commitTimestamp: data["commit_timestamp"]?.stringValue ?? "")
            for binding in state.withLock({ $0.changes }) where binding.id.map(ids.contains) ?? false {
                binding.continuation.yield(change)
            }
        case "broadcast":
            let name = fields["event"]?.stringValue ?? ""
            for listener in state.withLock({ $0.broadcasts }) where listener.event == "*" || listener.event == name {
                listener.continuation.yield(fields["payload"] ?? [:])
            }
        case "presence_state":
            let everyone = Self.metas(payload)
            let change = state.withLock { state -> PresenceChange in
                let change = PresenceChange(joins: everyone, leaves: state.presence)
                state.presence = everyone
                return change
            }
            announce(change)
        case "presence_diff":
            let change = PresenceChange(joins: Self.metas(fields["joins"] ?? [:]), leaves: Self.metas(fields["leaves"] ?? [:]))
            state.withLock { state in
                for (key, metas) in change.leaves {
                    let gone = Set(metas.compactMap { $0.objectValue?["phx_ref"] })
                    state.presence[key]?.removeAll { gone.contains($0.objectValue?["phx_ref"] ?? .null) }
                    if state.presence[key]?.isEmpty == true { state.presence[key] = nil }
                }
                for (key, metas) in change.joins { state.presence[key, default: []].append(contentsOf: metas) }
            }
            announce(change)
        case "phx_close", "phx_error":
            state.withLock { $0.wanted = false }
            set(.unsubscribed)
        default:
            break
        }
    }

    private func announce(_ change: PresenceChange) {
        for listener in state.withLock({ $0.presenceListeners }) { listener.yield(change) }
    }

    /// `{"key": {"metas": [...]}}` as each key's metas.
    private static func metas(_ value: JSONValue) -> [String: [JSONValue]] {
        (value.objectValue ?? [:]).mapValues { $0.objectValue?["metas"]?.arrayValue ?? [] }
    }

    func finish() {
        set(.unsubscribed)
        let (changes, broadcasts, listeners, present) = state.withLock { state in
            defer {
                state.changes = []
                state.broadcasts = []
                state.statusListeners = []
                state.presenceListeners = []
                state.presence = [:]
                state.wanted = false
            }
            return (state.changes, state.broadcasts, state.statusListeners, state.presenceListeners)
        }
        changes.forEach { $0.continuation.finish() }
        broadcasts.forEach { $0.continuation.finish() }
        listeners.forEach { $0.finish() }
        present.forEach { $0.finish() }
    }
}
