import Foundation

/// What a read returns: the value, and whether it came from the offline cache instead of the server.
public struct Fetched<Value: Sendable>: Sendable {
    public var value: Value
    /// True when the server could not be reached and ``value`` is the last copy saved.
    public var isStale: Bool
    /// When the server answered ``value`` (for a stale value, when it was saved).
    public var asOf: Date

    public init(_ value: Value, isStale: Bool = false, asOf: Date = Date()) {
        self.value = value
        self.isStale = isStale
        self.asOf = asOf
    }
}

extension Fetched: Equatable where Value: Equatable {}
