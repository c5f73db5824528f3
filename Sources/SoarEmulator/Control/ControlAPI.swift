import Foundation
import SoarCore

/// The emulator's control plane, JSON in and out; served on its own HTTP/1.1 port and under
/// `/_emulator/` on the APNs port.
///
/// `GET /deliveries`, `DELETE /deliveries`, `POST /tokens/<hex>/unregister` (optional body
/// `{"timestamp": ms}`), `POST /tokens/<hex>/bad`, `DELETE /tokens/<hex>`, `GET /stats`,
/// `GET /faults`, `POST /faults`, `DELETE /faults`, `POST /reset`.
public struct ControlAPI: Sendable {
    public static let prefix = "/_emulator/"

    let state: EmulatorState
    let now: @Sendable () -> Date
    /// Applies a change of `accept` to the listener.
    let onAcceptingChange: @Sendable (Bool) -> Void

    public func handle(method: String, path: String, body: Data) -> (status: Int, body: Data) {
        let parts = path.split(separator: "/").map(String.init)
        switch (method, parts.first, parts.count) {
        case ("GET", "deliveries", 1):
            let lines = state.deliveries.map(\.jsonLine).joined(separator: ",")
            return (200, Data("[\(lines)]".utf8))
        case ("DELETE", "deliveries", 1):
            state.clearDeliveries()
            return ok()
        case ("POST", "tokens", 3) where parts[2] == "unregister":
            let object = (try? JSONDecoder().decode([String: JSONValue].self, from: body)) ?? [:]
            let since = object["timestamp"]?.intValue.map(Int64.init) ?? Int64(now().timeIntervalSince1970 * 1000)
            state.setMark(.unregistered(since: since), for: parts[1])
            return ok(["token": .string(parts[1].lowercased()), "unregistered": .int(Int(since))])
        case ("POST", "tokens", 3) where parts[2] == "bad":
            state.setMark(.bad, for: parts[1])
            return ok(["token": .string(parts[1].lowercased()), "bad": true])
        case ("DELETE", "tokens", 2):
            state.setMark(nil, for: parts[1])
            return ok()
        case ("GET", "stats", 1):
            return json(200, stats)
        case ("GET", "faults", 1):
            return json(200, state.faults.json)
        case ("POST", "faults", 1):
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: body), case .object(let object) = value else {
                return json(400, ["error": "the body must be a JSON object such as {\"status\":503,\"every\":10}"])
            }
            do {
                try state.updateFaults { (faults) throws(FaultError) in try faults.apply(object) }
            } catch {
                return json(400, ["error": .string(error.description)])
            }
            onAcceptingChange(state.faults.accepting)
            return json(200, state.faults.json)
        case ("DELETE", "faults", 1):
            state.faults = Faults()
            onAcceptingChange(true)
            return json(200, state.faults.json)
        case ("POST", "reset", 1):
            state.reset()
            onAcceptingChange(true)
            return ok()
        default:
            return json(404, ["error": .string("no control endpoint \(method) \(path)")])
        }
    }

    var stats: JSONValue {
        let counters = state.counters
        return [
            "requests": .int(counters.requests), "accepted": .int(counters.accepted),
            "rejected": .object(counters.rejected.mapValues(JSONValue.int)), "injected": .int(counters.injected),
            "connections_open": .int(counters.connectionsOpen), "connections_total": .int(counters.connectionsOpened), "pings": .int(counters.pings),
            "deliveries_kept": .int(state.deliveries.count),
        ]
    }

    private func ok(_ extra: [String: JSONValue] = [:]) -> (Int, Data) {
        json(200, .object(extra.merging(["ok": true]) { a, _ in a }))
    }

    private func json(_ status: Int, _ value: JSONValue) -> (Int, Data) {
        (status, (try? JSONCoding.encode(value)) ?? Data("{}".utf8))
    }
}
