import Foundation
import SoarCore

/// Turns what APNs answered into an outcome.
enum ResponseMapping {
    /// - Parameters:
    ///   - headers: response headers, names lowercase.
    ///   - body: `{"reason": …}` and, for 410, `"timestamp"` in milliseconds.
    static func outcome(status: Int, headers: [(String, String)], body: Data, apnsID: String, attempts: Int) -> APNsOutcome {
        func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
        let id = header("apns-id") ?? apnsID
        if status == 200 { return .delivered(apnsID: id, uniqueID: header("apns-unique-id")) }
        let fields = (try? JSONValue.read(body).objectValue) ?? [:]
        let reason = fields["reason"]?.stringValue.map(APNsReason.init(rawValue:)) ?? Self.reason(forStatus: status)
        let timestamp = fields["timestamp"]?.doubleValue.map { Date(timeIntervalSince1970: $0 / 1000) }
        let detail = fields["reason"] == nil && !body.isEmpty ? String(decoding: body.prefix(200), as: UTF8.self) : nil
        return .failed(APNsFailure(status: status, reason: reason, timestamp: timestamp, apnsID: id, detail: detail, attempts: attempts))
    }

    /// A reason for answers that carry none (a proxy's error page, say).
    static func reason(forStatus status: Int) -> APNsReason {
        switch status {
        case 429: .tooManyRequests
        case 500: .internalServerError
        case 503: .serviceUnavailable
        case 405: .methodNotAllowed
        case 404: .badPath
        case 413: .payloadTooLarge
        default: APNsReason(rawValue: "HTTP\(status)")
        }
    }
}
