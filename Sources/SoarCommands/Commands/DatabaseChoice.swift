import Foundation
import SoarSchema
import SoarStore

/// Which database a command uses: flags first (`--database-url` for PostgreSQL, `--db` for a
/// SQLite file; not both), then `DATABASE_URL`, then `SOAR_DB`, then `./soar.db`.
enum DatabaseChoice {
    case sqlite(path: String)
    case postgres(url: String)

    /// - Throws: ``CommandError/usage(_:)`` for both flags, or one given empty.
    init(_ arguments: Arguments) throws(CommandError) {
        let url = arguments.value("--database-url")
        let path = arguments.value("--db")
        if url != nil && path != nil { throw .usage("give --db (SQLite) or --database-url (PostgreSQL), not both") }
        if url?.isEmpty == true { throw .usage("--database-url is empty: give a postgres:// URL, or leave it out for SQLite") }
        if path?.isEmpty == true { throw .usage("--db is empty: give the SQLite file's path") }
        let environment = arguments.environment
        if let url = url ?? (path == nil ? environment["DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 } : nil) {
            // A URL of another database (mysql://) would reach libpq as a setting it does not know.
            let scheme = url.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            if url.contains("://") && !["postgres", "postgresql"].contains(scheme.lowercased()) {
                throw .usage("the database URL must be PostgreSQL's (postgres://user:password@host:port/database), not \(scheme)://…")
            }
            self = .postgres(url: url)
        } else {
            let path = path ?? environment["SOAR_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "soar.db"
            self = .sqlite(path: APNsEmulatorCommand.absolute(path))
        }
    }

    /// Storage's default directory: `storage` beside the SQLite file, or in the working directory.
    var storageDirectory: String {
        guard case .sqlite(let path) = self else { return "storage" }
        return (path as NSString).deletingLastPathComponent + "/storage"
    }

    /// Opens (creating and migrating) the database, applying the app's migrations `app`.
    func open(app: [MigrationFile], synchronous: SQLiteSynchronous = .full) throws(CommandError) -> any Store {
        do {
            switch self {
            case .sqlite(let path): return try SQLiteStore(path: path, app: app, synchronous: synchronous)
            case .postgres(let url): return try PostgresStore(url: url, app: app)
            }
        } catch {
            throw .configuration(error.message)
        }
    }

    /// The files a start may create: the SQLite file with its WAL, index and lock, and the secret.
    var files: [String] {
        switch self {
        case .sqlite(let path): ["", "-wal", "-shm", ".lock"].map { path + $0 } + [secretFile]
        case .postgres: [secretFile]
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
