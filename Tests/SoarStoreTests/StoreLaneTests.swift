import Foundation
import SoarCore
import Testing

@testable import SoarStore

/// `StoreLane`, the one way store work leaves Swift's cooperative threads: what the work returns
/// or throws comes back, a low-priority lane runs it nicer without touching the caller, and a
/// repeating call repeats until stopped.
@Suite(.timeLimit(.minutes(5))) struct StoreLaneTests {
    static func niceness() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }
    struct TestFailure: Error {}

    @Test func whatTheWorkReturnsOrThrowsIsHandedBackOnEveryKind() async {
        for kind in [StoreLane.Kind.serial, .concurrent, .lowPriority] {
            let lane = StoreLane("test", kind)
            #expect(await lane.run { (1...100).reduce(0, +) } == 5050)
            await #expect(throws: TestFailure.self) { try await lane.run { () throws(TestFailure) -> Int in throw TestFailure() } }
            #expect(lane.wait { 7 } == 7)
            #expect(throws: TestFailure.self) { try lane.wait { () throws(TestFailure) -> Int in throw TestFailure() } }
        }
    }

    @Test func aLowPriorityLaneRunsNicerAndTheCallerKeepsItsPriority() async {
        let before = Self.niceness()
        #expect(StoreLane("test", .lowPriority).wait { Self.niceness() } == min(before + StoreLane.niceness, 19))
        #expect(await StoreLane("test", .lowPriority).run { Self.niceness() } == min(before + StoreLane.niceness, 19))
        #expect(Self.niceness() == before)
        #expect(StoreLane("test").wait { Self.niceness() } == before, "a pooled thread is never lowered")
    }

    @Test func aRepeatingCallRepeatsUntilStopped() async {
        let calls = Locked(0)
        let lane = StoreLane("test")
        let repeating = lane.repeating(every: .milliseconds(1)) { calls.withLock { $0 += 1 } }
        // Bounded by the suite's time limit, not by a guess at how fast the machine is.
        while calls.withLock({ $0 }) < 3 { await Task.yield() }
        repeating.stop()
        // Once a call queued behind the stop has run, no more come.
        let stopped = await lane.run { calls.withLock { $0 } }
        #expect(await lane.run { calls.withLock { $0 } } == stopped)
    }
}
