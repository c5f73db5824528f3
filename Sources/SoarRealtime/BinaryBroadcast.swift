import Foundation
import SoarCore

/// A broadcast in `vsn=2.0.0`'s binary frames: a client's push (kind 3:
/// `[3, join_ref len, ref len, topic len, event len, metadata len, encoding]`, then those fields
/// and the payload) and the server's delivery (kind 4: `[4, topic len, event len, metadata len,
/// encoding]`, then those and the payload). The payload is JSON (encoding 1) or bytes (0).
struct BinaryBroadcast: Equatable {
    enum Body: Equatable {
        case json(JSONValue)
        case bytes(Data)
    }

    var joinRef: String?
    var ref: String?
    var topic: String
    var event: String
    var body: Body

    /// Reads a client's push.
    ///
    /// - Throws: a reason for another kind, short fields, text that is not UTF-8, an unknown
    ///   encoding or a JSON payload that is not JSON.
    static func decodePush(_ data: Data) throws(RealtimeError) -> BinaryBroadcast {
        let bytes = [UInt8](data)
        guard bytes.count >= 7 else { throw RealtimeError("a binary frame is at least 7 bytes, this one is \(bytes.count)") }
        guard bytes[0] == 3 else { throw RealtimeError("binary frames from a client are broadcast pushes (kind 3), not kind \(bytes[0])") }
        let lengths = bytes[1...5].map(Int.init)
        guard bytes.count >= 7 + lengths.reduce(0, +) else { throw RealtimeError("a binary frame shorter than its header says") }
        var offset = 7
        var fields: [String] = []
        for length in lengths.prefix(4) {
            guard let text = String(validating: bytes[offset..<offset + length], as: UTF8.self) else {
                throw RealtimeError("a binary frame's header fields are UTF-8 text")
            }
            fields.append(text)
            offset += length
        }
        offset += lengths[4]  // metadata: none is read yet
        let payload = Data(bytes[offset...])
        let body: Body
        switch bytes[6] {
        case 0: body = .bytes(payload)
        case 1:
            guard let value = try? JSONValue.read(payload) else { throw RealtimeError("a broadcast's JSON payload is not JSON") }
            body = .json(value)
        default: throw RealtimeError("a binary payload's encoding is 0 (bytes) or 1 (JSON), not \(bytes[6])")
        }
        return BinaryBroadcast(joinRef: fields[0].isEmpty ? nil : fields[0], ref: fields[1].isEmpty ? nil : fields[1], topic: fields[2], event: fields[3], body: body)
    }

    /// The server's delivery of it (kind 4).
    var delivery: Data {
        let topicBytes = Array(topic.utf8.prefix(255)), eventBytes = Array(event.utf8.prefix(255))
        var frame: [UInt8] = [4, UInt8(topicBytes.count), UInt8(eventBytes.count), 0]
        switch body {
        case .json(let value): frame += [1] + topicBytes + eventBytes + [UInt8](value.jsonData)
        case .bytes(let data): frame += [0] + topicBytes + eventBytes + [UInt8](data)
        }
        return Data(frame)
    }

    /// The same broadcast for a `vsn=1.0.0` socket, which has no binary frames: a JSON payload as
    /// it is, bytes as `{"binary": "<base64>"}`.
    var textPayload: JSONValue {
        switch body {
        case .json(let value): value
        case .bytes(let data): ["binary": .string(data.base64EncodedString())]
        }
    }
}
