import Foundation
import SoarCore

/// The emulator's control plane, JSON in and out; served on its own HTTP/1.1 port and under
/// `/_emulator/` on the APNs port.
///
/// `GET /deliveries`, `DELETE /deliveries`, `POST /tokens/<hex>/unregister` (optional body
/// `{"timestamp": ms}`), `POST /tokens/<hex>/bad`, `POST /tokens/<hex>/environment`
/// (`{"environment": "production"}`), `DELETE /tokens/<hex>`, `GET /stats`,
/// `GET /faults`, `POST /faults`, `DELETE /faults`, `POST /reset`. Unknown paths get 404, a
/// wrong method 405, a token that is not hex or a bad body 400.
public struct ControlAPI: Sendable {
    public static let prefix = "/_emulator/"

    let state: EmulatorState
    let now: @Sendable () -> Date
    /// Applies a change of `accept` to the listener.
    let onAcceptingChange: @Sendable (Bool) -> Void

    public func handle(method: String, path: String, body: Data) -> (status: Int, body: Data) {
        let parts = path.split(separator: "/").map(String.init)
        let endpoint: String
        switch (parts.first, parts.count) {
        case ("deliveries", 1), ("stats", 1), ("faults", 1), ("reset", 1): endpoint = parts[0]
        case ("tokens", 2): endpoint = "tokens/HEX"
        case ("tokens", 3) where ["unregister", "bad", "environment"].contains(parts[2]): endpoint = "tokens/HEX/" + parts[2]
        default: return json(404, ["error": .string("no control endpoint \(method) \(path)")])
        }
        let methods = Self.methods[endpoint] ?? []
        guard methods.contains(method) else {
            return json(405, ["error": .string("\(method) is not allowed on \(path); use \(methods.joined(separator: " or "))")])
        }
        var token = ""
        if parts[0] == "tokens" {
            do {
                token = try PushToken.normalizedHex(parts[1])
            } catch {
                return json(400, ["error": .string("\"\(parts[1])\" is not a device token: \(error.description)")])
            }
        }
        switch (method, endpoint) {
        case ("GET", "deliveries"):
            let lines = state.deliveries.map(\.jsonLine).joined(separator: ",")
            return (200, Data("[\(lines)]".utf8))
        case ("DELETE", "deliveries"):
            state.clearDeliveries()
            return ok()
        case ("POST", "tokens/HEX/unregister"):
            let since: Int64
            switch Self.timestamp(body) {
            case .success(let value): since = value ?? Int64(now().timeIntervalSince1970 * 1000)
            case .failure(let problem): return json(400, ["error": .string(problem.description)])
            }
            state.setMark(.unregistered(since: since), for: token)
            return ok(["token": .string(token), "unregistered": .int(Int(since))])
        case ("POST", "tokens/HEX/bad"):
            state.setMark(.bad, for: token)
            return ok(["token": .string(token), "bad": true])
        case ("POST", "tokens/HEX/environment"):
            let value = try? JSONValue.read(body)
            guard let name = value?.objectValue?["environment"]?.stringValue, ["sandbox", "production"].contains(name) else {
                return json(400, ["error": "the body must be {\"environment\":\"sandbox\"} or {\"environment\":\"production\"}"])
            }
            state.setEnvironment(name, for: token)
            return ok(["token": .string(token), "environment": .string(name)])
        case ("DELETE", "tokens/HEX"):
            state.setMark(nil, for: token)
            state.setEnvironment(nil, for: token)
            return ok()
        case ("GET", "stats"):
            return json(200, stats)
        case ("GET", "faults"):
            return json(200, state.faults.json)
        case ("POST", "faults"):
            guard let value = try? JSONValue.read(body), case .object(let object) = value else {
                return json(400, ["error": "the body must be a JSON object such as {\"status\":503,\"every\":10}"])
            }
            do {
                try state.updateFaults { (faults) throws(FaultError) in try faults.apply(object) }
            } catch {
                return json(400, ["error": .string(error.description)])
            }
            onAcceptingChange(state.faults.accepting)
            return json(200, state.faults.json)
        case ("DELETE", "faults"):
            state.faults = Faults()
            onAcceptingChange(true)
            return json(200, state.faults.json)
        default:  // POST reset
            state.reset()
            onAcceptingChange(true)
            return ok()
        }
    }

    /// The methods each endpoint takes; another method on it is answered 405.
    static let methods: [String: [String]] = [
        "deliveries": ["GET", "DELETE"], "stats": ["GET"], "faults": ["GET", "POST", "DELETE"], "reset": ["POST"],
        "tokens/HEX": ["DELETE"], "tokens/HEX/unregister": ["POST"], "tokens/HEX/bad": ["POST"],
        "tokens/HEX/environment": ["POST"],
    ]

    /// The optional `{"timestamp": ms}` of an unregister call: nil when the body is empty or has none.
    static func timestamp(_ body: Data) -> Result<Int64?, ControlInputError> {
        guard !body.isEmpty else { return .success(nil) }
        guard let value = try? JSONValue.read(body), case .object(let object) = value else {
            return .failure(ControlInputError("the body must be a JSON object such as {\"timestamp\":1733200000000}"))
        }
        guard let field = object["timestamp"], field != .null else { return .success(nil) }
        guard let milliseconds = field.intValue, milliseconds >= 0 else {
            return .failure(ControlInputError("timestamp must be a whole number of milliseconds since 1970, not \(field.jsonText)"))
        }
        return .success(Int64(milliseconds))
    }

    var stats: JSONValue {
        let counters = state.counters
        return [
            "requests": .int(counters.requests), "accepted": .int(counters.accepted),
            "accepted_answered": .int(counters.acceptedAnswered), "accepted_answer_lost": .int(counters.acceptedAnswerLost),
            "rejected": .object(counters.rejected.mapValues(JSONValue.int)), "injected": .int(counters.injected),
            "connections_open": .int(counters.connectionsOpen), "connections_total": .int(counters.connectionsOpened), "pings": .int(counters.pings),
            "deliveries_kept": .int(state.deliveries.count),
        ]
    }

    private func ok(_ extra: [String: JSONValue] = [:]) -> (Int, Data) {
        json(200, .object(extra.merging(["ok": true]) { a, _ in a }))
    }

    private func json(_ status: Int, _ value: JSONValue) -> (Int, Data) {
        (status, value.jsonData)
    }
}

/// A control request's body or path that cannot be used.
struct ControlInputError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
