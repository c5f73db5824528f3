import Foundation
import SoarCore

/// One notification the emulator accepted, as the control API lists it.
public struct Delivery: Sendable {
    public let time: Date
    public let token: String
    public let apnsID: String
    /// The request's `apns-*` headers.
    public let headers: [(String, String)]
    /// The body as read; it was valid JSON, since it was accepted.
    public let payload: JSONValue
    /// The listener's environment when the emulator has one for each (`--production-port`).
    public var environment: String?

    /// One compact JSON object on one line, whatever the layout of the body that came:
    /// `{"time":…,"token":…,"apns_id":…,"headers":{…},"payload":{…}}`, with `"environment"` after the
    /// token when the emulator listens for both.
    public var jsonLine: String {
        func quote(_ text: String) -> String { JSONValue.string(text).jsonText }
        var line = "{\"time\":\"\(Timestamp.format(time))\",\"token\":\(quote(token)),"
        if let environment { line += "\"environment\":\(quote(environment))," }
        line += "\"apns_id\":\(quote(apnsID)),\"headers\":{"
        line += headers.map { "\(quote($0.0)):\(quote($0.1))" }.joined(separator: ",")
        line += "},\"payload\":" + payload.jsonText + "}"
        return line
    }
}
