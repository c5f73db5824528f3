import Foundation
import SoarCore

/// The last answer of each read, kept on disk so screens still show something offline.
public struct OfflineCache: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    private struct Entry<Value: Codable>: Codable {
        var savedAt: Date
        var value: Value
    }

    public func save<Value: Codable>(_ value: Value, for key: String, at date: Date = Date()) {
        guard let data = try? JSONCoding.encode(Entry(savedAt: date, value: value)) else { return }
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try? data.write(to: file(key), options: .atomic)
    }

    /// The saved value and when it was saved, or nil.
    public func load<Value: Codable>(_ type: Value.Type, for key: String) -> (value: Value, savedAt: Date)? {
        guard let data = try? Data(contentsOf: file(key)), let entry = try? JSONCoding.decode(Entry<Value>.self, from: data) else {
            return nil
        }
        return (entry.value, entry.savedAt)
    }

    public func remove(_ key: String) {
        try? FileManager.default.removeItem(at: file(key))
    }

    private func file(_ key: String) -> URL {
        directory.appendingPathComponent(key.map { $0.isLetter || $0.isNumber || $0 == "-" ? String($0) : "_" }.joined() + ".json")
    }
}
