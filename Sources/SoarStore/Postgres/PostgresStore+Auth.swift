import Foundation
import SoarCore

/// GoTrue's tables in the `auth` schema (``AuthSQL``), run as the server's own role.
///
/// Unlike the SQLite store, sessions are cached only briefly: another process on the same
/// database may end one at any time. Ids that are not UUIDs match nothing (Postgres would refuse them).
extension PostgresStore {
    private static let auth = AuthSQL(dialect: .postgres)

    public func createUser(_ user: AuthUser, identity: AuthIdentity?) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.createUser(user, identity: identity, on: connection) }
    }

    public func createIdentity(_ identity: AuthIdentity) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.createIdentity(identity, on: connection) }
    }

    public func userID(provider: String, providerID: String) throws(StoreError) -> String? {
        try run { connection throws(StoreError) in try Self.auth.userID(provider: provider, providerID: providerID, on: connection) }
    }

    public func saveOneTimeToken(_ token: OneTimeToken) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.saveOneTimeToken(token, on: connection) }
    }

    public func takeOneTimeToken(hash: String, types: [String]) throws(StoreError) -> OneTimeToken? {
        try run { connection throws(StoreError) in try Self.auth.takeOneTimeToken(hash: hash, types: types, on: connection) }
    }

    public func hasOneTimeToken(userID: String, type: String) throws(StoreError) -> Bool {
        try run { connection throws(StoreError) in try Self.auth.hasOneTimeToken(userID: userID, type: type, on: connection) }
    }

    public func saveFlowState(_ state: FlowState) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.saveFlowState(state, on: connection) }
    }

    public func takeFlowState(authCode: String) throws(StoreError) -> FlowState? {
        try run { connection throws(StoreError) in try Self.auth.takeFlowState(authCode: authCode, on: connection) }
    }

    public func addMail(_ mail: Mail) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.addMail(mail, on: connection) }
    }

    public func mails(limit: Int) throws(StoreError) -> [Mail] {
        try run { connection throws(StoreError) in try Self.auth.mails(limit: limit, on: connection) }
    }

    public func sessionAAL(_ id: String) throws(StoreError) -> String? {
        guard RandomUUID.parse(id) != nil else { return nil }
        return try run { connection throws(StoreError) in try Self.auth.sessionAAL(id, on: connection) }
    }

    public func createFactor(_ factor: MFAFactor) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.createFactor(factor, on: connection) }
    }

    public func factors(userID: String) throws(StoreError) -> [MFAFactor] {
        try run { connection throws(StoreError) in try Self.auth.factors(userID: userID, on: connection) }
    }

    public func setFactorStatus(id: String, status: String, now: String) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.setFactorStatus(id: id, status: status, now: now, on: connection) }
    }

    public func deleteFactor(id: String) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.deleteFactor(id: id, on: connection) }
    }

    public func createChallenge(id: String, factorID: String, now: String) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.createChallenge(id: id, factorID: factorID, now: now, on: connection) }
    }

    public func takeChallenge(id: String) throws(StoreError) -> (factorID: String, createdAt: String)? {
        guard RandomUUID.parse(id) != nil else { return nil }
        return try run { connection throws(StoreError) in try Self.auth.takeChallenge(id: id, on: connection) }
    }

    public func user(id: String) throws(StoreError) -> AuthUser? {
        guard RandomUUID.parse(id) != nil else { return nil }
        return try run { connection throws(StoreError) in try Self.auth.user(id: id, on: connection) }
    }

    public func user(email: String) throws(StoreError) -> AuthUser? {
        try run { connection throws(StoreError) in try Self.auth.user(email: email, on: connection) }
    }

    public func updateUser(_ user: AuthUser) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.auth.updateUser(user, on: connection) }
    }

    public func deleteUser(id: String) throws(StoreError) -> Bool {
        guard RandomUUID.parse(id) != nil else { return false }
        defer { recentSessions.forgetAll() }
        return try run { connection throws(StoreError) in try Self.auth.deleteUser(id: id, on: connection) }
    }

    public func users(offset: Int, limit: Int) throws(StoreError) -> (users: [AuthUser], total: Int) {
        try run { connection throws(StoreError) in try Self.auth.users(offset: offset, limit: limit, on: connection) }
    }

    public func createSession(id: String, userID: String, refreshTokenHash: String, now: String, aal: String) throws(StoreError) {
        try run { connection throws(StoreError) in
            try Self.auth.createSession(id: id, userID: userID, refreshTokenHash: refreshTokenHash, now: now, aal: aal, on: connection)
        }
    }

    public func sessionExists(_ id: String) throws(StoreError) -> Bool {
        guard RandomUUID.parse(id) != nil else { return false }
        // The wall clock, not the injected one: this is a cache's age, not a token's.
        if recentSessions.contains(id, now: Date()) { return true }
        let exists = try run { connection throws(StoreError) in try Self.auth.sessionExists(id, on: connection) }
        if exists { recentSessions.remember(id, now: Date()) }
        return exists
    }

    public func sessions(userID: String) throws(StoreError) -> [SessionRecord] {
        try run { connection throws(StoreError) in try Self.auth.sessions(userID: userID, on: connection) }
    }

    public func deleteSessions(userID: String, only: String?, except: String?) throws(StoreError) {
        defer { recentSessions.forgetAll() }
        try run { connection throws(StoreError) in try Self.auth.deleteSessions(userID: userID, only: only, except: except, on: connection) }
    }

    public func refresh(tokenHash: String, successorHashes: [String], now: Date, reuseGrace: TimeInterval) throws(StoreError) -> RefreshOutcome {
        let outcome = try run { connection throws(StoreError) in
            try Self.auth.refresh(tokenHash: tokenHash, successorHashes: successorHashes, now: now, reuseGrace: reuseGrace, on: connection)
        }
        if case .reused = outcome { recentSessions.forgetAll() }
        return outcome
    }
}
