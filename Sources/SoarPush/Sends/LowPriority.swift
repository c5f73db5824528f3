import Foundation

/// Bulk work on a thread of its own at a lower scheduling priority (``niceness`` more than the
/// caller's), waited for.
///
/// Storing a send to everyone is seconds of CPU, while its deliveries run beside it (from the first
/// chunk stored) and other requests keep coming. At nice +10 the storing takes what they leave, so
/// neither waits behind it for a core. Linux keeps a nice value per thread; the caller's own is
/// left as it is (an unprivileged process could not lower it back).
enum LowPriority {
    static let niceness: Int32 = 10

    /// Runs `work` on a new thread and returns what it returned.
    static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        let thread = Thread {
            // The new thread starts at its creator's nice value. Best effort: a failure (a seccomp
            // profile, say) leaves it there.
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            _ = setpriority(which, 0, min(getpriority(which, 0) + niceness, 19))
            result.value = work()
            done.signal()
        }
        thread.name = "soar-bulk"
        thread.start()
        done.wait()
        return result.value!
    }
}

/// The result handed from the low-priority thread to the waiting one (the semaphore orders the two).
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
