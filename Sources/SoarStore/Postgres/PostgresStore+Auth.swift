import Foundation
import SoarCore

/// GoTrue's tables in the `auth` schema, run as the server's own role.
///
/// Unlike the SQLite store, sessions are not cached in memory: another process on the same
/// database may end one at any time.
extension PostgresStore {
    private static let userColumns =
        "id, aud, role, email, phone, encrypted_password, is_anonymous, app_metadata, user_metadata, email_confirmed_at, last_sign_in_at, created_at, updated_at"

    public func createUser(_ user: AuthUser) throws(StoreError) {
        let sql = "INSERT INTO auth.users (\(Self.userColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        try run { connection throws(StoreError) in _ = try connection.query(sql, Self.values(user)) }
    }

    public func user(id: String) throws(StoreError) -> AuthUser? {
        guard RandomUUID.parse(id) != nil else { return nil }
        return try run { connection throws(StoreError) in
            try connection.query("SELECT \(Self.userColumns) FROM auth.users WHERE id = $1", [id]).first.map(Self.user)
        }
    }

    public func user(email: String) throws(StoreError) -> AuthUser? {
        try run { connection throws(StoreError) in
            try connection.query("SELECT \(Self.userColumns) FROM auth.users WHERE lower(email) = lower($1)", [email]).first.map(Self.user)
        }
    }

    public func updateUser(_ user: AuthUser) throws(StoreError) {
        let sql = """
            UPDATE auth.users SET aud = $2, role = $3, email = $4, phone = $5, encrypted_password = $6, is_anonymous = $7,
            app_metadata = $8, user_metadata = $9, email_confirmed_at = $10, last_sign_in_at = $11, created_at = $12, updated_at = $13
            WHERE id = $1
            """
        try run { connection throws(StoreError) in _ = try connection.query(sql, Self.values(user)) }
    }

    public func deleteUser(id: String) throws(StoreError) -> Bool {
        guard RandomUUID.parse(id) != nil else { return false }
        defer { recentSessions.forgetAll() }
        return try run { connection throws(StoreError) in
            !(try connection.query("DELETE FROM auth.users WHERE id = $1 RETURNING id", [id]).isEmpty)
        }
    }

    public func users(offset: Int, limit: Int) throws(StoreError) -> (users: [AuthUser], total: Int) {
        try run { connection throws(StoreError) in
            let rows = try connection.query("SELECT \(Self.userColumns) FROM auth.users ORDER BY created_at, id LIMIT $1 OFFSET $2", [String(limit), String(offset)])
            let total = try connection.query("SELECT count(*) FROM auth.users")
            return (rows.map(Self.user), Int(total.first?.first.flatMap { $0 } ?? "") ?? rows.count)
        }
    }

    public func createSession(id: String, userID: String, refreshTokenHash: String, now: String) throws(StoreError) {
        try run { connection throws(StoreError) in
            try connection.query("INSERT INTO auth.sessions (id, user_id, created_at, updated_at) VALUES ($1, $2, $3, $3)", [id, userID, now])
            try connection.query(
                "INSERT INTO auth.refresh_tokens (token_hash, session_id, user_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
                [refreshTokenHash, id, userID, now])
            try connection.query("UPDATE auth.users SET last_sign_in_at = $2 WHERE id = $1", [userID, now])
        }
    }

    public func sessionExists(_ id: String) throws(StoreError) -> Bool {
        guard RandomUUID.parse(id) != nil else { return false }
        // The wall clock, not the injected one: this is a cache's age, not a token's.
        if recentSessions.contains(id, now: Date()) { return true }
        let exists = try transaction(as: nil) { connection throws(StoreError) in
            !(try connection.query("SELECT 1 FROM auth.sessions WHERE id = $1", [id]).isEmpty)
        }
        if exists { recentSessions.remember(id, now: Date()) }
        return exists
    }

