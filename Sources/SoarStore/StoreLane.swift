import CPgQuery
import Dispatch
import Foundation

/// The one way to run store work from async code (and, waited for, from a server thread): off
/// Swift's cooperative threads, on threads of the lane's own.
///
/// A store call can wait: SQLite has one writer, a send being stored holds it a chunk at a time,
/// and a Postgres call waits for the network. Swift has one cooperative thread per core, so a call
/// made on one of them would stall every task that runs there (deliveries, listeners).
public struct StoreLane: Sendable {
    public enum Kind: Sendable {
        /// One call at a time, in order.
        case serial
        /// As many at once as come (SQLite writes then share the writer's transactions: group commit).
        case concurrent
        /// Each call on a new thread whose nice value is ``niceness`` more than the process's (at
        /// most 19), so long work (storing a send to everyone) takes only what deliveries and
        /// requests leave of the cores. Linux keeps a nice value per thread: pooled threads are
        /// never lowered, since an unprivileged process could not raise them back.
        case lowPriority
    }

    static let niceness: Int32 = 10
    private let kind: Kind
    private let queue: DispatchQueue

    public init(_ label: String, _ kind: Kind = .serial) {
        self.kind = kind
        queue = DispatchQueue(label: "soar.store.\(label)", attributes: kind == .concurrent ? .concurrent : [])
    }

    /// Runs `call` on the lane and returns what it returned, or throws what it threw.
    public func run<T: Sendable, E: Error>(_ call: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, E>, Never>) in
            start { continuation.resume(returning: Result(catching: call)) }
        }
        return try result.get()
    }

    /// The same, for a caller that is a thread of its own (an HTTP worker), which waits.
    public func wait<T, E: Error>(_ call: @escaping () throws(E) -> T) throws(E) -> T {
        var result: Result<T, E>?
        let done = DispatchSemaphore(value: 0)
        let body = UncheckedBody { result = Result(catching: call); done.signal() }
        start { body.run() }
        done.wait()
        return try result!.get()
    }

    /// Calls `call` every `interval` until the returned flag is cleared (a lease's heartbeat: on
    /// the lane's thread, a busy cooperative pool cannot make it late).
    public func repeating(every interval: Duration, _ call: @escaping @Sendable () -> Void) -> Repeating {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000 + Int(interval.components.attoseconds / 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        timer.setEventHandler(handler: call)
        timer.resume()
        return Repeating(timer: timer)
    }

    public final class Repeating: @unchecked Sendable {
        private let timer: DispatchSourceTimer
        fileprivate init(timer: DispatchSourceTimer) { self.timer = timer }
        /// Stops it; a call under way finishes.
        public func stop() { timer.cancel() }
        deinit { timer.cancel() }
    }

    private func start(_ body: @escaping @Sendable () -> Void) {
        guard kind == .lowPriority else { return queue.async(execute: body) }
        // Where no thread can be started (the process at its limit), the call runs on the queue.
        if !Self.startLowered(body) { queue.async(execute: body) }
    }

    private static func startLowered(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(UncheckedBody(body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        defer { pthread_attr_destroy(&attributes) }
        let started = pthread_create(&thread, &attributes, { context in
            let body = Unmanaged<UncheckedBody>.fromOpaque(context!).takeRetainedValue()
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(which, 0)
            // Where the priority cannot be read or changed (a seccomp profile), only the scheduling differs.
            if errno == 0 { _ = setpriority(which, 0, min(current + StoreLane.niceness, 19)) }
            body.run()
            return nil
        }, context)
        if started != 0 { Unmanaged<UncheckedBody>.fromOpaque(context).release() }
        return started == 0
    }
}

/// A closure handed to another thread, which the caller waits for (so nothing races on it).
private final class UncheckedBody: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
