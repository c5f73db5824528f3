import Foundation
import SoarCore
import Synchronization

/// Everything the emulator remembers, shared by its HTTP/2 loop and its control API.
public final class EmulatorState: Sendable {
    /// How a token was marked through flags or the control API.
    public enum Mark: Sendable, Equatable {
        /// 410 Unregistered, with Apple's timestamp (milliseconds since 1970).
        case unregistered(since: Int64)
        /// 400 BadDeviceToken.
        case bad
    }

    /// What `GET /stats` reports.
    public struct Counters: Sendable {
        public var requests = 0
        /// Requests recorded as deliveries...
        public var accepted = 0
        /// ...of which the answer was handed to the kernel for the client...
        public var acceptedAnswered = 0
        /// ...or was lost with its connection (dropped, closed by the client): the client cannot know.
        public var acceptedAnswerLost = 0
        /// Rejections by reason, injected faults included.
        public var rejected: [String: Int] = [:]
        public var connectionsOpened = 0
        public var connectionsOpen = 0
        /// Answers that were injected faults.
        public var injected = 0
        /// PING frames clients sent.
        public var pings = 0
    }

    private struct Inner {
        var keys: [String: RegisteredKey] = [:]
        var marks: [String: Mark] = [:]
        /// Tokens registered to one environment: the other listener answers them BadDeviceToken.
        var environments: [String: String] = [:]
        var faults = Faults()
        var deliveries: [Delivery] = []
        var deliveryStart = 0
        var counters = Counters()
    }

    private let inner = Locked(Inner())
    /// How many deliveries are kept for `GET /deliveries`; older ones are forgotten.
    public let keep: Int

    public init(keys: [RegisteredKey] = [], keep: Int = 10_000) {
        self.keep = max(1, keep)
        inner.withLock { state in
            for key in keys { state.keys[key.keyID] = key }
        }
    }

    public func key(id: String) -> RegisteredKey? { inner.withLock { $0.keys[id] } }

    public func mark(_ token: String) -> Mark? { inner.withLock { $0.marks.isEmpty ? nil : $0.marks[token.lowercased()] } }
    public func setMark(_ mark: Mark?, for token: String) { inner.withLock { $0.marks[token.lowercased()] = mark } }

    /// The environment a token was registered to (`sandbox` or `production`), nil for either.
    public func environment(of token: String) -> String? {
        inner.withLock { $0.environments.isEmpty ? nil : $0.environments[token.lowercased()] }
    }
    public func setEnvironment(_ environment: String?, for token: String) { inner.withLock { $0.environments[token.lowercased()] = environment } }

    public var faults: Faults {
        get { inner.withLock { $0.faults } }
        set { inner.withLock { $0.faults = newValue } }
    }

    /// Changes the faults in one step under the lock, so the two control planes never lose an update.
    func updateFaults(_ body: (inout Faults) throws(FaultError) -> Void) throws(FaultError) {
        try inner.withLock { (state) throws(FaultError) in try body(&state.faults) }
    }

    /// Counts a request and says whether an injected failure answers it.
    func countRequest() -> (number: Int, faults: Faults) {
        inner.withLock { state in
            state.counters.requests += 1
            return (state.counters.requests, state.faults)
        }
    }

    func record(_ delivery: Delivery) {
        inner.withLock { state in
            state.counters.accepted += 1
            if state.deliveries.count < keep {
                state.deliveries.append(delivery)
            } else {
                state.deliveries[state.deliveryStart] = delivery
                state.deliveryStart = (state.deliveryStart + 1) % keep
            }
        }
    }

    func recordRejection(_ reason: APNsReason, injected: Bool = false) {
        inner.withLock { state in
            state.counters.rejected[reason.rawValue, default: 0] += 1
            if injected { state.counters.injected += 1 }
        }
    }

    func connectionOpened() {
        inner.withLock {
            $0.counters.connectionsOpened += 1
            $0.counters.connectionsOpen += 1
        }
    }

    func connectionClosed() { inner.withLock { $0.counters.connectionsOpen -= 1 } }

    func pingReceived() { inner.withLock { $0.counters.pings += 1 } }

    func deliveryAnswered() { inner.withLock { $0.counters.acceptedAnswered += 1 } }

    func deliveryAnswersLost(_ count: Int) { inner.withLock { $0.counters.acceptedAnswerLost += count } }

    /// The kept deliveries, oldest first.
    public var deliveries: [Delivery] {
        inner.withLock { state in
            Array(state.deliveries[state.deliveryStart...] + state.deliveries[..<state.deliveryStart])
        }
    }

    public func clearDeliveries() {
        inner.withLock {
            $0.deliveries.removeAll()
            $0.deliveryStart = 0
        }
    }

    /// Forgets deliveries, marks, faults and counters; keys stay.
    public func reset() {
        inner.withLock { state in
            state = Inner(keys: state.keys, counters: Counters(connectionsOpen: state.counters.connectionsOpen))
        }
    }

    public var counters: Counters { inner.withLock { $0.counters } }
}
