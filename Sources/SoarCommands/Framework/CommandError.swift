/// Why a command stopped, with the process exit code it maps to.
///
/// Exit codes: 0 success; 1 the work ran and something failed; 2 usage or configuration error;
/// 3 a server could not be reached.
public struct CommandError: Error, Sendable, CustomStringConvertible {
    public let exitCode: Int32
    public let message: String
    /// The command line itself was wrong: pointing at `--help` helps.
    public var isUsage = false

    public var description: String { message }

    public static func failure(_ message: String) -> CommandError { .init(exitCode: 1, message: message) }
    public static func usage(_ message: String) -> CommandError { .init(exitCode: 2, message: message, isUsage: true) }
    public static func configuration(_ message: String) -> CommandError { .init(exitCode: 2, message: message) }
    public static func unreachable(_ message: String) -> CommandError { .init(exitCode: 3, message: message) }
}
