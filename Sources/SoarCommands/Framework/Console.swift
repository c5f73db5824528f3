import Foundation

/// Where a command writes: standard output for results, standard error for diagnostics.
///
/// Tests pass a recording console; `soar` passes ``standard``.
public struct Console: Sendable {
    public let out: @Sendable (String) -> Void
    public let err: @Sendable (String) -> Void
    /// Whether standard output is a terminal (progress bars are drawn only then).
    public let isTerminal: Bool
    /// Whether standard error is a terminal.
    public let errorIsTerminal: Bool

    public init(isTerminal: Bool = false, errorIsTerminal: Bool = false, out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void) {
        self.out = out
        self.err = err
        self.isTerminal = isTerminal
        self.errorIsTerminal = errorIsTerminal
    }

    /// Writes a line to standard output.
    public func print(_ line: String) { out(line + "\n") }

    /// Writes a line to standard error.
    public func warn(_ line: String) { err(line + "\n") }

    public static let standard = Console(
        isTerminal: isatty(1) == 1,
        errorIsTerminal: isatty(2) == 1,
        out: { FileHandle.standardOutput.write(Data($0.utf8)) },
        err: { FileHandle.standardError.write(Data($0.utf8)) }
    )
}
