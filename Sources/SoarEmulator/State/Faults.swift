import SoarCore

/// Failures the emulator injects on demand, set by flags or `POST /faults`.
public struct Faults: Sendable, Equatable {
    /// Answer every `every`th request with this status (503, 500 or 429) instead of handling it.
    public var status: Int?
    public var every: Int = 1 {
        didSet { every = max(1, every) }  // 0 or less would divide by zero; "every request" is the nearest sense
    }
    /// Hold each answer this long.
    public var latencyMilliseconds: Int = 0
    /// Send GOAWAY on a connection once it has carried this many streams.
    public var goawayAfter: Int?
    /// Drop the TCP connection, unanswered, when its stream number this arrives.
    public var dropAfter: Int?
    /// Whether new connections are accepted.
    public var accepting = true

    public init() {}

    /// The reason sent with an injected status.
    var reason: APNsReason {
        switch status {
        case 500: .internalServerError
        case 429: .tooManyRequests
        default: .serviceUnavailable
        }
    }

    /// Applies the keys of a `POST /faults` body: `status`, `every`, `latency_ms`, `goaway_after`,
    /// `drop_after`, `accept`. A key set to null clears that fault.
    ///
    /// - Throws: a message naming the bad key.
    mutating func apply(_ object: [String: JSONValue]) throws(FaultError) {
        var next = self
        for (key, value) in object {
            let number = value.intValue
            let clear = value == .null
            switch key {
            case "status":
                guard clear || [429, 500, 503].contains(number ?? 0) else { throw FaultError("status must be 429, 500 or 503") }
                next.status = number
            case "every":
                guard let number, number >= 1 else { throw FaultError("every must be a whole number of at least 1") }
                next.every = number
            case "latency_ms":
                guard clear || (0...60_000).contains(number ?? -1) else { throw FaultError("latency_ms must be a whole number of milliseconds up to 60000") }
                next.latencyMilliseconds = number ?? 0
            case "goaway_after":
                guard clear || (number ?? 0) >= 1 else { throw FaultError("goaway_after must be at least 1") }
                next.goawayAfter = number
            case "drop_after":
                guard clear || (number ?? 0) >= 1 else { throw FaultError("drop_after must be at least 1") }
                next.dropAfter = number
            case "accept":
                guard let flag = value.boolValue else { throw FaultError("accept must be true or false") }
                next.accepting = flag
            default:
                throw FaultError("unknown fault \"\(key)\"; known: status, every, latency_ms, goaway_after, drop_after, accept")
            }
        }
        self = next
    }

    var json: JSONValue {
        [
            "status": status.map(JSONValue.int) ?? .null, "every": .int(every), "latency_ms": .int(latencyMilliseconds),
            "goaway_after": goawayAfter.map(JSONValue.int) ?? .null, "drop_after": dropAfter.map(JSONValue.int) ?? .null,
            "accept": .bool(accepting),
        ]
    }
}

struct FaultError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
