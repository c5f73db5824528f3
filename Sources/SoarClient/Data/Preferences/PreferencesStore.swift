import Foundation
import SoarCore
import Synchronization

/// Where non-secret settings live: UserDefaults on Apple platforms, a JSON file on Linux.
public protocol PreferencesStore: Sendable {
    func string(for key: String) -> String?
    func set(_ value: String?, for key: String)
}

#if canImport(Darwin)
    extension UserDefaults: PreferencesStore {
        public func set(_ value: String?, for key: String) { set(value as Any?, forKey: key) }
        public func string(for key: String) -> String? { string(forKey: key) }
    }
#endif

/// Preferences as one small JSON file, written whole on each change.
public final class FilePreferencesStore: PreferencesStore {
    private let file: URL
    private let values: Locked<[String: String]>

    public init(file: URL) {
        self.file = file
        let saved = (try? Data(contentsOf: file)).flatMap { try? JSONDecoder().decode([String: String].self, from: $0) }
        values = Locked(saved ?? [:])
    }

    public func string(for key: String) -> String? { values.withLock { $0[key] } }

    public func set(_ value: String?, for key: String) {
        let snapshot = values.withLock { values in
            values[key] = value
            return values
        }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        if let data = try? JSONEncoder().encode(snapshot) { try? data.write(to: file, options: .atomic) }
    }
}
