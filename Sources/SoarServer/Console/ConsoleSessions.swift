import Foundation
import SoarAuth
import SoarCore
import SoarCrypto
import SoarStore

/// Console sign-in: administrators' passwords, sessions in an `HttpOnly`, `SameSite=Strict`
/// cookie (`Secure` over TLS) whose token's hash the store keeps, a CSRF token per session for
/// every change, and failed sign-ins limited per email and per address.
final class ConsoleSessions: Sendable {
    static let cookie = "soar_console"
    static let lifetime: TimeInterval = 12 * 3600
    /// Failed sign-ins one email may have from one address, and one address for any emails, in
    /// ``failureWindow``: an address cannot lock an administrator out from everywhere.
    static let failuresAllowed = 5
    static let failuresPerAddress = 20
    static let failureWindow: TimeInterval = 900

    private let store: any AdminStore
    private let hasher: any PasswordHashing
    private let secure: Bool
    private let now: @Sendable () -> Date
    private let failures = Locked<[String: [Date]]>([:])

    init(store: any AdminStore, hasher: any PasswordHashing, secure: Bool, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.hasher = hasher
        self.secure = secure
        self.now = now
    }

    struct Session {
        let admin: ConsoleAdmin
        let csrf: String
        let tokenHash: String
    }

    /// Signs in; returns the session and the `Set-Cookie` value.
    func signIn(email: String, password: String, from address: String) throws(ConsoleError) -> (session: Session, cookie: String) {
        let email = email.trimmingCharacters(in: .whitespaces).lowercased()
        let keys = [("pair:" + email + "|" + address, Self.failuresAllowed), ("address:" + address, Self.failuresPerAddress)]
        let time = now()
        let limited = failures.withLock { failures in
            keys.contains { key, limit in (failures[key] ?? []).filter { time.timeIntervalSince($0) < Self.failureWindow }.count >= limit }
        }
        guard !limited else { throw ConsoleError(429, "too_many_attempts", "Too many failed sign-ins: wait a quarter of an hour") }
        let found: (admin: ConsoleAdmin, passwordHash: String)?
        do { found = try store.adminCredentials(email: email) } catch { throw ConsoleError(503, "store_unavailable", error.message) }
        // A wrong email costs a hash too, so timing does not tell which emails are administrators.
        let verified = found.map { hasher.verify(password, against: $0.passwordHash) } ?? { _ = try? hasher.hash(password); return false }()
        guard let admin = found?.admin, verified else {
            failures.withLock { failures in
                // Old failures go, so the map holds only the last quarter hour's.
                failures = failures.compactMapValues { dates in
                    let recent = dates.filter { time.timeIntervalSince($0) < Self.failureWindow }
                    return recent.isEmpty ? nil : recent
                }
                for (key, _) in keys { failures[key, default: []].append(time) }
            }
            throw ConsoleError(400, "invalid_credentials", "Invalid email or password")
        }
        let token = Self.random(32), csrf = Self.random(16)
        let hash = Self.hash(token)
        do {
            try store.createAdminSession(tokenHash: hash, adminID: admin.id, csrf: csrf, expiresAt: Timestamp.postgres(time + Self.lifetime))
        } catch {
            throw ConsoleError(503, "store_unavailable", error.message)
        }
        return (Session(admin: admin, csrf: csrf, tokenHash: hash), cookie(token, maxAge: Int(Self.lifetime)))
    }

    /// The session a request's cookie names; nil without one, or for one that ended.
    func session(cookieHeader: String?) throws(ConsoleError) -> Session? {
        guard let token = Self.token(in: cookieHeader) else { return nil }
        let hash = Self.hash(token)
        do {
            return try store.adminSession(tokenHash: hash, now: Timestamp.postgres(now())).map { Session(admin: $0.admin, csrf: $0.csrf, tokenHash: hash) }
        } catch {
            throw ConsoleError(503, "store_unavailable", error.message)
        }
    }

    /// Ends a session; returns the `Set-Cookie` value that clears the cookie.
    func signOut(_ session: Session) -> String {
        try? store.deleteAdminSession(tokenHash: session.tokenHash)
        return cookie("", maxAge: 0)
    }

    private func cookie(_ token: String, maxAge: Int) -> String {
        "\(Self.cookie)=\(token); Path=/console; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func token(in header: String?) -> String? {
        for part in (header ?? "").split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix(cookie + "="), pair.count > cookie.count + 1 { return String(pair.dropFirst(cookie.count + 1)) }
        }
        return nil
    }

    static func hash(_ token: String) -> String { sha256(Data(token.utf8)).map { String(format: "%02x", $0) }.joined() }

    static func random(_ count: Int) -> String {
        ((try? randomBytes(count)) ?? Data(UUID().uuidString.utf8)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}

/// A console API error: its status, a code and a message, as JSON.
struct ConsoleError: Error {
    let status: Int
    let code: String
    let message: String

    init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }
}
