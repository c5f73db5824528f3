import Foundation
import SoarCore

/// GoTrue's tables, written once for both stores: `auth.users` on Postgres, `auth_users` on SQLite.
/// The stores choose the transaction (and keep their session caches); this is what runs in it.
struct AuthSQL {
    let dialect: SQLDialect

    private var users: String { table("users") }
    private var sessions: String { table("sessions") }
    private var refreshTokens: String { table("refresh_tokens") }
    private var identities: String { table("identities") }
    private var oneTimeTokens: String { table("one_time_tokens") }
    private var flowStates: String { table("flow_state") }
    private var mailbox: String { table("mailbox") }
    private func table(_ name: String) -> String { dialect == .postgres ? "auth." + name : "auth_" + name }

    private static let userColumns =
        "id, aud, role, email, phone, encrypted_password, is_anonymous, app_metadata, user_metadata, email_confirmed_at, last_sign_in_at, created_at, updated_at, "
        + "email_change, email_change_sent_at"

    func createUser(_ user: AuthUser, identity: AuthIdentity?, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("INSERT INTO \(users) (\(Self.userColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)", Self.values(user))
        if let identity { try createIdentity(identity, on: connection) }
    }

    func createIdentity(_ identity: AuthIdentity, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows(
            "INSERT INTO \(identities) (id, user_id, provider, provider_id, identity_data, email, last_sign_in_at, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7)",
            [.text(identity.id), .text(identity.userID), .text(identity.provider), .text(identity.providerID),
             .text(JSONValue.object(identity.data).jsonText), identity.email.map { .text($0) } ?? .null, .text(identity.createdAt)])
    }

