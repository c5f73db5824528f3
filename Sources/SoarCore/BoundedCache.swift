/// Values kept by key from any thread, at most `capacity` of them: a new key past it empties the
/// cache first (what is asked for again is soon kept again). For what is cheap to make once more
/// but made on every request otherwise: parsed queries, SQL text.
public final class BoundedCache<Value: Sendable>: Sendable {
    @usableFromInline let values = Locked<[String: Value]>([:])
    @usableFromInline let capacity: Int

    public init(capacity: Int = 1024) { self.capacity = capacity }

    /// Inlinable, as ``Locked/withLock(_:)`` is: made for each caller's value type.
    @inlinable
    public subscript(key: String) -> Value? { values.withLock { $0[key] } }

    @inlinable
    public func keep(_ value: Value, for key: String) {
        values.withLock { values in
            if values.count >= capacity && values[key] == nil { values.removeAll() }
            values[key] = value
        }
    }

    public func removeAll() { values.withLock { $0.removeAll() } }
}
