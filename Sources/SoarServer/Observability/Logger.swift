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
    /// A line, and whether it must be written at once (a warning or an error).
    private let write: @Sendable ([UInt8], Bool) -> Void
    /// Standard error is systemd's journal (it sets `JOURNAL_STREAM`): each line starts with its
    /// priority (`<4>`), so `journalctl -p warning` finds warnings; the journal keeps the time.
    private let journal: Bool

    /// Logs to standard error unless given another sink of lines (tests collect them).
    public init(level: Level = .info, lines: (@Sendable (String) -> Void)? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.level = level
        journal = lines == nil && !(environment["JOURNAL_STREAM"] ?? "").isEmpty
        if let lines {
            write = { bytes, _ in lines(String(decoding: bytes.dropLast(), as: UTF8.self)) }
        } else {
            write = { bytes, urgent in StandardErrorLines.shared.write(bytes, urgent: urgent) }
        }
    }

    /// Writes the lines still waiting to standard error (see ``StandardErrorLines``): before
    /// anything else goes there.
    public static func flushStandardError() { StandardErrorLines.shared.flush() }

    /// One JSON object on one line: `ts`, `level`, `msg`, then the fields in the order given.
    public func log(_ level: Level, _ message: String, _ fields: KeyValuePairs<String, JSONValue> = [:]) {
        guard level >= self.level else { return }
        var line = JSONText(capacity: 384)
        line.beginObject()
        line.field(Self.ts, .string(Timestamp.format(Date())))
        line.field(Self.level, .string(level.name))
        line.field(Self.msg, .string(message))
        for (key, value) in fields { line.field(key, value) }
        line.endObject()
        var bytes = line.line()
        if journal { bytes.insert(contentsOf: "<\(level.priority)>".utf8, at: 0) }
        write(bytes, level >= .warn)
    }

    private static let ts = JSONText.Key("ts")
    private static let level = JSONText.Key("level")
    private static let msg = JSONText.Key("msg")
}

/// Whole lines to standard error from any thread, in order and never interleaved, many to a
/// write(2) under load: a line waits until 16 KB wait, or 50 ms passed (a timer writes what waits
/// then), or a warning or an error comes, written at once with everything before it. What still
/// waits is written when the process exits; a crash (a signal, a kill) loses at most those last
/// 50 ms of info lines, never a warning or an error.
final class StandardErrorLines: @unchecked Sendable {
    static let shared = StandardErrorLines()
    private static let batch = 16_384
    private let pending = Locked<[UInt8]>([])
    /// Held while a batch is taken and written, so that batches keep their order.
    private let writing = NSLock()
    private let timer: DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "soar.log"))
        timer.setEventHandler { StandardErrorLines.shared.flush() }
        timer.resume()
        atexit { StandardErrorLines.shared.flush() }
    }

    func write(_ line: [UInt8], urgent: Bool) {
        let full = pending.withLock { pending in
            // The first line to wait sets the timer: an idle server is not woken.
            if pending.isEmpty { timer.schedule(deadline: .now() + .milliseconds(50), leeway: .milliseconds(10)) }
            pending += line
            return pending.count >= Self.batch
        }
        if urgent || full { flush() }
    }

    /// Writes every line given so far.
    func flush() {
        writing.lock()
        defer { writing.unlock() }
        let bytes = pending.withLock { pending in
            let bytes = pending
            pending.removeAll(keepingCapacity: true)
            return bytes
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
