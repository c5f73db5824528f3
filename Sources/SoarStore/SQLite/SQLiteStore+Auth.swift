import Foundation
import SoarCore

extension SQLiteStore {
    private static let userColumns =
        "id, aud, role, email, phone, encrypted_password, is_anonymous, app_metadata, user_metadata, email_confirmed_at, last_sign_in_at, created_at, updated_at"

    public func createUser(_ user: AuthUser) throws(StoreError) {
        let sql = "INSERT INTO auth_users (\(Self.userColumns)) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
        try write { connection throws(StoreError) in try connection.statement(sql).run(Self.values(user)) }
    }

    public func user(id: String) throws(StoreError) -> AuthUser? {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT \(Self.userColumns) FROM auth_users WHERE id = ?1").rows([.text(id)]).first.map(Self.user)
        }
    }

    public func user(email: String) throws(StoreError) -> AuthUser? {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT \(Self.userColumns) FROM auth_users WHERE email = ?1").rows([.text(email)]).first.map(Self.user)
        }
    }

    public func updateUser(_ user: AuthUser) throws(StoreError) {
        let sql = """
            UPDATE auth_users SET aud = ?2, role = ?3, email = ?4, phone = ?5, encrypted_password = ?6, is_anonymous = ?7,
            app_metadata = ?8, user_metadata = ?9, email_confirmed_at = ?10, last_sign_in_at = ?11, created_at = ?12, updated_at = ?13
            WHERE id = ?1
            """
        try write { connection throws(StoreError) in try connection.statement(sql).run(Self.values(user)) }
    }

    public func deleteUser(id: String) throws(StoreError) -> Bool {
        defer { liveSessions.forgetAll() }
        return try write { connection throws(StoreError) in
            !(try connection.statement("DELETE FROM auth_users WHERE id = ?1 RETURNING id").rows([.text(id)]).isEmpty)
        }
    }

    public func users(offset: Int, limit: Int) throws(StoreError) -> (users: [AuthUser], total: Int) {
        try read { connection throws(StoreError) in
            let rows = try connection.statement("SELECT \(Self.userColumns) FROM auth_users ORDER BY created_at, id LIMIT ?1 OFFSET ?2")
                .rows([.integer(Int64(limit)), .integer(Int64(offset))])
            let total = try connection.statement("SELECT count(*) FROM auth_users").rows([])
            guard case .integer(let count) = total.first?.first else { return (rows.map(Self.user), rows.count) }
            return (rows.map(Self.user), Int(count))
        }
    }

    public func createSession(id: String, userID: String, refreshTokenHash: String, now: String) throws(StoreError) {
        try write { connection throws(StoreError) in
            try connection.statement("INSERT INTO auth_sessions (id, user_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)")
                .run([.text(id), .text(userID), .text(now)])
            try connection.statement(
                "INSERT INTO auth_refresh_tokens (token_hash, session_id, user_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)"
            ).run([.text(refreshTokenHash), .text(id), .text(userID), .text(now)])
            try connection.statement("UPDATE auth_users SET last_sign_in_at = ?2 WHERE id = ?1").run([.text(userID), .text(now)])
        }
    }

    public func sessionExists(_ id: String) throws(StoreError) -> Bool {
        let (known, generation) = liveSessions.lookup(id)
        if known { return true }
        let exists = try read { connection throws(StoreError) in
            !(try connection.statement("SELECT 1 FROM auth_sessions WHERE id = ?1").rows([.text(id)]).isEmpty)
        }
        if exists { liveSessions.remember(id, from: generation) }
        return exists
    }

    public func deleteSessions(userID: String, only: String?, except: String?) throws(StoreError) {
        defer { liveSessions.forgetAll() }
        try write { connection throws(StoreError) in
            if let only {
                try connection.statement("DELETE FROM auth_sessions WHERE user_id = ?1 AND id = ?2").run([.text(userID), .text(only)])
            } else {
                try connection.statement("DELETE FROM auth_sessions WHERE user_id = ?1 AND id <> ?2").run([.text(userID), .text(except ?? "")])
            }
        }
    }

    public func refresh(tokenHash: String, successorHashes: [String], now: Date, reuseGrace: TimeInterval) throws(StoreError) -> RefreshOutcome {
        let time = Timestamp.postgres(now)
        let outcome = try write { connection throws(StoreError) -> RefreshOutcome in
            let found = try connection.statement(
                "SELECT t.id, t.session_id, t.user_id, t.revoked, t.updated_at FROM auth_refresh_tokens t JOIN auth_sessions s ON s.id = t.session_id WHERE t.token_hash = ?1"
            ).rows([.text(tokenHash)])
            guard let row = found.first, case .integer(let id) = row[0], case .text(let session) = row[1], case .text(let user) = row[2],
                case .integer(let revoked) = row[3], case .text(let usedAt) = row[4]
            else { return .notFound }
            let insert = "INSERT INTO auth_refresh_tokens (token_hash, session_id, user_id, parent, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)"
            if revoked != 0 {
                // GoTrue's reuse detection: a used token again, after the grace for parallel refreshes, ends the session.
                let placeholders = successorHashes.indices.map { "?\($0 + 2)" }.joined(separator: ", ")
                let found = try connection.statement(
                    "SELECT token_hash, revoked FROM auth_refresh_tokens WHERE session_id = ?1 AND token_hash IN (\(placeholders))"
                ).rows([.text(session)] + successorHashes.map { .text($0) })
                let stored = Dictionary(found.compactMap { row -> (String, Bool)? in
                    guard case .text(let hash) = row[0], case .integer(let revoked) = row[1] else { return nil }
                    return (hash, revoked != 0)
                }, uniquingKeysWith: { first, _ in first })
                let outcome = RefreshOutcome.reusedToken(
                    userID: user, sessionID: session, usedAt: Timestamp.parse(usedAt), successors: successorHashes.map { stored[$0] },
                    now: now, reuseGrace: reuseGrace)
                if outcome == .reused { try connection.statement("DELETE FROM auth_sessions WHERE id = ?1").run([.text(session)]) }
                return outcome
            }
            try connection.statement("UPDATE auth_refresh_tokens SET revoked = 1, updated_at = ?2 WHERE id = ?1").run([.integer(id), .text(time)])
            try connection.statement(insert).run([.text(successorHashes[0]), .text(session), .text(user), .integer(id), .text(time)])
            try connection.statement("UPDATE auth_sessions SET updated_at = ?2 WHERE id = ?1").run([.text(session), .text(time)])
            return .rotated(userID: user, sessionID: session)
        }
        if case .reused = outcome { liveSessions.forgetAll() }
        return outcome
    }

    private static func values(_ user: AuthUser) -> [SQLValue] {
        func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
        return [
            .text(user.id), .text(user.aud), .text(user.role), text(user.email), text(user.phone), text(user.passwordHash),
            .integer(user.isAnonymous ? 1 : 0), .text(JSONValue.object(user.appMetadata).jsonText),
            .text(JSONValue.object(user.userMetadata).jsonText), text(user.emailConfirmedAt), text(user.lastSignInAt),
            .text(user.createdAt), .text(user.updatedAt),
        ]
    }

    private static func user(_ row: [SQLValue]) -> AuthUser {
        func text(_ index: Int) -> String? { if case .text(let v) = row[index] { v } else { nil } }
        func object(_ index: Int) -> [String: JSONValue] {
            text(index).flatMap { try? JSONValue.read(Data($0.utf8)) }?.objectValue ?? [:]
        }
        var user = AuthUser(id: text(0) ?? "", createdAt: text(11) ?? "")
        user.aud = text(1) ?? "authenticated"
        user.role = text(2) ?? "authenticated"
        user.email = text(3)
        user.phone = text(4)
        user.passwordHash = text(5)
        if case .integer(let flag) = row[6] { user.isAnonymous = flag != 0 }
        user.appMetadata = object(7)
        user.userMetadata = object(8)
        user.emailConfirmedAt = text(9)
        user.lastSignInAt = text(10)
        user.updatedAt = text(12) ?? user.createdAt
        return user
    }
}
