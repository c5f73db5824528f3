import Dispatch
import Foundation
import SoarCore
import Testing

/// A trait for a synchronous test that blocks its thread (waiting for child processes, a cluster,
/// a semaphore): the test runs on a thread of its own instead of one of Swift's cooperative threads.
///
/// The cooperative pool has one thread per core, two on the CI machine. Two blocking tests on it
/// starved every other test's tasks for most of a minute, and tests waiting on a clock failed.
/// At most one blocking test per core runs at once, as before, so the machine is no busier.
public struct OwnThread: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        await Self.slots.acquire()
        defer { Self.slots.release() }
        try await withTaskExecutorPreference(QueueExecutor()) { try await function() }
    }

    private static let slots = Slots(ProcessInfo.processInfo.activeProcessorCount)
}

extension Trait where Self == OwnThread {
    /// Runs a blocking test on a thread of its own; see ``OwnThread``.
    public static var ownThread: Self { OwnThread() }
}

/// A task executor on a serial queue of its own, which Dispatch gives a thread outside the pool.
private final class QueueExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "soar.test.own-thread")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// A counting semaphore that suspends its waiters instead of blocking their threads.
private final class Slots: Sendable {
    private let state: Locked<(free: Int, waiting: [CheckedContinuation<Void, Never>])>

    init(_ count: Int) { state = Locked((max(1, count), [])) }

    func acquire() async {
        await withCheckedContinuation { waiter in
            let now = state.withLock { state -> Bool in
                if state.free > 0 { state.free -= 1; return true }
                state.waiting.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty { state.free += 1; return nil }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
