import Dispatch
import Foundation

/// Waits for SIGINT or SIGTERM, for commands that serve until stopped.
enum Termination {
    static func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = OnceFlag()
            var sources: [DispatchSourceSignal] = []
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    if once.claim() { continuation.resume() }
                }
                source.resume()
                sources.append(source)
            }
            Retained.keep(sources)
        }
    }
}

/// Dispatch sources stop when released; these live until the process ends.
private enum Retained {
    nonisolated(unsafe) static var sources: [DispatchSourceSignal] = []
    static func keep(_ more: [DispatchSourceSignal]) { sources += more }
}

private final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var claimed = false
    func claim() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if claimed { return false }
        claimed = true
        return true
    }
}
