import Foundation
/// One `soar` subcommand: parsed from arguments, validated, then run.
///
/// Commands throw ``CommandError`` rather than exiting, so tests call them directly.
public protocol Command: Sendable {
    /// The words that select it, e.g. `payload validate`.
    static var name: String { get }
    static var summary: String { get }
    /// The positional arguments, for the usage line, e.g. `URL-OR-PATH`.
    static var arguments: String { get }
    static var options: [Option] { get }
    /// Extra help text after the options: examples, exit codes.
    static var discussion: String { get }

    init(_ arguments: Arguments) throws(CommandError)
    func validate() throws(CommandError)
    func run(_ console: Console) async throws(CommandError)
}

extension Command {
    public static var arguments: String { "" }
    public static var options: [Option] { [] }
    public static var discussion: String { "" }
    public func validate() throws(CommandError) {}

    /// The `--help` text, built from the declarations.
    public static var help: String {
        var text = "Usage: soar \(name)\(options.isEmpty ? "" : " [options]")\(arguments.isEmpty ? "" : " " + arguments)\n\n\(summary)\n"
        let all = options + [Option("--help", help: "Show this help.")]
        let width = all.map(\.label.count).max() ?? 0
        text += "\nOptions:\n"
        for option in all {
            text += "  " + option.label.padding(toLength: width + 2, withPad: " ", startingAt: 0) + option.help + "\n"
        }
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        return text
    }
}

/// A `--name` a command accepts; with a `value` placeholder it takes one, else it is a flag.
public struct Option: Sendable {
    public let name: String
    public let value: String?
    public let help: String

    public init(_ name: String, value: String? = nil, help: String) {
        self.name = name
        self.value = value
        self.help = help
    }

    var label: String { value.map { "\(name) \($0)" } ?? name }
}
