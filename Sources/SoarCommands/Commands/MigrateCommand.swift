import Foundation
import SoarStore

/// `soar migrate`: applies Soar's own pending migrations and the app's, and lists what it did.
struct MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "Apply pending database migrations, Soar's and the app's (soar serve also does on start)."
    static let options = [
        Option("--db", value: "PATH", help: "SQLite file (default ./soar.db, or SOAR_DB)."),
        Option("--database-url", value: "URL", help: "PostgreSQL instead of SQLite (or DATABASE_URL)."),
        MigrationsChoice.option,
    ]
    static let discussion = """
        The app's migrations run in version order, each once, each in its own transaction. A file
        that fails is named with its line and column, and nothing of it is applied. An applied
        file that has changed since is an error: add a new file instead.
        Exit codes: 0 up to date; 2 a migration failed or the database cannot be opened.
        """

    let database: DatabaseChoice
    let migrations: MigrationsChoice

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        database = try DatabaseChoice(arguments)
        migrations = try MigrationsChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        let files = try migrations.files()
        let (before, own) = try Self.before(database)
        let store = try database.open(app: files)
        defer { store.close() }
        let ownCount: Int, app: [String]
        do {
            ownCount = try store.appliedMigrations().count
            app = try store.appliedAppMigrations().map { "\($0.version)_\($0.name).sql" }
        } catch {
            throw .configuration(error.message)
        }
        let applied = own + app.dropFirst(before)
        let totals = "Soar: \(ownCount) migrations; the app: \(app.count) from \(migrations.name)"
        console.print("\(database.name): " + (applied.isEmpty ? "up to date" : "applied \(applied.joined(separator: ", "))") + " (\(totals))")
    }

    /// How many of the app's migrations were applied before, and which of Soar's own this open applied.
    private static func before(_ database: DatabaseChoice) throws(CommandError) -> (Int, [String]) {
        let store = try database.open(app: [])
        defer { store.close() }
        do { return (try store.appliedAppMigrations().count, store.newlyApplied) } catch { throw .configuration(error.message) }
    }
}
