import Foundation
import SoarStore

/// Which database a command uses: PostgreSQL when `--database-url` or `DATABASE_URL` is set,
/// else the SQLite file from `--db` or `SOAR_DB` (default `./soar.db`).
enum DatabaseChoice {
    case sqlite(path: String)
    case postgres(url: String)

    init(_ arguments: Arguments) {
        if let url = arguments.value("--database-url") ?? arguments.environment["DATABASE_URL"], !url.isEmpty {
            self = .postgres(url: url)
        } else {
            let path = arguments.value("--db") ?? arguments.environment["SOAR_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "soar.db"
            self = .sqlite(path: APNsEmulatorCommand.absolute(path))
        }
    }

    /// Opens (creating and migrating) the database.
    func open() throws(CommandError) -> any Store {
        do {
            switch self {
            case .sqlite(let path): return try SQLiteStore(path: path)
            case .postgres(let url): return try PostgresStore(url: url)
            }
        } catch {
            throw .configuration(error.message)
        }
    }

    /// Where a generated JWT secret is kept: beside the SQLite file, or `./soar.jwt-secret` for
    /// Postgres (several processes on one database need the same JWT_SECRET instead).
    var secretFile: String {
        switch self {
        case .sqlite(let path): path + ".jwt-secret"
        case .postgres: APNsEmulatorCommand.absolute("soar.jwt-secret")
        }
    }

    /// The database as messages name it (a Postgres URL without its password).
    var name: String {
        switch self {
        case .sqlite(let path): path
        case .postgres(let url): PostgresStore.withoutPassword(url)
        }
    }
}
