import Foundation
import SoarCore

/// One message of the Phoenix channel protocol Supabase Realtime speaks.
struct PhoenixMessage: Equatable {
    /// The client's serializer: `vsn=1.0.0` objects (`{topic, event, payload, ref, join_ref}`, the
    /// default) or `vsn=2.0.0` arrays (`[join_ref, ref, topic, event, payload]`).
    enum Version: Sendable {
        case v1, v2

        init?(_ vsn: String?) {
            switch vsn ?? "1.0.0" {
            case "1.0.0", "1": self = .v1
            case "2.0.0", "2": self = .v2
            default: return nil
            }
        }
    }

    var joinRef: String?
    var ref: String?
    var topic: String
    var event: String
    var payload: JSONValue

    /// - Throws: a reason when the text is not a message of `version`.
    static func decode(_ data: Data, _ version: Version) throws(RealtimeError) -> PhoenixMessage {
        guard let value = try? JSONValue.read(data) else { throw RealtimeError("the message is not JSON") }
        func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let text): text
            case .int(let number): String(number)
            default: nil
            }
        }
        switch (version, value) {
        case (.v1, .object(let fields)):
            guard let topic = fields["topic"]?.stringValue, let event = fields["event"]?.stringValue else {
                throw RealtimeError("a message needs a topic and an event")
            }
            return PhoenixMessage(joinRef: text(fields["join_ref"]), ref: text(fields["ref"]), topic: topic, event: event, payload: fields["payload"] ?? [:])
        case (.v2, .array(let items)) where items.count == 5:
            guard let topic = items[2].stringValue, let event = items[3].stringValue else { throw RealtimeError("a message needs a topic and an event") }
            return PhoenixMessage(joinRef: text(items[0]), ref: text(items[1]), topic: topic, event: event, payload: items[4])
        case (.v1, _): throw RealtimeError("vsn 1.0.0 messages are JSON objects")
        case (.v2, _): throw RealtimeError("vsn 2.0.0 messages are JSON arrays of five")
        }
    }

    func encoded(_ version: Version) -> Data {
        Self.encoded(joinRef: joinRef, ref: ref, topic: topic, event: event, payload: payload.jsonBytes, version)
    }

    /// A message around a payload already written as JSON (a database change is written once,
    /// where it is read, rather than kept as values and written on the loop).
    static func encoded(joinRef: String?, ref: String? = nil, topic: String, event: String, payload: [UInt8], _ version: Version) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + topic.utf8.count + 64)
        let joinRef = joinRef.map(JSONValue.string) ?? .null
        let ref = ref.map(JSONValue.string) ?? .null
        switch version {
        case .v1:
            out.append(contentsOf: #"{"event":"#.utf8)
            JSONValue.string(event).write(to: &out)
            out.append(contentsOf: #","join_ref":"#.utf8)
            joinRef.write(to: &out)
            out.append(contentsOf: #","payload":"#.utf8)
            out.append(contentsOf: payload)
            out.append(contentsOf: #","ref":"#.utf8)
            ref.write(to: &out)
            out.append(contentsOf: #","topic":"#.utf8)
            JSONValue.string(topic).write(to: &out)
            out.append(UInt8(ascii: "}"))
        case .v2:
            out.append(UInt8(ascii: "["))
            joinRef.write(to: &out)
            out.append(UInt8(ascii: ","))
            ref.write(to: &out)
            out.append(UInt8(ascii: ","))
            JSONValue.string(topic).write(to: &out)
            out.append(UInt8(ascii: ","))
            JSONValue.string(event).write(to: &out)
            out.append(UInt8(ascii: ","))
            out.append(contentsOf: payload)
            out.append(UInt8(ascii: "]"))
        }
        return Data(out)
    }

    /// The answer to this message: `phx_reply` with its refs.
    func reply(_ status: String, _ response: JSONValue = [:]) -> PhoenixMessage {
        PhoenixMessage(joinRef: joinRef, ref: ref, topic: topic, event: "phx_reply", payload: ["status": .string(status), "response": response])
    }
}

/// Why the realtime server refused something, in words for the client's log.
public struct RealtimeError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
