import Foundation
import SoarClient
import Synchronization

/// A ``SecureStore`` in memory.
public final class InMemorySecureStore: SecureStore {
    private let values = Locked<[String: Data]>([:])

    public init() {}

    public func data(for key: String) throws -> Data? { values.withLock { $0[key] } }
    public func set(_ data: Data, for key: String) throws { values.withLock { $0[key] = data } }
    public func remove(_ key: String) throws { _ = values.withLock { $0.removeValue(forKey: key) } }
    public var keys: [String] { values.withLock { Array($0.keys) } }
}

/// A ``PreferencesStore`` in memory.
public final class InMemoryPreferencesStore: PreferencesStore {
    private let values = Locked<[String: String]>([:])

    public init() {}

    public func string(for key: String) -> String? { values.withLock { $0[key] } }
    public func set(_ value: String?, for key: String) { values.withLock { $0[key] = value } }
}
