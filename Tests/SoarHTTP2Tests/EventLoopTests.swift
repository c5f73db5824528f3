import Foundation
import SoarHTTP2
import Synchronization
import Testing

/// A driver that does nothing but count turns.
private final class IdleDriver: EventLoopDriver {
    let stopped = Atomic(false)
    func socketReady(_ fd: Int32, _ events: SocketEvents, now: UInt64) {}
    func turnEnded(now: UInt64) {}
    func nextWakeup(now: UInt64) -> UInt64? { nil }
    func loopStopping(now: UInt64) { stopped.store(true, ordering: .releasing) }
}

/// The loop's promise: a task handed in runs, or the caller is told it will not.
@Suite(.timeLimit(.minutes(5))) struct EventLoopTests {
    @Test func aTaskQueuedFromTheLoopsOwnThreadRunsWhileTheLoopIsIdle() async {
        // The reported hang: a completion on the loop queues the next request; nothing else wakes it.
        let loop = try! EventLoop(name: "test-loop", driver: IdleDriver())
        defer { loop.stop() }
        let ran: Bool = await withCheckedContinuation { continuation in
            loop.execute {
                loop.execute { continuation.resume(returning: true) }
            }
        }
        #expect(ran)
    }

    @Test func afterStopTasksAreRefusedAndStopFromTheLoopReturns() async {
        let driver = IdleDriver()
        let loop = try! EventLoop(name: "test-loop", driver: driver)
        await withCheckedContinuation { continuation in
            loop.execute {
                loop.stop()  // on the loop's thread: must not wait for itself
                continuation.resume()
            }
        }
        loop.stop()
        let stopped = driver.stopped.load(ordering: .acquiring)
        #expect(stopped)
        #expect(!loop.execute {})
    }

    @Test func tasksQueuedWhileStoppingAllRunOrAreRefused() {
        let loop = try! EventLoop(name: "test-loop", driver: IdleDriver())
        let ran = Atomic(0)
        let refused = Atomic(0)
        let senders = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: senders) {
                for _ in 0..<2000 {
                    if !loop.execute({ ran.add(1, ordering: .relaxed) }) { refused.add(1, ordering: .relaxed) }
                }
            }
        }
        loop.stop()
        senders.wait()
        // Every accepted task ran before stop() returned or, if accepted later, not at all: none is left hanging.
        let total = ran.load(ordering: .relaxed) + refused.load(ordering: .relaxed)
        #expect(total == 8000)
    }
}
