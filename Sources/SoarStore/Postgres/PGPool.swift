import Foundation

/// A bounded pool of Postgres connections, opened on demand and replaced when they break.
///
/// A caller waits at most `wait` for a free connection; a connection that broke during use is
/// dropped, and the next checkout opens a new one, so a database restart heals by itself.
final class PGPool: @unchecked Sendable {
    let url: String
    private let lock = NSCondition()
    private var idle: [PGConnection] = []
    private var open = 0
    private let size: Int
    private let wait: TimeInterval

    init(url: String, size: Int, wait: TimeInterval = 10) {
        self.url = url
        self.size = size
        self.wait = wait
    }

    /// Runs `body` with a connection of the pool.
    ///
    /// A connection that waited in the pool may have been closed by the server meanwhile (a
    /// restart): when it fails before anything ran on it, `body` runs once more on another, so a
    /// restart fails only the requests in flight, not the next ones.
    func with<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let (connection, reused) = try checkout()
        let before = connection.resultsRead
        do {
            let value = try body(connection)
            checkin(connection)
            return value
        } catch {
            checkin(connection)
            if reused, !connection.isUsable, connection.resultsRead == before { return try with(body) }
            throw error
        }
    }

    /// A connection, and whether it was waiting in the pool (not just opened).
    private func checkout() throws(StoreError) -> (PGConnection, reused: Bool) {
        lock.lock()
        let deadline = Date() + wait
        while idle.isEmpty && open >= size {
            guard lock.wait(until: deadline) else {
                lock.unlock()
                throw .unavailable("no Postgres connection came free within \(Int(wait)) s")
            }
        }
        if let connection = idle.popLast() {
            lock.unlock()
            if connection.isUsable { return (connection, true) }
            lock.lock()
            open -= 1
            lock.unlock()
            return try checkout()
        }
        open += 1
        lock.unlock()
        do {
            return (try PGConnection(url), false)
        } catch {
            lock.lock()
            open -= 1
            lock.signal()
            lock.unlock()
            throw error
        }
    }

    private func checkin(_ connection: PGConnection) {
        // A connection left inside a transaction (a failed ROLLBACK) would fail every later use.
        if connection.isUsable && !connection.isIdle { _ = try? connection.execute("ROLLBACK") }
        lock.lock()
        if connection.isUsable && connection.isIdle { idle.append(connection) } else { open -= 1 }
        lock.signal()
        lock.unlock()
    }

    func close() {
        lock.lock()
        idle.removeAll()
        lock.unlock()
    }
}
