import Foundation
import SoarStore
import Synchronization
import Testing

@testable import SoarPush

/// Outcomes survive a store that fails for a while: dropped, their jobs would be sent twice.
@Suite(.timeLimit(.minutes(5))) struct OutcomeRecorderTests {
    static let results = [PushJobResult(jobID: 1, delivered: true, reason: nil, environment: "sandbox", removed: false)]

    @Test func aStoreThatComesBackTakesTheOutcomesAfterItsPauses() async {
        let failuresLeft = Mutex(2)
        let committed = Mutex<[Int64]>([])
        let slept = Mutex<[Duration]>([])
        let metrics = PushMetrics()
        var recorder = OutcomeRecorder(commit: { results throws(StoreError) in
            if failuresLeft.withLock({ left in defer { left -= 1 }; return left > 0 }) { throw .unavailable("Postgres connection lost") }
            committed.withLock { $0 += results.map(\.jobID) }
        }, metrics: metrics)
        recorder.sleep = { pause in slept.withLock { $0.append(pause) } }
        #expect(await recorder.record(Self.results))
        #expect(committed.withLock { $0 } == [1])
        #expect(slept.withLock { $0 } == [.milliseconds(100), .milliseconds(200)])
        #expect(metrics.text(pending: nil).contains("soar_push_recording_failures_total 2"))
    }

    @Test func aStoreThatNeverComesBackLeavesThemPendingAfterTheLastPause() async {
        var recorder = OutcomeRecorder(commit: { _ throws(StoreError) in throw .unavailable("down") }, metrics: PushMetrics())
        recorder.pauses = [.milliseconds(1), .milliseconds(1)]
        let slept = Mutex(0)
        recorder.sleep = { _ in slept.withLock { $0 += 1 } }
        #expect(await recorder.record(Self.results) == false)
        #expect(slept.withLock { $0 } == 2)
    }
}
