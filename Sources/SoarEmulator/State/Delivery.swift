import Foundation
import SoarCore

/// One notification the emulator accepted, as the control API lists it.
public struct Delivery: Sendable {
    public let time: Date
    public let token: String
    public let apnsID: String
    /// The request's `apns-*` headers.
    public let headers: [(String, String)]
    /// The body exactly as sent; valid JSON, since it was accepted.
    public let payload: Data

    /// One compact JSON object: `{"time":…,"token":…,"apns_id":…,"headers":{…},"payload":{…}}`.
    public var jsonLine: String {
        var line = "{\"time\":\"\(Timestamp.format(time))\",\"token\":\"\(token)\",\"apns_id\":\"\(apnsID)\",\"headers\":{"
        line += headers.map { "\(JSONText.quote($0.0)):\(JSONText.quote($0.1))" }.joined(separator: ",")
        line += "},\"payload\":" + String(decoding: payload, as: UTF8.self) + "}"
        return line
    }
}

/// Minimal JSON text building for the hot path, where a JSONEncoder per request costs too much.
enum JSONText {
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
