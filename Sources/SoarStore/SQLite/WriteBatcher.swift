import Foundation

/// The one writer, with group commit: writes that arrive while a transaction is being written
/// wait, then go together in the next one, each in its own savepoint.
///
/// A write that fails rolls back to its savepoint and fails alone; a commit that fails fails every
/// write of its batch. Whichever waiting thread finds no batch running writes the next one, so no
/// thread is dedicated to it. A bulk write (a chunk of a send) has a transaction of its own, and
/// transactions alternate: after a bulk one, every small write waiting goes in the next, so a
/// small write waits for at most one bulk write however many sends are being stored.
final class WriteBatcher: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let condition = NSCondition()
    private var queue: [any BatchedWrite] = []
    private var writing = false
    private var lastWasBulk = true

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
            writing = true
            let batch = nextBatch()
            condition.unlock()
            commit(batch)
            condition.lock()
            for write in batch { write.finished = true }
            writing = false
            condition.broadcast()
        }
        condition.unlock()
        return try job.result!.get()
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

    private func commit(_ batch: [any BatchedWrite]) {
        do {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            for write in batch { write.fail(error) }
            return
        }
        if batch.count == 1 {
            // Alone in its transaction: no savepoint needed, a failure rolls the whole of it back.
            guard batch[0].run(connection) else {
                try? connection.run("ROLLBACK")
                return
            }
        } else {
            for write in batch {
                do {
                    try connection.run("SAVEPOINT write")
                    if !write.run(connection) { try connection.run("ROLLBACK TO write") }
                    try connection.run("RELEASE write")
                } catch {
                    // A savepoint that cannot be rolled back or released leaves the transaction
                    // unknown: none of it is kept, and every write of the batch fails.
                    try? connection.run("ROLLBACK")
                    for write in batch { write.fail(error) }
                    return
                }
            }
        }
        do {
            try connection.run("COMMIT")
        } catch {
            try? connection.run("ROLLBACK")
            for write in batch { write.fail(error) }
        }
    }
}

/// One write waiting for, or done in, a batch.
private protocol BatchedWrite: AnyObject {
    var bulk: Bool { get }
    var finished: Bool { get set }
    /// Runs the write; false when it failed (and must be rolled back).
    func run(_ connection: SQLiteConnection) -> Bool
    func fail(_ error: StoreError)
}

private final class Write<T>: BatchedWrite {
    let body: (SQLiteConnection) throws(StoreError) -> T
    let bulk: Bool
    var result: Result<T, StoreError>?
    var finished = false

    init(_ body: @escaping (SQLiteConnection) throws(StoreError) -> T, bulk: Bool) {
        self.body = body
        self.bulk = bulk
    }

    func run(_ connection: SQLiteConnection) -> Bool {
        do {
            result = .success(try body(connection))
            return true
        } catch {
            result = .failure(error)
            return false
        }
    }

    func fail(_ error: StoreError) { result = .failure(error) }
}
