import Foundation

/// The `soar` command line: finds the subcommand named by the leading words and runs it.
public enum SoarCLI {
    public static let version = "0.1.0"

    /// Every subcommand, in the order `soar --help` lists them.
    public static let commands: [any Command.Type] = [
        ServeCommand.self,
        DemoCommand.self,
        InitCommand.self,
        MigrationNewCommand.self,
        MigrateCommand.self,
        BackupCommand.self,
        RestoreCommand.self,
        GenTypesCommand.self,
        AdminAddCommand.self,
        AdminListCommand.self,
        AdminRemoveCommand.self,
        SelfCheckCommand.self,
        RouteCommand.self,
        SimulateCommand.self,
        PayloadValidateCommand.self,
        PushSendCommand.self,
        APNsEmulatorCommand.self,
        KeysGenerateCommand.self,
        BenchAPNsCommand.self,
    ]

    /// Runs `soar` with its arguments (without the program name) and returns the exit code.
    public static func run(_ words: [String], console: Console = .standard, environment: [String: String] = ProcessInfo.processInfo.environment) async -> Int32 {
        if words.isEmpty || words == ["--help"] || words == ["-h"] || words == ["help"] {
            console.out(overview)
            return words.isEmpty ? 2 : 0
        }
        if words == ["--version"] {
            console.print("soar \(version)")
            return 0
        }
        let asked = words.first == "help" ? Array(words.dropFirst()) : words
        guard let (command, rest) = find(asked) else {
            let group = commands.filter { $0.name.split(separator: " ").first.map(String.init) == asked.first && $0.name.contains(" ") }
            if !group.isEmpty {
                // A command group without its subcommand (`soar push`): list what it has.
                let text = "soar \(asked[0]) needs a subcommand:\n" + listing(group)
                if asked.count > 1, !asked[1].hasPrefix("-") { console.warn("soar: unknown command '\(asked.prefix(2).joined(separator: " "))'.") }
                let wantedHelp = asked.count == 2 && (asked[1] == "--help" || asked[1] == "-h")
                if wantedHelp { console.out(text) } else { console.warn(String(text.dropLast())) }
                return wantedHelp ? 0 : 2
            }
            console.warn("soar: unknown command '\(asked.prefix(2).joined(separator: " "))'. Run 'soar --help' for the list.")
            return 2
        }
        if words.first == "help" || rest.contains("--help") || rest.contains("-h") {
            console.out(command.help)
            return 0
        }
        do {
            let parsed = try command.init(Arguments(rest, options: command.options, environment: environment))
            try parsed.validate()
            try await parsed.run(console)
            console.flush()
            return 0
        } catch {
            console.flush()
            console.warn("soar \(command.name): \(error.message)")
            if error.isUsage { console.warn("Run 'soar \(command.name) --help' for usage.") }
            return error.exitCode
        }
    }

    /// The command whose name is the longest run of leading words.
    static func find(_ words: [String]) -> (any Command.Type, [String])? {
        for command in commands.sorted(by: { $0.name.count > $1.name.count }) {
            let name = command.name.split(separator: " ").map(String.init)
            if words.starts(with: name) { return (command, Array(words.dropFirst(name.count))) }
        }
        return nil
    }

    static var overview: String {
        var text = "soar \(version): self-hosted push notifications and app data for Swift apps.\n\nUsage: soar COMMAND [options]\n\nCommands:\n"
        text += listing(commands)
        text += "\nRun 'soar COMMAND --help' for a command's options.\n"
        text += "Exit codes: 0 success, 1 the work ran and something failed, 2 usage or configuration error, 3 cannot reach a server.\n"
        return text
    }

    /// One line a command, names padded to a column: `  push send  Send a notification…`.
    static func listing(_ commands: [any Command.Type]) -> String {
        let width = commands.map { $0.name.count }.max() ?? 0
        return commands.map { "  " + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary + "\n" }.joined()
    }
}
