import Foundation

/// The one writer, with group commit: writes that arrive while a transaction is being written
/// wait, then go together in the next one, each in its own savepoint.
///
/// A write that fails rolls back to its savepoint and fails alone; a commit that fails fails every
/// write of its batch. Whichever waiting thread finds no batch running writes the next one, so no
/// thread is dedicated to it.
final class WriteBatcher: @unchecked Sendable {
    private let connection: SQLiteConnection
    private let condition = NSCondition()
    private var queue: [any BatchedWrite] = []
    private var writing = false

    init(connection: SQLiteConnection) { self.connection = connection }

    /// Runs `body` on the writer connection inside a transaction shared with other writes.
    func perform<T>(_ body: @escaping (SQLiteConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let job = Write(body)
        condition.lock()
        queue.append(job)
        while !job.finished {
            if writing {
                condition.wait()
                continue
            }
            writing = true
            let batch = queue
            queue.removeAll(keepingCapacity: true)
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
                    write.fail(error)
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
    var finished: Bool { get set }
    /// Runs the write; false when it failed (and must be rolled back).
    func run(_ connection: SQLiteConnection) -> Bool
    func fail(_ error: StoreError)
}

private final class Write<T>: BatchedWrite {
    let body: (SQLiteConnection) throws(StoreError) -> T
    var result: Result<T, StoreError>?
    var finished = false

    init(_ body: @escaping (SQLiteConnection) throws(StoreError) -> T) { self.body = body }

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