    public func deleteSessions(userID: String, only: String?, except: String?) throws(StoreError) {
        defer { recentSessions.forgetAll() }
        try run { connection throws(StoreError) in
            if let only {
                try connection.query("DELETE FROM auth.sessions WHERE user_id = $1 AND id::text = $2", [userID, only])
            } else {
                try connection.query("DELETE FROM auth.sessions WHERE user_id = $1 AND id::text <> $2", [userID, except ?? ""])
            }
        }
    }

    public func refresh(tokenHash: String, successorHashes: [String], now: Date, reuseGrace: TimeInterval) throws(StoreError) -> RefreshOutcome {
        let time = Timestamp.postgres(now)
        return try run { connection throws(StoreError) -> RefreshOutcome in
            // FOR UPDATE: two processes presenting the same token take turns, as SQLite's one writer does.
            let found = try connection.query(
                "SELECT t.id, t.session_id, t.user_id, t.revoked, t.updated_at FROM auth.refresh_tokens t JOIN auth.sessions s ON s.id = t.session_id WHERE t.token_hash = $1 FOR UPDATE OF t",
                [tokenHash])
            guard let row = found.first, let id = row[0], let session = row[1], let user = row[2], let revoked = row[3], let usedAt = row[4] else {
                return .notFound
            }
            let insert = "INSERT INTO auth.refresh_tokens (token_hash, session_id, user_id, parent, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)"
            if revoked == "t" {
                let found = try connection.query(
                    "SELECT token_hash, revoked FROM auth.refresh_tokens WHERE session_id = $1 AND token_hash = ANY($2::text[])",
                    [session, "{" + successorHashes.joined(separator: ",") + "}"])
                let stored = Dictionary(found.compactMap { row -> (String, Bool)? in
                    guard let hash = row[0], let revoked = row[1] else { return nil }
                    return (hash, revoked == "t")
                }, uniquingKeysWith: { first, _ in first })
                let outcome = RefreshOutcome.reusedToken(
                    userID: user, sessionID: session, usedAt: Timestamp.parse(usedAt), successors: successorHashes.map { stored[$0] },
                    now: now, reuseGrace: reuseGrace)
                if outcome == .reused {
                    recentSessions.forgetAll()
                    try connection.query("DELETE FROM auth.sessions WHERE id = $1", [session])
                }
                return outcome
            }
            try connection.query("UPDATE auth.refresh_tokens SET revoked = true, updated_at = $2 WHERE id = $1", [id, time])
            try connection.query(insert, [successorHashes[0], session, user, id, time])
            try connection.query("UPDATE auth.sessions SET updated_at = $2 WHERE id = $1", [session, time])
            return .rotated(userID: user, sessionID: session)
        }
    }

    /// Runs `body` in a transaction as the server's own role.
    @discardableResult
    func run<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try transaction(as: nil, body)
    }

    private static func values(_ user: AuthUser) -> [String?] {
        [
            user.id, user.aud, user.role, user.email, user.phone, user.passwordHash, user.isAnonymous ? "true" : "false",
            JSONValue.object(user.appMetadata).jsonText, JSONValue.object(user.userMetadata).jsonText, user.emailConfirmedAt,
            user.lastSignInAt, user.createdAt, user.updatedAt,
        ]
    }

    private static func user(_ row: [String?]) -> AuthUser {
        func time(_ index: Int) -> String? { row[index].map { Timestamp.parse($0).map(Timestamp.postgres) ?? $0 } }
        func object(_ index: Int) -> [String: JSONValue] {
            row[index].flatMap { try? JSONValue.read(Data($0.utf8)) }?.objectValue ?? [:]
        }
        var user = AuthUser(id: row[0] ?? "", createdAt: time(11) ?? "")
        user.aud = row[1] ?? "authenticated"
        user.role = row[2] ?? "authenticated"
        user.email = row[3]
        user.phone = row[4]
        user.passwordHash = row[5]
        user.isAnonymous = row[6] == "t"
        user.appMetadata = object(7)
        user.userMetadata = object(8)
        user.emailConfirmedAt = time(9)
        user.lastSignInAt = time(10)
        user.updatedAt = time(12) ?? user.createdAt
        return user
    }
}
