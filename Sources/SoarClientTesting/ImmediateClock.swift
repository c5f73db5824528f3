import SoarClient
import Synchronization

/// A clock whose sleeps return at once and move its time forward, recording each wait: back-off
/// and deadlines are tested without sleeping.
public final class ImmediateClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Locked((now: Instant(offset: .zero), sleeps: [Duration]()))

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }
    /// Every wait asked for, in order.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        state.withLock { state in
            state.sleeps.append(state.now.duration(to: deadline))
            if state.now < deadline { state.now = deadline }
        }
    }
}
