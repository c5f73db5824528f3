import Foundation
import SoarCore

/// The console's administrators on SQLite: ``AdminQueries`` on the store's connections.
extension SQLiteStore {
    private static let adminQueries = AdminQueries(dialect: .sqlite)

    public func addAdmin(email: String, passwordHash: String) throws(StoreError) -> ConsoleAdmin {
        let time = Timestamp.postgres(now())
        return try write { connection throws(StoreError) in try Self.adminQueries.add(email: email, passwordHash: passwordHash, at: time, on: connection) }
    }

    public func admins() throws(StoreError) -> [ConsoleAdmin] {
        try read { connection throws(StoreError) in try Self.adminQueries.all(on: connection) }
    }

    public func removeAdmin(email: String) throws(StoreError) -> Bool {
        try write { connection throws(StoreError) in try Self.adminQueries.remove(email: email, on: connection) }
    }

    public func adminCredentials(email: String) throws(StoreError) -> (admin: ConsoleAdmin, passwordHash: String)? {
        try read { connection throws(StoreError) in try Self.adminQueries.credentials(email: email, on: connection) }
    }

    public func createAdminSession(tokenHash: String, adminID: String, csrf: String, expiresAt: String) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            try Self.adminQueries.createSession(tokenHash: tokenHash, adminID: adminID, csrf: csrf, expiresAt: expiresAt, now: time, on: connection)
        }
    }

    public func adminSession(tokenHash: String, now: String) throws(StoreError) -> (admin: ConsoleAdmin, csrf: String)? {
        try read { connection throws(StoreError) in try Self.adminQueries.session(tokenHash: tokenHash, now: now, on: connection) }
    }

    public func deleteAdminSession(tokenHash: String) throws(StoreError) {
        try write { connection throws(StoreError) in try Self.adminQueries.deleteSession(tokenHash: tokenHash, on: connection) }
    }

    public func deviceCounts() throws(StoreError) -> [DeviceCount] {
        guard let table = tables["device_tokens"] else { return [] }
        return try read { connection throws(StoreError) in try DeviceCounting(dialect: .sqlite).counts(table, on: connection) }
    }
}
