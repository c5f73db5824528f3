import Foundation
import SoarCore
#if canImport(Glibc)
    import Glibc
#endif

/// JSON-lines logs with levels. Callers pass fields, never secrets: no passwords, tokens, keys,
/// request bodies or query strings are ever given to it.
public final class Logger: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case debug, info, warn, error

        public init?(name: String) {
            switch name.lowercased() {
            case "debug": self = .debug
            case "info": self = .info
            case "warn", "warning": self = .warn
            case "error": self = .error
            default: return nil
            }
        }

        var name: String { ["debug", "info", "warn", "error"][rawValue] }
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let level: Level
    private let write: @Sendable (String) -> Void

    /// Logs to standard error unless given another line sink (tests collect lines).
    public init(level: Level = .info, write: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.write = write ?? Logger.standardError
    }

    /// One JSON object on one line: `ts`, `level`, `msg`, then the fields in the order given.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) {
        guard level >= self.level else { return }
        var line = "{\"ts\":\"\(Timestamp.format(Date()))\",\"level\":\"\(level.name)\",\"msg\":\(JSONValue.string(message).jsonText)"
        for (key, value) in fields {
            line += ",\"\(key)\":\(value.jsonText)"
        }
        line += "}"
        write(line)
    }

    /// One write(2) per line, so lines from several threads never interleave (no lock needed).
    private static let standardError: @Sendable (String) -> Void = { line in
        var bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
