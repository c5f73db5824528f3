import Synchronization

/// A value shared between threads and tasks, behind a lock; a class, so closures can capture it.
public final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    public init(_ value: Value) { mutex = Mutex(value) }

    public func withLock<T: Sendable, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try mutex.withLock { (value: inout Value) throws(E) -> T in try body(&value) }
    }
}
