import Foundation

/// A command's arguments, split into positionals, `--option value` pairs and `--flag`s.
///
/// Both `--name value` and `--name=value` are accepted; `--` ends the options. An unknown option,
/// or one missing its value, is a usage error that names it.
public struct Arguments: Sendable {
    public private(set) var positionals: [String] = []
    /// The process environment (tests pass their own), for options that fall back to variables.
    public let environment: [String: String]
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []

    public init(_ words: [String], options: [Option], environment: [String: String] = ProcessInfo.processInfo.environment) throws(CommandError) {
        self.environment = environment
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            guard !onlyPositionals, word.hasPrefix("--"), word.count > 2 else {
                if word == "--" && !onlyPositionals { onlyPositionals = true } else { positionals.append(word) }
                continue
            }
            var name = word
            var inline: String?
            if let eq = word.firstIndex(of: "=") {
                name = String(word[..<eq])
                inline = String(word[word.index(after: eq)...])
            }
            guard let option = options.first(where: { $0.name == name }) else {
                throw .usage("unknown option \(name)")
            }
            guard option.value != nil else {
                if inline != nil { throw .usage("\(name) takes no value") }
                flags.insert(name)
                continue
            }
            if let inline {
                values[name, default: []].append(inline)
            } else if index < words.count {
                values[name, default: []].append(words[index])
                index += 1
            } else {
                throw .usage("\(name) needs a value (\(option.value!))")
            }
        }
    }

    /// The last value given for an option.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for a repeatable option, in order.
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Exactly one positional argument, or a usage error naming what is missing.
    public func single(_ what: String) throws(CommandError) -> String {
        guard let first = positionals.first else { throw .usage("missing \(what)") }
        guard positionals.count == 1 else { throw .usage("expected one \(what), got \(positionals.count)") }
        return first
    }
}
