import Foundation
import SoarCore

/// The one writer, with group commit: writes that arrive while a transaction is being written
/// wait, then go together in the next one, each in its own savepoint.
///
/// A write that fails rolls back to its savepoint and fails alone; a commit that fails fails every
/// write of its batch. A caller that waits (`perform`) writes the next batch itself when no batch
/// is running; a queued write (`enqueue`, whose caller goes on at once) is written by a writer
/// thread started for them, so while one transaction is written the next one fills up. A bulk write (a chunk of a send) has a transaction of its own, and
/// transactions alternate: after a bulk one, every small write waiting goes in the next, so a
/// small write waits for at most one bulk write however many sends are being stored.
final class WriteBatcher: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let condition = NSCondition()
    private var queue: [any BatchedWrite] = []
    private var writing = false
    private var lastWasBulk = true
    private var thread = WriterThread.notStarted
    /// Why the last transaction could not be written (a full disk, an I/O error); nil once one is.
    let failure = Locked<String?>(nil)

    private enum WriterThread { case notStarted, running, stopping, stopped }

    init(connection: SQLiteConnection) { self.connection = connection }

    /// Writes waiting for a transaction.
    var queued: Int { condition.withLock { queue.count } }

    /// Runs `body` on the writer connection inside a transaction shared with other writes, or
    /// alone in one when it is `bulk`.
    func perform<T>(bulk: Bool = false, _ body: @escaping (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let job = Write(body, bulk: bulk)
        condition.lock()
        queue.append(job)
        while !job.finished {
            if writing {
                condition.wait()
                continue
            }
            writeNextBatch()
        }
        condition.unlock()
        return try job.result!.get()
    }

    /// Runs `body` on the writer connection between transactions (a connection setting).
    func betweenTransactions<T>(_ body: (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        condition.lock()
        defer { condition.unlock() }
        while writing { condition.wait() }
        return try body(connection)
    }

    /// Queues `body` without waiting: the writer thread runs it in the next transaction and calls
    /// `completion` with its result after the commit. After `stop`, it fails at once.
    func enqueue<T>(_ body: @escaping (SQLiteConnection) throws(StoreError) -> T, completion: @escaping (Result<T, StoreError>) -> Void) {
        let job = Write(body, bulk: false)
        job.completion = completion
        condition.lock()
        switch thread {
        case .stopping, .stopped:
            condition.unlock()
            completion(.failure(.unavailable("the store is closed")))
            return
        case .notStarted:
            thread = .running
            Thread.detachNewThread { [self] in
                Thread.current.name = "soar-writer"
                writeQueued()
            }
        case .running: break
        }
        queue.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// Lets the writer thread write what is queued, then end; waits for that when `waiting`.
    func stop(waiting: Bool) {
        condition.lock()
        switch thread {
        case .notStarted: thread = .stopped
        case .running: thread = .stopping
        case .stopping, .stopped: break
        }
        condition.broadcast()
        while waiting && thread == .stopping { condition.wait() }
        condition.unlock()
    }

    /// The writer thread: writes every batch that no waiting caller is writing.
    private func writeQueued() {
        condition.lock()
        while true {
            while writing || (queue.isEmpty && thread == .running) { condition.wait() }
            if queue.isEmpty { break }
            writeNextBatch()
        }
        thread = .stopped
        condition.broadcast()
        condition.unlock()
    }

    /// Under the lock, with no batch being written: takes the next batch, commits it with the lock
    /// let go, and ends it.
    private func writeNextBatch() {
        writing = true
        let batch = nextBatch()
        condition.unlock()
        commit(batch)
        condition.lock()
        finish(batch)
    }

    /// Ends a batch, under the lock: wakes the callers waiting and calls the queued writes'
    /// completions (with the lock let go meanwhile, so that they may queue more).
    private func finish(_ batch: [any BatchedWrite]) {
        for write in batch { write.finished = true }
        writing = false
        condition.broadcast()
        condition.unlock()
        for write in batch { write.completed() }
        condition.lock()
    }

    /// Takes the writes of the next transaction from the queue.
    private func nextBatch() -> [any BatchedWrite] {
        let chosen = Self.nextBatch(queue.map(\.bulk), afterBulk: lastWasBulk)
        let batch = chosen.map { queue[$0] }
        lastWasBulk = batch[0].bulk
        for index in chosen.reversed() { queue.remove(at: index) }
        return batch
    }

    /// Which of the queued writes (each bulk or not, oldest first) the next transaction takes:
    /// every small one after a bulk transaction (or when no bulk one waits), else the oldest bulk
    /// one, alone. Each queued write belongs to a different waiting thread, so they have no order
    /// to keep among themselves.
    static func nextBatch(_ bulk: [Bool], afterBulk: Bool) -> [Int] {
        let small = bulk.indices.filter { !bulk[$0] }
        guard let oldestBulk = bulk.firstIndex(of: true) else { return small }
        return afterBulk && !small.isEmpty ? small : [oldestBulk]
    }

    /// Writes a batch, noting in ``failure`` whether the database could take it.
    private func commit(_ batch: [any BatchedWrite]) {
        let unavailable = write(batch)
        failure.withLock { $0 = unavailable?.message }
    }

    /// - Returns: the error that kept the database from taking the writes (not a write's own
    ///   fault, such as a duplicate key), or nil.
    private func write(_ batch: [any BatchedWrite]) -> StoreError? {
        func unavailable(_ error: StoreError?) -> StoreError? { error.flatMap { $0.isClientError ? nil : $0 } }
        do {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            for write in batch { write.fail(error) }
            return unavailable(error)
        }
        // A write that failed alone (its savepoint rolled back) may still say the disk is full.
        var failed: StoreError?
        if batch.count == 1 {
            // Alone in its transaction: no savepoint needed, a failure rolls the whole of it back.
            if let error = batch[0].run(connection) {
                try? connection.run("ROLLBACK")
                return unavailable(error)
            }
        } else {
            for write in batch {
                do {
                    try connection.run("SAVEPOINT write")
                    if let error = write.run(connection) {
                        failed = unavailable(error) ?? failed
                        try connection.run("ROLLBACK TO write")
                    }
                    try connection.run("RELEASE write")
                } catch {
                    // A savepoint that cannot be rolled back or released leaves the transaction
                    // unknown: none of it is kept, and every write of the batch fails.
                    try? connection.run("ROLLBACK")
                    for write in batch { write.fail(error) }
                    return unavailable(error)
                }
            }
        }
        do {
            try connection.run("COMMIT")
        } catch {
            try? connection.run("ROLLBACK")
            for write in batch { write.fail(error) }
            return unavailable(error)
        }
        return failed
    }
}

/// One write waiting for, or done in, a batch.
private protocol BatchedWrite: AnyObject {
    var bulk: Bool { get }
    var finished: Bool { get set }
    /// Runs the write; its error when it failed (and must be rolled back).
    func run(_ connection: SQLiteConnection) -> StoreError?
    func fail(_ error: StoreError)
    /// Calls a queued write's completion with its result (once committed or failed).
    func completed()
}

private final class Write<T>: BatchedWrite {
    let body: (SQLiteConnection) throws(StoreError) -> T
    let bulk: Bool
    var result: Result<T, StoreError>?
    var finished = false
    var completion: ((Result<T, StoreError>) -> Void)?

    init(_ body: @escaping (SQLiteConnection) throws(StoreError) -> T, bulk: Bool) {
        self.body = body
        self.bulk = bulk
    }

    func run(_ connection: SQLiteConnection) -> StoreError? {
        do {
            result = .success(try body(connection))
            return nil
        } catch {
            result = .failure(error)
            return error
        }
    }

    func fail(_ error: StoreError) { result = .failure(error) }

    func completed() {
        guard let completion, let result else { return }
        self.completion = nil
        completion(result)
    }
}
