import Dispatch
import Foundation
import SoarCore

/// SIGINT and SIGTERM, caught from creation on, for commands that serve until stopped.
///
/// Create it before announcing readiness, so a signal sent right after the announcement still
/// leads to an orderly stop.
final class Termination: @unchecked Sendable {
    /// Whether a signal came, and the caller of ``wait()`` waiting for one.
    private let state = Locked<(signalled: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
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
        let waiter = state.withLock { state in
            state.signalled = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once a signal has arrived (at once if one already has).
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let signalled = state.withLock { state in
                if !state.signalled { state.waiter = continuation }
                return state.signalled
            }
            if signalled { continuation.resume() }
        }
    }
}
