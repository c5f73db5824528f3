@testable import SoarStore
import Testing

/// When the WAL is copied and by whom, commit by commit (no I/O).
@Suite(.timeLimit(.minutes(5))) struct CheckpointPolicyTests {
    var policy = CheckpointPolicy(limit: 10_000)

    @Test mutating func underTheLimitACheckpointWaitsForTheWriterToGoQuiet() {
        #expect(policy.committed(pages: 500, copied: 0).action == .none)
        #expect(policy.committed(pages: 999, copied: 0).action == .none)
        #expect(policy.committed(pages: 1_000, copied: 0).action == .whenQuiet)
        #expect(policy.committed(pages: 1_999, copied: 0).action == .whenQuiet)
    }

    @Test mutating func underTheLimitTheQueueFlushesTheWALEveryTwoThousandPagesAndCopiesNothing() {
        #expect(policy.committed(pages: 2_000, copied: 0).action == .flushWAL)
        #expect(policy.committed(pages: 3_999, copied: 0).action == .whenQuiet, "1,999 pages since the flush")
        #expect(policy.committed(pages: 4_000, copied: 0).action == .flushWAL)
        // A quiet checkpoint copied it all and the WAL started over: its pages count from zero.
        #expect(policy.committed(pages: 100, copied: 4_000) == (.none, true))
        #expect(policy.committed(pages: 2_100, copied: 0).action == .flushWAL)
    }

    @Test mutating func pastTheLimitTheQueueCopiesAndTheWriterCopiesTheLastFewPages() {
        #expect(policy.committed(pages: 10_000, copied: 0).action == .now)
        #expect(policy.committed(pages: 10_300, copied: 0).action == .now, "the queue is still copying")
        #expect(policy.committed(pages: 10_400, copied: 10_100).action == .now, "300 pages left: the queue's")
        let last = policy.committed(pages: 10_500, copied: 10_244)
        #expect(last.action == .onWriter, "256 pages left: the writer's")
        #expect(!last.startedOver)
        policy.caughtUp(at: 10_500)
        // The next transaction starts the WAL over: what was counted belongs to the old one.
        let next = policy.committed(pages: 40, copied: 10_500)
        #expect(next == (.none, true))
    }

    @Test mutating func theWriterCopiesAtMostOncePerThousandPages() {
        _ = policy.committed(pages: 10_000, copied: 0)
        #expect(policy.committed(pages: 10_200, copied: 9_950).action == .onWriter)
        policy.caughtUp(at: 10_200)
        // A reader still on the WAL kept it from starting over, and some pages from being copied.
        #expect(policy.committed(pages: 10_300, copied: 10_150).action == .none)
        #expect(policy.committed(pages: 11_000, copied: 10_250).action == .now)
        #expect(policy.committed(pages: 11_199, copied: 10_950).action == .none, "999 pages since")
        #expect(policy.committed(pages: 11_200, copied: 10_950).action == .onWriter)
    }

    @Test mutating func aCountFromTheOldWALIsNotTakenForOneOfTheNew() {
        // A quiet checkpoint copied a WAL of 10,100 pages; the WAL started over, and one bulk
        // write took the new one to 10,200 pages: all of it waits to be copied, by the queue.
        _ = policy.committed(pages: 10_100, copied: 0)
        let bulk = policy.committed(pages: 10_200, copied: 10_100)
        #expect(bulk == (.now, true))
        #expect(policy.committed(pages: 10_300, copied: 0).action == .now)
    }

    @Test mutating func aQueueTooSlowToGetCloseLeavesTheRestToTheWriterAtTwiceTheLimit() {
        #expect(policy.committed(pages: 14_000, copied: 0).action == .now)
        #expect(policy.committed(pages: 19_000, copied: 12_000).action == .now)
        #expect(policy.committed(pages: 19_999, copied: 17_000).action == .now)
        #expect(policy.committed(pages: 20_000, copied: 17_000).action == .onWriter)
    }
}
