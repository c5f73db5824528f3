import Foundation

/// Where secrets live between launches (the session's tokens): the keychain on Apple platforms,
/// a 0600 file on Linux, memory in tests.
public protocol SecureStore: Sendable {
    func data(for key: String) throws -> Data?
    func set(_ data: Data, for key: String) throws
    func remove(_ key: String) throws
}

/// One 0600 file per key in a 0700 directory.
public struct FileSecureStore: SecureStore {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func data(for key: String) throws -> Data? {
        let url = file(key)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try Data(contentsOf: url)
    }

    public func set(_ data: Data, for key: String) throws {
        try PrivateFile.write(data, to: file(key))
    }

    public func remove(_ key: String) throws {
        let url = file(key)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }

    private func file(_ key: String) -> URL {
        directory.appendingPathComponent(key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? String($0) : "_" }.joined())
    }
}
