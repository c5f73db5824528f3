import Foundation
import SoarCore
import Synchronization

/// At most `limit` events per key in any `window`: sign-in attempts per IP and per email. A limit
/// of 0 allows everything (for benchmarks, or behind a proxy that limits).
public final class RateLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    private let events = Locked<[String: [Date]]>([:])

    public init(limit: Int, window: TimeInterval) {
        self.limit = limit
        self.window = window
    }

    /// Records an attempt for `key` at `now`; false when the key is over its limit (nothing recorded).
    public func allow(_ key: String, now: Date) -> Bool {
        guard limit > 0 else { return true }
        return events.withLock { events in
            let recent = self.recent(events[key], now: now)
            if events.count > 10_000 { events = events.filter { !$0.value.isEmpty && now.timeIntervalSince($0.value.last!) < window } }
            guard recent.count < limit else {
                events[key] = recent
                return false
            }
            events[key] = recent + [now]
            return true
        }
    }

    /// Takes back the latest attempt recorded for `key`: one that succeeded, so that a user who
    /// signs in often is not locked out as a password guesser would be.
    public func forgive(_ key: String) {
        events.withLock { events in
            guard var times = events[key], !times.isEmpty else { return }
            times.removeLast()
            events[key] = times.isEmpty ? nil : times
        }
    }

    /// How long until `key` may try again: until its oldest attempt in the window leaves it.
    public func retryAfter(_ key: String, now: Date) -> TimeInterval {
        events.withLock { events in
            let recent = self.recent(events[key], now: now)
            guard recent.count >= limit, let oldest = recent.min() else { return 0 }
            return window - now.timeIntervalSince(oldest)
        }
    }

    /// The attempts still inside the window at `now`.
    private func recent(_ times: [Date]?, now: Date) -> [Date] {
        (times ?? []).filter { now.timeIntervalSince($0) < window }
    }
}
