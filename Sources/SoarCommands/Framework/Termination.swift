import Dispatch
import Foundation

/// SIGINT and SIGTERM, caught from creation on, for commands that serve until stopped.
///
/// Create it before announcing readiness, so a signal sent right after the announcement still
/// leads to an orderly stop.
final class Termination: @unchecked Sendable {
    private let lock = NSLock()
    private var signalled = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var sources: [DispatchSourceSignal] = []

    init() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
            sources.append(source)
        }
    }

    private func fire() {
        lock.lock()
        signalled = true
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume()
    }

    /// Returns once a signal has arrived (at once if one already has).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if signalled {
                lock.unlock()
                continuation.resume()
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
