import Foundation
import SoarServer

/// Where a command writes: standard output for results, standard error for diagnostics.
///
/// Tests pass a recording console; `soar` passes ``standard``.
public struct Console: Sendable {
    public let out: @Sendable (String) -> Void
    public let err: @Sendable (String) -> Void
    /// Whether standard error is a terminal (progress bars are drawn only then).
    public let errorIsTerminal: Bool
    /// Pushes buffered standard output out now (for streamed lines another program reads).
    public let flush: @Sendable () -> Void

    public init(
        errorIsTerminal: Bool = false, out: @escaping @Sendable (String) -> Void,
        err: @escaping @Sendable (String) -> Void, flush: @escaping @Sendable () -> Void = {}
    ) {
        self.out = out
        self.flush = flush
        self.err = err
        self.errorIsTerminal = errorIsTerminal
    }

    /// Writes a line to standard output.
    public func print(_ line: String) {
        var line = line
        line.append("\n")  // in place when the line has room, as result lines do
        out(line)
    }

    /// Writes a line to standard error.
    public func warn(_ line: String) { err(line + "\n") }

    public static let standard = Console(
        errorIsTerminal: isatty(2) == 1,
        // stdio buffers standard output (whole blocks to a pipe or file, lines to a terminal);
        // standard error is unbuffered.
        out: { fputs($0, cStandardOutput) },
        // After the log lines still waiting (Logger writes standard error in batches).
        err: { line in
            Logger.flushStandardError()
            FileHandle.standardError.write(Data(line.utf8))
        },
        flush: { fflush(cStandardOutput) }
    )
}

/// A stdio stream on descriptor 1, owned by Console alone (Swift 6 cannot vouch for the `stdout`
/// global); stdio locks it, so any thread may write.
nonisolated(unsafe) private let cStandardOutput: UnsafeMutablePointer<FILE> = fdopen(1, "w")
