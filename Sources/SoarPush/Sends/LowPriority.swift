import Foundation

/// Work on a thread of its own at a lower scheduling priority, waited for: its nice value is
/// ``niceness`` more than the caller's (at most 19).
///
/// Storing a send to everyone is seconds of CPU, while its deliveries run beside it (from the first
/// chunk stored) and other requests keep coming. At a lower priority the storing takes what they
/// leave, so neither waits behind it for a core. Linux keeps a nice value per thread; the caller's
/// own is left as it is (an unprivileged process could not lower it back).
enum LowPriority {
    static let niceness: Int32 = 10

    /// Runs `work` on a new thread and returns what it returned, or throws what it threw. Where no
    /// thread can be started (the process at its limit), `work` runs on the caller's, as before.
    static func run<T, E: Error>(_ work: @escaping () throws(E) -> T) throws(E) -> T {
        var result: Result<T, E>?
        let context = Unmanaged.passRetained(LoweredRun { result = Result(catching: work) }).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<LoweredRun>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard started == 0 else {
            Unmanaged<LoweredRun>.fromOpaque(context).release()
            return try work()
        }
        // Joining orders the thread's write of the result before the read below.
        pthread_join(thread, nil)
        return try result!.get()
    }
}

/// What the new thread runs: it lowers its own priority, then runs the work.
private final class LoweredRun {
    let work: () -> Void

    init(_ work: @escaping () -> Void) { self.work = work }

    func run() {
        Thread.current.name = "soar-push-store"
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let current = getpriority(which, 0)
        // Where the priority cannot be read or changed (a seccomp profile, say), the work runs at
        // the caller's: only the scheduling differs.
        if errno == 0 { _ = setpriority(which, 0, min(current + LowPriority.niceness, 19)) }
        work()
    }
}
