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

    let database: String

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.isEmpty else { throw .usage("unexpected argument \(arguments.positionals[0])") }
        database = arguments.value("--db") ?? arguments.environment["SOAR_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "soar.db"
        if let url = arguments.value("--database-url") ?? arguments.environment["DATABASE_URL"], !url.isEmpty {
            throw .configuration("DATABASE_URL / --database-url: this build migrates SQLite only (PostgreSQL is not built yet)")
        }
    }

    func run(_ console: Console) async throws(CommandError) {
        let path = APNsEmulatorCommand.absolute(database)
        do {
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            let total = try store.appliedMigrations().count
            if store.newlyApplied.isEmpty {
                console.print("\(path): up to date (\(total) migrations)")
            } else {
                console.print("\(path): applied \(store.newlyApplied.joined(separator: ", ")) (\(total) migrations)")
            }
        } catch {
            throw .configuration(error.message)
        }
    }
}
