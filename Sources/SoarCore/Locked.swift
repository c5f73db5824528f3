import Synchronization

/// The one lock Soar uses: a value shared between threads and tasks, reached only inside
/// `withLock`. A class around the standard library's `Mutex`, so closures can capture it and a
/// `let` property can hold it. (Waiting for a change uses `NSCondition`; this is not for waiting.)
public final class Locked<Value: ~Copyable>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    public init(_ value: consuming sending Value) { mutex = Mutex(value) }

    /// Inlinable, so that each caller gets a copy made for its own types: called from another
    /// module, the generic one looked up their metadata at every call (4% of a create's CPU).
    @inlinable
    public func withLock<T: ~Copyable, E: Error>(_ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending T in try body(&value) }
    }
}
