import Foundation
import SoarStore

/// `soar backup FILE`: a consistent copy of the SQLite database, taken while the server runs.
struct BackupCommand: Command {
    static let name = "backup"
    static let summary = "Copy the live SQLite database to a new file, consistently, while soar serve runs."
    static let options = [
        Option("--db", value: "PATH", help: "SQLite file (default ./soar.db, or SOAR_DB)."),
        Option("--database-url", value: "URL", help: "PostgreSQL: refused, with what to run instead."),
    ]
    static let discussion = """
        Usage: soar backup FILE. The copy is of one moment (every transaction committed before it,
        none after), through SQLite's online backup, and is written under a temporary name then
        renamed, so FILE is either whole or absent. FILE must not exist. The API keys' secret is
        not in it: keep <db>.jwt-secret (or JWT_SECRET) with your backups. PostgreSQL has its own
        tools: pg_dump for a copy, pg_restore or psql to load one.
        Exit codes: 0 copied; 2 no database, FILE exists, or the copy failed.
        """

    let database: DatabaseChoice
    let destination: String

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.count == 1 else { throw .usage("name the file to copy to: soar backup FILE") }
        destination = arguments.positionals[0]
        database = try DatabaseChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        guard case .sqlite(let path) = database else {
            throw .configuration("soar backup copies SQLite files; for PostgreSQL run pg_dump \"$DATABASE_URL\" > FILE (and psql or pg_restore to load it)")
        }
        let bytes: Int
        do { bytes = try SQLiteBackup.backUp(path, to: destination) } catch { throw .configuration(error.message) }
        console.print("backed up \(path) to \(destination) (\(ByteCountFormatter.string(fromByteCount: Int64(bytes), countStyle: .file)))")
    }
}

/// `soar restore FILE`: the database replaced by a copy `soar backup` made.
struct RestoreCommand: Command {
    static let name = "restore"
    static let summary = "Replace the SQLite database with a backup (soar serve must be stopped)."
    static let options = [
        Option("--db", value: "PATH", help: "SQLite file to replace (default ./soar.db, or SOAR_DB)."),
        Option("--database-url", value: "URL", help: "PostgreSQL: refused, with what to run instead."),
    ]
    static let discussion = """
        Usage: soar restore FILE. FILE is checked first (a Soar database, SQLite's integrity
        check); then the database's contents become FILE's. A running soar serve holds the
        database's lock, and restore refuses to run beside it. Start soar serve again afterwards:
        migrations newer than the backup are applied then.
        Exit codes: 0 restored; 2 no backup, a damaged one, or the server still runs.
        """

    let database: DatabaseChoice
    let source: String

    init(_ arguments: Arguments) throws(CommandError) {
        guard arguments.positionals.count == 1 else { throw .usage("name the backup to restore: soar restore FILE") }
        source = arguments.positionals[0]
        database = try DatabaseChoice(arguments)
    }

    func run(_ console: Console) async throws(CommandError) {
        guard case .sqlite(let path) = database else {
            throw .configuration("soar restore loads SQLite files; for PostgreSQL load a pg_dump with psql \"$DATABASE_URL\" < FILE (or pg_restore)")
        }
        do { try SQLiteBackup.restore(source, to: path) } catch { throw .configuration(error.message) }
        console.print("restored \(path) from \(source)")
    }
}
