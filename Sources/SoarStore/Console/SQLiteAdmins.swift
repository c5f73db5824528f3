import Foundation
import SoarCore

/// `soar admin` on a SQLite file, whether or not a server has it open: one SQLite connection of
/// its own (SQLite serializes it with the server's writes), on a file migrated already.
public struct SQLiteAdmins: AdminStore {
    private let connection: SQLiteConnection
    private let queries = AdminQueries(dialect: .sqlite)

    /// - Throws: ``StoreError`` when the file is missing or is not a migrated Soar database.
    public init(path: String) throws(StoreError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .unavailable("there is no database at \(path) (soar serve or soar migrate makes it)") }
        connection = try SQLiteConnection(path: path, readOnly: false)
        guard try !connection.statement("SELECT 1 FROM sqlite_master WHERE name = 'soar_admins'").rows([]).isEmpty else {
            throw .unavailable("\(path) has no administrators' table yet: run soar migrate (or start soar serve) with this version first")
        }
    }

    private func now() -> String { Timestamp.postgres(Date()) }

    public func addAdmin(email: String, passwordHash: String) throws(StoreError) -> ConsoleAdmin {
        try queries.add(email: email, passwordHash: passwordHash, at: now(), on: connection)
    }

    public func admins() throws(StoreError) -> [ConsoleAdmin] { try queries.all(on: connection) }

    public func removeAdmin(email: String) throws(StoreError) -> Bool { try queries.remove(email: email, on: connection) }

    public func adminCredentials(email: String) throws(StoreError) -> (admin: ConsoleAdmin, passwordHash: String)? {
        try queries.credentials(email: email, on: connection)
    }

    public func createAdminSession(tokenHash: String, adminID: String, csrf: String, expiresAt: String) throws(StoreError) {
        try queries.createSession(tokenHash: tokenHash, adminID: adminID, csrf: csrf, expiresAt: expiresAt, now: now(), on: connection)
    }

    public func adminSession(tokenHash: String, now: String) throws(StoreError) -> (admin: ConsoleAdmin, csrf: String)? {
        try queries.session(tokenHash: tokenHash, now: now, on: connection)
    }

    public func deleteAdminSession(tokenHash: String) throws(StoreError) { try queries.deleteSession(tokenHash: tokenHash, on: connection) }
}
