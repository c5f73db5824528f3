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
        let store = try database.open(app: try migrations.files())
        defer { store.close() }
        let own: Int, app: Int
        do {
            own = try store.appliedMigrations().count
            app = try store.appliedAppMigrations().count
        } catch {
            throw .configuration(error.message)
        }
        let done = store.newlyApplied.isEmpty ? "up to date" : "applied \(store.newlyApplied.joined(separator: ", "))"
        console.print("\(database.name): \(done) (Soar: \(own) migrations; the app: \(app) from \(migrations.name))")
    }
}
