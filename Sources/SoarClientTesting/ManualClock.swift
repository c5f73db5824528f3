import SoarClient
import Synchronization

/// A clock whose sleeps wait until the test moves it past their deadline (or they are
/// cancelled): timeouts are tested without waiting for them, and never fire by accident.
public final class ManualClock: Clock, Sendable {
    public typealias Instant = ImmediateClock.Instant

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let state = Locked((now: Instant(offset: .zero), sleepers: [Int: Sleeper](), next: 0))

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }
    /// How many sleeps are waiting.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    /// Moves time forward, waking the sleeps whose deadline passed.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { !(state.now < $0.value.deadline) }
            for key in due.keys { state.sleepers.removeValue(forKey: key) }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { state in
                    if !(state.now < deadline) { return true }
                    if Task.isCancelled { return true }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
