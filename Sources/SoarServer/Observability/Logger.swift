import Foundation
import SoarCore
import Synchronization

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
    private let lock = Mutex(())

    /// Logs to standard error unless given another line sink (tests collect lines).
    public init(level: Level = .info, write: (@Sendable (String) -> Void)? = nil) {
        self.level = level
        self.write = write ?? { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    public func log(_ level: Level, _ message: String, _ fields: [String: JSONValue] = [:]) {
        guard level >= self.level else { return }
        var object = fields
        object["ts"] = .string(Timestamp.format(Date()))
        object["level"] = .string(level.name)
        object["msg"] = .string(message)
        let line = JSONValue.object(object).jsonText
        lock.withLock { _ in write(line) }
    }
}
