import Foundation
import SoarCore

/// One `postgres_changes` binding as a join asked for it, with the id the reply gives it.
public struct ChangeBinding: Sendable, Equatable {
    public var id: Int
    /// `*`, `INSERT`, `UPDATE` or `DELETE`.
    public var event: String
    public var schema: String
    /// Nil: every table of the schema in the publication.
    public var table: String?
    /// As the client sent it: `column=op.value` (eq, neq, lt, lte, gt, gte, in).
    public var filter: String?

    /// The filter as a data API query parameter.
    public var filterParameter: (name: String, value: String)? {
        guard let filter, let equals = filter.firstIndex(of: "=") else { return nil }
        return (String(filter[..<equals]), String(filter[filter.index(after: equals)...]))
    }

    public func matches(table name: String, type: String) -> Bool {
        (table == nil || table == name) && (event == "*" || event == type)
    }

    /// - Throws: why the binding is not one Soar can follow.
    init(_ value: JSONValue, id: Int) throws(RealtimeError) {
        let fields = value.objectValue ?? [:]
        self.id = id
        event = fields["event"]?.stringValue ?? ""
        guard ["*", "INSERT", "UPDATE", "DELETE"].contains(event) else {
            throw RealtimeError("postgres_changes event must be *, INSERT, UPDATE or DELETE, not \"\(event)\"")
        }
        schema = fields["schema"]?.stringValue ?? "public"
        guard schema == "public" else { throw RealtimeError("postgres_changes are sent for the public schema, not \"\(schema)\"") }
        table = fields["table"]?.stringValue
        filter = fields["filter"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        if let filter {
            let operators = ["eq", "neq", "lt", "lte", "gt", "gte", "in"]
            guard let (_, value) = filterParameter, let dot = value.firstIndex(of: "."), operators.contains(String(value[..<dot])) else {
                throw RealtimeError("filter must be column=op.value with op eq, neq, lt, lte, gt, gte or in, not \"\(filter)\"")
            }
        }
    }

    /// The binding echoed in the join's reply, as the client sent it plus its id.
    var reply: JSONValue {
        var object: [String: JSONValue] = ["id": .int(id), "event": .string(event), "schema": .string(schema)]
        if let table { object["table"] = .string(table) }
        if let filter { object["filter"] = .string(filter) }
        return .object(object)
    }
}

/// A channel following database changes: where to deliver, as whom, what it asked for.
public struct ChangeSubscription: Sendable {
    /// The socket and topic, for ``RealtimeServer/deliver(_:to:)``.
    public let key: SubscriptionKey
    public let identity: RealtimeIdentity
    public let bindings: [ChangeBinding]
}

/// A socket's channel, as ``RealtimeServer`` finds it again.
public struct SubscriptionKey: Sendable, Hashable {
    let socket: UInt64
    let topic: String
}

/// What a caller may do on a private channel, by the app's policies on `realtime.messages`.
public struct ChannelRights: Sendable, Equatable {
    /// Join: receive its broadcasts and presence.
    public var read: Bool
    public var broadcast: Bool
    public var presence: Bool

    public init(read: Bool, broadcast: Bool, presence: Bool) {
        self.read = read
        self.broadcast = broadcast
        self.presence = presence
    }
}

/// What decides private channels (Supabase's Realtime Authorization); asked off the event loop.
public protocol ChannelAuthority: Sendable {
    /// `topic` without `realtime:`; a failure says why in words for the client.
    func rights(topic: String, identity: RealtimeIdentity) -> Result<ChannelRights, RealtimeError>
}

/// What decides whether a subscription may follow a table (the app's schema, grants, policies).
public protocol ChangeAuthority: Sendable {
    /// Why `identity` may not follow `binding`, or nil when it may.
    func refusal(_ binding: ChangeBinding, identity: RealtimeIdentity) -> String?
}
