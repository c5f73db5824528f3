import Foundation

#if canImport(Glibc)
    import Glibc
#endif
import SoarAuth
import SoarStore

/// Which store `soar admin` works on: a SQLite file through a connection of its own (a server may
/// be running on it), or Postgres through the store.
private func adminStore(_ database: DatabaseChoice) throws(CommandError) -> (store: any AdminStore, close: () -> Void) {
    switch database {
    case .sqlite(let path):
        do { return (try SQLiteAdmins(path: path), {}) } catch { throw .configuration(error.message) }
    case .postgres:
        let store = try database.open(app: AppSchema.starters)
        return (store, { store.close() })
    }
}

private let databaseOptions = [
    Option("--db", value: "PATH", help: "SQLite file (default ./soar.db, or SOAR_DB)."),
    Option("--database-url", value: "URL", help: "PostgreSQL instead of SQLite (or DATABASE_URL)."),
]

/// `soar admin add EMAIL --password-stdin`: a console administrator (not an app user).
struct AdminAddCommand: Command {
    static let name = "admin add"
    static let summary = "Add a console administrator; the password is read from standard input."
    static let options = databaseOptions + [Option("--password-stdin", help: "Read the password from standard input (required: never from the command line).")]
    static let discussion = "Works before the server starts or while it runs. Exit codes: 0 added; 2 a bad email or password, or one already added."

    let database: DatabaseChoice
    let email: String

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.count == 1 else { throw .usage("name one email: soar admin add EMAIL --password-stdin") }
        guard arguments.flag("--password-stdin") else { throw .usage("the password comes from standard input: add --password-stdin") }
        email = arguments.positionals[0].trimmingCharacters(in: .whitespaces).lowercased()
        guard email.contains("@"), !email.hasPrefix("@"), !email.hasSuffix("@"), email.count <= 254 else { throw .usage("\(email) is not an email address") }
        database = try DatabaseChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        let password = Self.readPassword()
        guard password.count >= 8 else { throw .usage("the password must have 8 characters at least") }
        let hash: String
        do { hash = try PasswordHasher().hash(password) } catch { throw .configuration(error.message) }
        let (store, close) = try adminStore(database)
        defer { close() }
        do {
            let admin = try store.addAdmin(email: email, passwordHash: hash)
            console.print("added administrator \(admin.email)")
        } catch where error.code == "23505" {
            throw .usage("\(email) is an administrator already")
        } catch {
            throw .configuration(error.message)
        }
    }
}

extension AdminAddCommand {
    /// The password from standard input, its line end dropped; from a terminal, asked for without
    /// echo.
    static func readPassword() -> String {
        var saved = termios()
        let terminal = isatty(0) == 1 && tcgetattr(0, &saved) == 0
        if terminal {
            FileHandle.standardError.write(Data("Password: ".utf8))
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSANOW, &quiet)
        }
        defer {
            if terminal {
                tcsetattr(0, TCSANOW, &saved)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        let input = terminal ? (readLine(strippingNewline: true) ?? "") : String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        var password = Substring(input)
        while let last = password.last, last == "\n" || last == "\r" { password = password.dropLast() }
        return String(password)
    }
}

/// `soar admin list`.
struct AdminListCommand: Command {
    static let name = "admin list"
    static let summary = "List the console's administrators."
    static let options = databaseOptions
    static let discussion = "One line each: email, added, last sign-in."

    let database: DatabaseChoice

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        database = try DatabaseChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        let (store, close) = try adminStore(database)
        defer { close() }
        let admins: [ConsoleAdmin]
        do { admins = try store.admins() } catch { throw .configuration(error.message) }
        if admins.isEmpty { console.print("no administrators (soar admin add EMAIL --password-stdin)") }
        for admin in admins { console.print("\(admin.email)\tadded \(admin.createdAt)\tlast sign-in \(admin.lastSignInAt ?? "never")") }
    }
}

/// `soar admin remove EMAIL`: the administrator and their sessions go.
struct AdminRemoveCommand: Command {
    static let name = "admin remove"
    static let summary = "Remove a console administrator (their sessions end)."
    static let options = databaseOptions
    static let discussion = "Exit codes: 0 removed; 2 no such administrator."

    let database: DatabaseChoice
    let email: String

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.count == 1 else { throw .usage("name one email: soar admin remove EMAIL") }
        email = arguments.positionals[0].trimmingCharacters(in: .whitespaces).lowercased()
        database = try DatabaseChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        let (store, close) = try adminStore(database)
        defer { close() }
        let removed: Bool
        do { removed = try store.removeAdmin(email: email) } catch { throw .configuration(error.message) }
        guard removed else { throw .usage("\(email) is not an administrator") }
        console.print("removed administrator \(email)")
    }
}