    func saveOneTimeToken(_ token: OneTimeToken, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("DELETE FROM \(oneTimeTokens) WHERE user_id = $1 AND token_type = $2", [.text(token.userID), .text(token.type)])
        try connection.rows(
            "INSERT INTO \(oneTimeTokens) (user_id, token_type, token_hash, code_challenge, code_challenge_method, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            [.text(token.userID), .text(token.type), .text(token.hash), token.challenge.map { .text($0.code) } ?? .null,
             token.challenge.map { .text($0.method) } ?? .null, .text(token.createdAt)])
    }

    func takeOneTimeToken(hash: String, types: [String], on connection: some SQLConnection) throws(StoreError) -> OneTimeToken? {
        let listed = types.indices.map { "$\($0 + 2)" }.joined(separator: ", ")
        let rows = try connection.rows(
            "DELETE FROM \(oneTimeTokens) WHERE token_hash = $1 AND token_type IN (\(listed)) RETURNING user_id, token_type, token_hash, code_challenge, code_challenge_method, created_at",
            [.text(hash)] + types.map { .text($0) })
        guard let row = rows.first, let user = row[0].text, let type = row[1].text, let created = row[5].text else { return nil }
        let challenge = row[3].text.map { (code: $0, method: row[4].text ?? "s256") }
        return OneTimeToken(userID: user, type: type, hash: hash, challenge: challenge, createdAt: Timestamp.parse(created).map(Timestamp.postgres) ?? created)
    }

    func hasOneTimeToken(userID: String, type: String, on connection: some SQLConnection) throws(StoreError) -> Bool {
        !(try connection.rows("SELECT 1 FROM \(oneTimeTokens) WHERE user_id = $1 AND token_type = $2", [.text(userID), .text(type)]).isEmpty)
    }

    func saveFlowState(_ state: FlowState, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows(
            "INSERT INTO \(flowStates) (auth_code, user_id, code_challenge, code_challenge_method, authentication_method, created_at) VALUES ($1, $2, $3, $4, $5, $6)",
            [.text(state.authCode), .text(state.userID), .text(state.challenge), .text(state.method), .text(state.authenticationMethod), .text(state.createdAt)])
    }

    func takeFlowState(authCode: String, on connection: some SQLConnection) throws(StoreError) -> FlowState? {
        let rows = try connection.rows(
            "DELETE FROM \(flowStates) WHERE auth_code = $1 RETURNING auth_code, user_id, code_challenge, code_challenge_method, authentication_method, created_at",
            [.text(authCode)])
        guard let row = rows.first, let user = row[1].text, let challenge = row[2].text, let method = row[3].text, let how = row[4].text, let created = row[5].text else {
            return nil
        }
        return FlowState(authCode: authCode, userID: user, challenge: challenge, method: method, authenticationMethod: how, createdAt: Timestamp.parse(created).map(Timestamp.postgres) ?? created)
    }

    func addMail(_ mail: Mail, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("INSERT INTO \(mailbox) (recipient, subject, body, html, created_at) VALUES ($1, $2, $3, $4, $5)",
            [.text(mail.to), .text(mail.subject), .text(mail.text), mail.html.map { .text($0) } ?? .null, .text(mail.createdAt)])
    }

    func mails(limit: Int, on connection: some SQLConnection) throws(StoreError) -> [Mail] {
        try connection.rows("SELECT recipient, subject, body, created_at, html FROM \(mailbox) ORDER BY id DESC LIMIT $1", [.integer(Int64(limit))]).reversed().map { row in
            Mail(
                to: row[0].text ?? "", subject: row[1].text ?? "", text: row[2].text ?? "", html: row[4].text,
                createdAt: row[3].text.map { Timestamp.parse($0).map(Timestamp.postgres) ?? $0 } ?? "")
        }
    }

    func userID(provider: String, providerID: String, on connection: some SQLConnection) throws(StoreError) -> String? {
        try connection.rows("SELECT user_id FROM \(identities) WHERE provider = $1 AND provider_id = $2", [.text(provider), .text(providerID)]).first?.first?.text
    }

    func user(id: String, on connection: some SQLConnection) throws(StoreError) -> AuthUser? {
        try connection.rows("SELECT \(Self.userColumns) FROM \(users) WHERE id = $1", [.text(id)]).first.map(Self.user)
    }

    /// Emails match without regard to case: SQLite's column is `COLLATE NOCASE` (so its unique
    /// index serves the lookup), Postgres's unique index is on `lower(email)`.
    func user(email: String, on connection: some SQLConnection) throws(StoreError) -> AuthUser? {
        let match = dialect == .postgres ? "lower(email) = lower($1)" : "email = $1"
        return try connection.rows("SELECT \(Self.userColumns) FROM \(users) WHERE \(match)", [.text(email)]).first.map(Self.user)
    }

    func updateUser(_ user: AuthUser, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows(
            """
            UPDATE \(users) SET aud = $2, role = $3, email = $4, phone = $5, encrypted_password = $6, is_anonymous = $7,
            app_metadata = $8, user_metadata = $9, email_confirmed_at = $10, last_sign_in_at = $11, created_at = $12, updated_at = $13,
            email_change = $14, email_change_sent_at = $15
            WHERE id = $1
            """, Self.values(user))
    }

    func deleteUser(id: String, on connection: some SQLConnection) throws(StoreError) -> Bool {
        !(try connection.rows("DELETE FROM \(users) WHERE id = $1 RETURNING id", [.text(id)]).isEmpty)
    }

    func users(offset: Int, limit: Int, on connection: some SQLConnection) throws(StoreError) -> (users: [AuthUser], total: Int) {
        let rows = try connection.rows("SELECT \(Self.userColumns) FROM \(users) ORDER BY created_at, id LIMIT $1 OFFSET $2", [.integer(Int64(limit)), .integer(Int64(offset))])
        let total = try connection.rows("SELECT count(*) FROM \(users)").first?.first?.text.flatMap { Int($0) }
        return (rows.map(Self.user), total ?? rows.count)
    }

    func createSession(id: String, userID: String, refreshTokenHash: String, now: String, aal: String, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("INSERT INTO \(sessions) (id, user_id, created_at, updated_at, aal) VALUES ($1, $2, $3, $3, $4)", [.text(id), .text(userID), .text(now), .text(aal)])
        try connection.rows(
            "INSERT INTO \(refreshTokens) (token_hash, session_id, user_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
            [.text(refreshTokenHash), .text(id), .text(userID), .text(now)])
        try connection.rows("UPDATE \(users) SET last_sign_in_at = $2 WHERE id = $1", [.text(userID), .text(now)])
    }

    func sessionAAL(_ id: String, on connection: some SQLConnection) throws(StoreError) -> String? {
        try connection.rows("SELECT aal FROM \(sessions) WHERE id = $1", [.text(id)]).first?.first?.text
    }

    private var factorsTable: String { table("mfa_factors") }
    private var challenges: String { table("mfa_challenges") }

    func createFactor(_ factor: MFAFactor, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows(
            "INSERT INTO \(factorsTable) (id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [.text(factor.id), .text(factor.userID), factor.friendlyName.map { .text($0) } ?? .null, .text(factor.type), .text(factor.status),
             .text(factor.secret), .text(factor.createdAt), .text(factor.updatedAt)])
    }

    func factors(userID: String, on connection: some SQLConnection) throws(StoreError) -> [MFAFactor] {
        try connection.rows(
            "SELECT id, user_id, friendly_name, factor_type, status, secret, created_at, updated_at FROM \(factorsTable) WHERE user_id = $1 ORDER BY created_at, id",
            [.text(userID)]
        ).map { row in
            func time(_ value: SQLValue) -> String { value.text.map { Timestamp.parse($0).map(Timestamp.postgres) ?? $0 } ?? "" }
            return MFAFactor(
                id: row[0].text ?? "", userID: row[1].text ?? "", friendlyName: row[2].text, type: row[3].text ?? "", status: row[4].text ?? "",
                secret: row[5].text ?? "", createdAt: time(row[6]), updatedAt: time(row[7]))
        }
    }

    func setFactorStatus(id: String, status: String, now: String, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("UPDATE \(factorsTable) SET status = $2, updated_at = $3 WHERE id = $1", [.text(id), .text(status), .text(now)])
    }

    func deleteFactor(id: String, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("DELETE FROM \(factorsTable) WHERE id = $1", [.text(id)])
    }

    func createChallenge(id: String, factorID: String, now: String, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("INSERT INTO \(challenges) (id, factor_id, created_at) VALUES ($1, $2, $3)", [.text(id), .text(factorID), .text(now)])
    }

    func takeChallenge(id: String, on connection: some SQLConnection) throws(StoreError) -> (factorID: String, createdAt: String)? {
        guard let row = try connection.rows("DELETE FROM \(challenges) WHERE id = $1 RETURNING factor_id, created_at", [.text(id)]).first,
            let factor = row[0].text, let created = row[1].text
        else { return nil }
        return (factor, Timestamp.parse(created).map(Timestamp.postgres) ?? created)
    }

    func sessionExists(_ id: String, on connection: some SQLConnection) throws(StoreError) -> Bool {
        !(try connection.rows("SELECT 1 FROM \(sessions) WHERE id = $1", [.text(id)]).isEmpty)
    }

    func sessions(userID: String, on connection: some SQLConnection) throws(StoreError) -> [SessionRecord] {
        let time = { (text: String?) in text.map { Timestamp.parse($0).map(Timestamp.postgres) ?? $0 } ?? "" }
        return try connection.rows(
            "SELECT CAST(id AS text), CAST(created_at AS text), CAST(updated_at AS text), aal FROM \(sessions) WHERE user_id = $1 ORDER BY created_at DESC",
            [.text(userID)]
        ).compactMap { row in
            guard let id = row[0].text else { return nil }
            return SessionRecord(id: id, createdAt: time(row[1].text), updatedAt: time(row[2].text), aal: row[3].text ?? "aal1")
        }
    }

    /// One session (`only`), or all of the user's but `except` (none: all).
    func deleteSessions(userID: String, only: String?, except: String?, on connection: some SQLConnection) throws(StoreError) {
        // As text: the ids given may not be UUIDs at all.
        let match = only == nil ? "CAST(id AS text) <> $2" : "CAST(id AS text) = $2"
        try connection.rows("DELETE FROM \(sessions) WHERE user_id = $1 AND \(match)", [.text(userID), .text(only ?? except ?? "")])
    }

    /// Uses a refresh token once, in the caller's transaction (see ``AuthStore/refresh(tokenHash:successorHashes:now:reuseGrace:)``).
    func refresh(tokenHash: String, successorHashes: [String], now: Date, reuseGrace: TimeInterval, on connection: some SQLConnection) throws(StoreError) -> RefreshOutcome {
        let time = Timestamp.postgres(now)
        // FOR UPDATE: two Postgres connections presenting the same token take turns (SQLite's one writer does anyway).
        let lock = dialect == .postgres ? " FOR UPDATE OF t" : ""
        let found = try connection.rows(
            "SELECT t.id, t.session_id, t.user_id, t.revoked, t.updated_at FROM \(refreshTokens) t JOIN \(sessions) s ON s.id = t.session_id WHERE t.token_hash = $1\(lock)",
            [.text(tokenHash)])
        guard let row = found.first, let session = row[1].text, let user = row[2].text, let usedAt = row[4].text else { return .notFound }
        if row[3].flag {
            // GoTrue's reuse detection: a used token again, after the grace for parallel refreshes, ends the session.
            let placeholders = successorHashes.indices.map { "$\($0 + 2)" }.joined(separator: ", ")
            let stored = try connection.rows(
                "SELECT token_hash, revoked FROM \(refreshTokens) WHERE session_id = $1 AND token_hash IN (\(placeholders))",
                [.text(session)] + successorHashes.map { .text($0) })
            let revoked = Dictionary(stored.compactMap { row in row[0].text.map { ($0, row[1].flag) } }, uniquingKeysWith: { first, _ in first })
            let outcome = RefreshOutcome.reusedToken(
                userID: user, sessionID: session, usedAt: Timestamp.parse(usedAt), successors: successorHashes.map { revoked[$0] },
                now: now, reuseGrace: reuseGrace)
            if outcome == .reused { try connection.rows("DELETE FROM \(sessions) WHERE id = $1", [.text(session)]) }
            return outcome
        }
        try connection.rows("UPDATE \(refreshTokens) SET revoked = true, updated_at = $2 WHERE id = $1", [row[0], .text(time)])
        try connection.rows(
            "INSERT INTO \(refreshTokens) (token_hash, session_id, user_id, parent, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)",
            [.text(successorHashes[0]), .text(session), .text(user), row[0], .text(time)])
        try connection.rows("UPDATE \(sessions) SET updated_at = $2 WHERE id = $1", [.text(session), .text(time)])
        return .rotated(userID: user, sessionID: session)
    }

    private static func values(_ user: AuthUser) -> [SQLValue] {
        func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
        return [
            .text(user.id), .text(user.aud), .text(user.role), text(user.email), text(user.phone), text(user.passwordHash),
            .integer(user.isAnonymous ? 1 : 0), .text(JSONValue.object(user.appMetadata).jsonText),
            .text(JSONValue.object(user.userMetadata).jsonText), text(user.emailConfirmedAt), text(user.lastSignInAt),
            .text(user.createdAt), .text(user.updatedAt), text(user.newEmail), text(user.emailChangeSentAt),
        ]
    }

    /// A row of ``userColumns`` from either store (times in the one form both keep).
    private static func user(_ row: [SQLValue]) -> AuthUser {
        func time(_ index: Int) -> String? { row[index].text.map { Timestamp.parse($0).map(Timestamp.postgres) ?? $0 } }
        func object(_ index: Int) -> [String: JSONValue] {
            row[index].text.flatMap { try? JSONValue.read(Data($0.utf8)) }?.objectValue ?? [:]
        }
        var user = AuthUser(id: row[0].text ?? "", createdAt: time(11) ?? "")
        user.aud = row[1].text ?? "authenticated"
        user.role = row[2].text ?? "authenticated"
        user.email = row[3].text
        user.phone = row[4].text
        user.passwordHash = row[5].text
        user.isAnonymous = row[6].flag
        user.appMetadata = object(7)
        user.userMetadata = object(8)
        user.emailConfirmedAt = time(9)
        user.lastSignInAt = time(10)
        user.updatedAt = time(12) ?? user.createdAt
        user.newEmail = row[13].text
        user.emailChangeSentAt = time(14)
        return user
    }
}
