import Foundation
import SoarStore

/// `soar migrate`: applies the schema's pending migrations to the database and lists them.
struct MigrateCommand: Command {
    static let name = "migrate"
    static let summary = "Apply pending database migrations (soar serve also does on start)."
    static let options = [
        Option("--db", value: "PATH", help: "SQLite file (default ./soar.db, or SOAR_DB)."),
        Option("--database-url", value: "URL", help: "PostgreSQL instead of SQLite (or DATABASE_URL)."),
    ]

    let database: DatabaseChoice

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        database = try DatabaseChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        let store = try database.open()
        defer { store.close() }
        let total: Int
        do { total = try store.appliedMigrations().count } catch { throw .configuration(error.message) }
        if store.newlyApplied.isEmpty {
            console.print("\(database.name): up to date (\(total) migrations)")
        } else {
            console.print("\(database.name): applied \(store.newlyApplied.joined(separator: ", ")) (\(total) migrations)")
        }
    }
}
