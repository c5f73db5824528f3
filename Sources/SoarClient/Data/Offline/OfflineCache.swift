import Foundation

/// The last answer of each read, kept on disk byte for byte (0600 files in a 0700 folder), so
/// screens still show something offline.
public struct OfflineCache: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func save(_ data: Data, for key: String) {
        try? PrivateFile.write(data, to: file(key))
    }

    /// The saved answer and when it was saved (the file's modification time), or nil.
    public func load(_ key: String) -> (data: Data, savedAt: Date)? {
        let url = file(key)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let savedAt = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? Date()
        return (data, savedAt)
    }

    public func remove(_ key: String) {
        try? FileManager.default.removeItem(at: file(key))
    }

    private func file(_ key: String) -> URL {
        directory.appendingPathComponent(key.map { $0.isLetter || $0.isNumber || $0 == "-" ? String($0) : "_" }.joined() + ".json")
    }
}
