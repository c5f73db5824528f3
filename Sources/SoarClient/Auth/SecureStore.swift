import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let url = file(key)
        // Created 0600 before the secret is written, then moved into place whole.
        let temporary = directory.appendingPathComponent(".\(key).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        // rename(2) replaces the old file in one step: a crash leaves the old secret or the new one.
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    public func remove(_ key: String) throws {
        let url = file(key)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
    }

    private func file(_ key: String) -> URL {
        directory.appendingPathComponent(key.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? String($0) : "_" }.joined())
    }
}
