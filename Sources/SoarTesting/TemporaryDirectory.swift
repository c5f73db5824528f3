import Foundation

/// A fresh directory under the system's temporary folder, removed when released.
public final class TemporaryDirectory: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "soar") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes a file in the directory and returns its path.
    @discardableResult
    public func write(_ name: String, _ contents: String) throws -> String {
        let file = path + "/" + name
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
