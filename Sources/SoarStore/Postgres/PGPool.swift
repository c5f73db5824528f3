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
    func with<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        let connection = try checkout()
        do {
            let value = try body(connection)
            checkin(connection)
            return value
        } catch {
            checkin(connection)
            throw error
        }
    }

    private func checkout() throws(StoreError) -> PGConnection {
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
            if connection.isUsable { return connection }
            lock.lock()
            open -= 1
            lock.unlock()
            return try checkout()
        }
        open += 1
        lock.unlock()
        do {
            return try PGConnection(url)
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
