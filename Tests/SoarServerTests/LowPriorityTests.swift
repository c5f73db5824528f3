import Foundation
import Testing

@testable import SoarPush

/// `LowPriority`, which send-push stores its sends with: the work runs on a thread of its own with
/// a higher nice value, and hands back what it returned or threw.
@Suite(.timeLimit(.minutes(5))) struct LowPriorityTests {
    static func niceness() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test func theWorkRunsNicerAndTheCallerKeepsItsPriority() {
        let before = Self.niceness()
        let inside = LowPriority.run { Self.niceness() }
        #expect(inside == min(before + LowPriority.niceness, 19))
        #expect(Self.niceness() == before)
    }

    @Test func whatTheWorkReturnsOrThrowsIsHandedBack() {
        #expect(LowPriority.run { (1...100).reduce(0, +) } == 5050)
        #expect(throws: TestFailure.self) { try LowPriority.run { () throws(TestFailure) -> Int in throw TestFailure() } }
    }

    struct TestFailure: Error {}
}
