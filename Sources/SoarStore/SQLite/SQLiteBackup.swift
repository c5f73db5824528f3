import CSQLite
import Foundation
import SoarCore

/// `soar backup` and `soar restore`: SQLite's online backup, a consistent copy of a database
/// that a running server keeps writing to (the copy is of one moment: every transaction
/// committed before it, none after).
public enum SQLiteBackup {
    /// Copies the database at `path` to a new file `destination` (written beside it under a
    /// temporary name, then renamed, so a copy that did not finish is never found there).
    ///
    /// - Returns: the copy's size in bytes.
    /// - Throws: ``StoreError`` when `path` is no Soar database, `destination` exists, or the disk fails.
    public static func backUp(_ path: String, to destination: String) throws(StoreError) -> Int {
        guard FileManager.default.fileExists(atPath: path) else { throw .unavailable("there is no database at \(path)") }
        guard !FileManager.default.fileExists(atPath: destination) else { throw .unavailable("\(destination) exists already; name a new file") }
        let source = try SQLiteConnection(path: path, readOnly: true)
        try requireSoarDatabase(source, path)
        let partial = destination + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            let copy = try SQLiteConnection(path: partial, readOnly: false)
            try source.copy(into: copy)
            try copy.execute("PRAGMA journal_mode = DELETE")
        }
        guard rename(partial, destination) == 0 else {
            throw .unavailable("cannot name the copy \(destination): \(String(cString: strerror(errno)))")
        }
        chmod(destination, 0o600)
        return (try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? Int) ?? 0
    }

    /// Replaces the database at `path` with the copy at `backup`, checked first. No server may
    /// have it open (the file's lock says so).
    ///
    /// - Throws: ``StoreError`` when a server runs on it, or `backup` is no sound Soar database.
    public static func restore(_ backup: String, to path: String) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: backup) else { throw .unavailable("there is no backup at \(backup)") }
        let source = try SQLiteConnection(path: backup, readOnly: true)
        try requireSoarDatabase(source, backup)
        let integrity = try source.statement("PRAGMA integrity_check").rows([])
        guard integrity.first?.first == .text("ok") else { throw .unavailable("\(backup) is damaged (SQLite's integrity check failed)") }
        // Taking the file's lock refuses a running server, and keeps one from starting meanwhile.
        let ownership = try FileOwnership(path: path)
        defer { withExtendedLifetime(ownership) {} }
        let target = try SQLiteConnection(path: path, readOnly: false)
        try target.execute("PRAGMA journal_mode = WAL")
        try source.copy(into: target)
        try target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private static func requireSoarDatabase(_ connection: SQLiteConnection, _ path: String) throws(StoreError) {
        let found = (try? connection.statement("SELECT count(*) FROM sqlite_master WHERE name = 'soar_migrations'").rows([]))?.first?.first
        guard found == .integer(1) else { throw .unavailable("\(path) is not a Soar database") }
    }
}

extension SQLiteConnection {
    /// Copies this connection's database into `destination`'s, whole, in one step (one read
    /// transaction here: one consistent moment), through SQLite's backup API.
    func copy(into destination: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw .unavailable("cannot start the copy: \(destination.lastMessage)")
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            throw .unavailable("the copy failed: \(destination.lastMessage)")
        }
    }
}
