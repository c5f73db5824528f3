import Foundation
import Testing

@testable import SoarPush

/// A send is stored at a lower priority than deliveries and requests, on a thread of its own.
@Suite struct LowPriorityTests {
    static func niceness() -> Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0) }

    @Test func theWorkRunsNicerAndTheCallerKeepsItsPriority() {
        let before = Self.niceness()
        let inside = LowPriority.run { Self.niceness() }
        #expect(inside == min(before + LowPriority.niceness, 19))
        #expect(Self.niceness() == before)
    }

    @Test func whatTheWorkReturnsIsHandedBack() {
        let result = LowPriority.run { () -> Result<Int, TestFailure> in .failure(TestFailure()) }
        #expect(throws: TestFailure.self) { try result.get() }
        #expect(LowPriority.run { (1...100).reduce(0, +) } == 5050)
    }

    struct TestFailure: Error {}
}
