import Foundation
import SoarCore

/// A console administrator: separate from the app's users.
public struct ConsoleAdmin: Sendable, Equatable {
    public let id: String
    public let email: String
    public let createdAt: String
    public let lastSignInAt: String?
}

/// The console's administrators and their sessions (`soar admin add`, the console's sign-in).
/// A session is kept by the hash of its cookie's token, never the token itself.
public protocol AdminStore: Sendable {
    /// - Throws: ``StoreError`` 23505 when the email has an administrator already.
    func addAdmin(email: String, passwordHash: String) throws(StoreError) -> ConsoleAdmin
    func admins() throws(StoreError) -> [ConsoleAdmin]
    /// Removes the administrator and their sessions; false when there was none.
    func removeAdmin(email: String) throws(StoreError) -> Bool
    /// The administrator of `email` and their password's hash.
    func adminCredentials(email: String) throws(StoreError) -> (admin: ConsoleAdmin, passwordHash: String)?
    func createAdminSession(tokenHash: String, adminID: String, csrf: String, expiresAt: String) throws(StoreError)
    /// The live session of a token's hash at `now`, with its administrator and CSRF token.
    func adminSession(tokenHash: String, now: String) throws(StoreError) -> (admin: ConsoleAdmin, csrf: String)?
    func deleteAdminSession(tokenHash: String) throws(StoreError)
}

/// The console's SQL, written once for both stores.
struct AdminQueries {
    let dialect: SQLDialect

    private var admins: String { dialect == .postgres ? "soar.admins" : "soar_admins" }
    private var sessions: String { dialect == .postgres ? "soar.admin_sessions" : "soar_admin_sessions" }
    private func time(_ parameter: String) -> String { dialect == .postgres ? "\(parameter)::timestamptz" : parameter }
    private func text(_ column: String) -> String {
        dialect == .postgres ? "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')" : column
    }
    private var columns: String { "id, email, \(text("created_at")), \(text("last_sign_in_at"))" }

    func add(email: String, passwordHash: String, at time: String, on connection: some SQLConnection) throws(StoreError) -> ConsoleAdmin {
        let id = RandomUUID.lowercase()
        try connection.rows(
            "INSERT INTO \(admins) (id, email, password_hash, created_at) VALUES ($1, $2, $3, \(self.time("$4")))",
            [.text(id), .text(email), .text(passwordHash), .text(time)])
        return ConsoleAdmin(id: id, email: email, createdAt: time, lastSignInAt: nil)
    }

    func all(on connection: some SQLConnection) throws(StoreError) -> [ConsoleAdmin] {
        try connection.rows("SELECT \(columns) FROM \(admins) ORDER BY email").compactMap(Self.admin)
    }

    func remove(email: String, on connection: some SQLConnection) throws(StoreError) -> Bool {
        !(try connection.rows("DELETE FROM \(admins) WHERE email = $1 RETURNING id", [.text(email)]).isEmpty)
    }

    func credentials(email: String, on connection: some SQLConnection) throws(StoreError) -> (admin: ConsoleAdmin, passwordHash: String)? {
        guard let row = try connection.rows("SELECT \(columns), password_hash FROM \(admins) WHERE email = $1", [.text(email)]).first,
            let admin = Self.admin(row), let hash = row[4].text
        else { return nil }
        return (admin, hash)
    }

    func createSession(tokenHash: String, adminID: String, csrf: String, expiresAt: String, now: String, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("DELETE FROM \(sessions) WHERE expires_at < \(time("$1"))", [.text(now)])
        try connection.rows(
            "INSERT INTO \(sessions) (token_hash, admin_id, csrf, created_at, expires_at) VALUES ($1, $2, $3, \(time("$4")), \(time("$5")))",
            [.text(tokenHash), .text(adminID), .text(csrf), .text(now), .text(expiresAt)])
        try connection.rows("UPDATE \(admins) SET last_sign_in_at = \(time("$2")) WHERE id = $1", [.text(adminID), .text(now)])
    }

    func session(tokenHash: String, now: String, on connection: some SQLConnection) throws(StoreError) -> (admin: ConsoleAdmin, csrf: String)? {
        let prefixed = "a.id, a.email, \(text("a.created_at")), \(text("a.last_sign_in_at"))"
        guard let row = try connection.rows(
            "SELECT \(prefixed), s.csrf FROM \(sessions) s JOIN \(admins) a ON a.id = s.admin_id WHERE s.token_hash = $1 AND s.expires_at > \(time("$2"))",
            [.text(tokenHash), .text(now)]).first,
            let admin = Self.admin(row), let csrf = row[4].text
        else { return nil }
        return (admin, csrf)
    }

    func deleteSession(tokenHash: String, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("DELETE FROM \(sessions) WHERE token_hash = $1", [.text(tokenHash)])
    }

    private static func admin(_ row: [SQLValue]) -> ConsoleAdmin? {
        guard let id = row[0].text, let email = row[1].text else { return nil }
        return ConsoleAdmin(id: id, email: email, createdAt: row[2].text ?? "", lastSignInAt: row[3].text)
    }
}
