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
        /// The syslog priority journald reads from a `<N>` prefix: debug 7, info 6, warning 4, error 3.
        var priority: Int { [7, 6, 4, 3][rawValue] }
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let level: Level
    private let write: @Sendable ([UInt8]) -> Void
    /// Standard error is systemd's journal (it sets `JOURNAL_STREAM`): each line starts with its
    /// priority (`<4>`), so `journalctl -p warning` finds warnings; the journal keeps the time.
    private let journal: Bool

    /// Logs to standard error unless given another sink of lines (tests collect them).
    public init(level: Level = .info, lines: (@Sendable (String) -> Void)? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.level = level
        journal = lines == nil && !(environment["JOURNAL_STREAM"] ?? "").isEmpty
        if let lines {
            write = { bytes in lines(String(decoding: bytes.dropLast(), as: UTF8.self)) }
        } else {
            write = Logger.standardError
        }
    }

    /// One JSON object on one line: `ts`, `level`, `msg`, then the fields in the order given.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) {
        guard level >= self.level else { return }
        var line = JSONText()
        line.beginObject()
        line.field("ts", .string(Timestamp.format(Date())))
        line.field("level", .string(level.name))
        line.field("msg", .string(message))
        for (key, value) in fields { line.field(key, value) }
        line.endObject()
        write((journal ? Array("<\(level.priority)>".utf8) : []) + line.bytes + [UInt8(ascii: "\n")])
    }

    /// One write(2) per line, so lines from several threads never interleave (no lock needed).
    private static let standardError: @Sendable ([UInt8]) -> Void = { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
