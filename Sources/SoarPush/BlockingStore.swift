import Dispatch
import SoarStore

/// Store calls from async code, run on threads of their own.
///
/// A store call can wait: SQLite has one writer, and a send being stored holds it for a chunk at a
/// time. Swift has one cooperative thread per core, so a call made on one of them would stall the
/// deliveries that run there; on this queue it waits alone.
struct BlockingStore: Sendable {
    private let queue: DispatchQueue

    /// One call at a time, or, `concurrent`, as many as come (their writes then share the writer's
    /// transactions: group commit).
    init(_ label: String, concurrent: Bool = false) {
        queue = DispatchQueue(label: "soar.push.\(label)", attributes: concurrent ? .concurrent : [])
    }

    func run<T: Sendable>(_ call: @escaping @Sendable () throws(StoreError) -> T) async throws(StoreError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, StoreError>, Never>) in
            queue.async { continuation.resume(returning: Result(catching: call)) }
        }
        return try result.get()
    }
}
