import Foundation
import SoarCore
import SoarMigrations
import SoarSchema

/// The store on PostgreSQL: a bounded pool of libpq connections, migrations under an advisory
/// lock, and every data-API request in a transaction that runs as the JWT's role, so ownership
/// comes from the tables' row-level security policies, enforced by Postgres itself.
public final class PostgresStore: Store, @unchecked Sendable {
    let pool: PGPool
    let now: @Sendable () -> Date
    /// The migrations this start applied (empty when the database was up to date).
    public private(set) var newlyApplied: [String] = []
    private let displayURL: String
    let recentSessions = RecentSessions()
    /// The app's relations as the catalog has them (see ``tables``), read again after migrations.
    let schema = Locked([String: Table]())
    /// The functions of `public`, read with the tables.
    let functionsByName = Locked([String: Function]())
    /// The tables in the `supabase_realtime` publication, read with the catalog.
    let realtime = Locked(Set<String>())
    /// Set by ``close()``: the schema watcher stops.
    let closed = Locked(false)

    /// Connects and applies pending migrations: Soar's own, then the app's.
    ///
    /// - Parameters:
    ///   - url: a libpq connection URL, `postgres://user:password@host:port/database`.
    ///   - poolSize: the most connections this process opens.
    ///   - app: the app's migrations (its `supabase/migrations`); the starter by default.
    /// - Throws: ``StoreError`` when the database cannot be reached or a migration fails (its
    ///   message names the app's file, line and column).
    public init(url: String, poolSize: Int = 10, app: [MigrationFile] = AppSchema.starters, now: @escaping @Sendable () -> Date = Date.init) throws(StoreError) {
        pool = PGPool(url: Self.withTimeout(url), size: poolSize)
        self.now = now
        displayURL = Self.withoutPassword(url)
        newlyApplied = try migrate()
        do { newlyApplied += try migrateApp(app).map(\.fileName) } catch { throw StoreError.unavailable(error.message) }
        watchSchema()
    }

    public var location: String { "postgres \(displayURL)" }

    public func close() {
        closed.withLock { $0 = true }
        pool.close()
    }

    public func ping() throws(StoreError) {
        try pool.with { connection throws(StoreError) in _ = try connection.query("SELECT 1") }
    }

    public func probeWrite() throws(StoreError) {
        try run { connection throws(StoreError) in _ = try connection.query("UPDATE soar.health SET checked_at = now() WHERE id = 1") }
    }

    /// The migrations applied, in order (for `soar migrate`).
    public func appliedMigrations() throws(StoreError) -> [String] {
        try run { connection throws(StoreError) in
            try connection.query("SELECT name FROM public.soar_migrations ORDER BY name").compactMap { $0[0] }
        }
    }

    /// Applies each migration not yet recorded, all in one transaction under an advisory lock, so
    /// processes starting together apply each once (the others wait, then find nothing to do).
    @discardableResult
    func migrate() throws(StoreError) -> [String] {
        try pool.with { connection throws(StoreError) in
            try connection.execute("BEGIN")
            do throws(StoreError) {
                try connection.execute("SELECT pg_advisory_xact_lock(7160735)")
                try connection.execute("CREATE TABLE IF NOT EXISTS public.soar_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
                let applied = Set(try connection.query("SELECT name FROM public.soar_migrations").compactMap { $0[0] })
                var done: [String] = []
                for file in Migrations.postgres where !applied.contains(file.name) {
                    do throws(StoreError) {
                        try connection.execute(file.sql)
                    } catch {
                        throw StoreError.unavailable("migration \(file.name) failed: \(error.message)")
                    }
                    try connection.query("INSERT INTO public.soar_migrations (name) VALUES ($1)", [file.name])
                    done.append(file.name)
                }
                try connection.execute("COMMIT")
                return done
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs `body` in one transaction as the server's own role (the auth and push tables, the catalog).
    @discardableResult
    func run<T>(_ body: (PGConnection) throws(StoreError) -> T) throws(StoreError) -> T {
        try pool.with { connection throws(StoreError) in
            do throws(StoreError) {
                try connection.execute("BEGIN")
                let value = try body(connection)
                try connection.execute("COMMIT")
                return value
            } catch {
                if connection.isUsable { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// Runs a request's statements in one transaction as `access`, in one round trip: BEGIN, the
    /// JWT's role and claims (`role`, `request.jwt.claims`, `request.jwt.claim.sub`, as PostgREST
    /// sets them, all local to the transaction), the statements and COMMIT travel together
    /// (libpq's pipeline mode). With `accept`, COMMIT waits for it to accept the answers (a
    /// second round trip), and a throw rolls everything back.
    ///
    /// - Returns: each statement's answer.
    func transaction(
        as access: Access, _ statements: [SQLStatement], accept: ((([PGConnection.Answer]) throws(StoreError) -> Void))? = nil
    ) throws(StoreError) -> [PGConnection.Answer] {
        let role = SQLValue.text(access.role.rawValue)
        let claims = JSONValue.object(["role": .string(access.role.rawValue), "sub": access.userID.map(JSONValue.string) ?? .null, "aal": .string(access.aal)])
        let begin = [
            SQLStatement(text: "BEGIN", parameters: []),
            SQLStatement(
                text: "SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('request.jwt.claim.sub', $3, true), set_config('request.jwt.claim.role', $1, true)",
                parameters: [role, .text(claims.jsonText), .text(access.userID ?? "")]),
        ]
        let commit = accept == nil ? [SQLStatement(text: "COMMIT", parameters: [])] : []
        return try pool.with { connection throws(StoreError) in
            do throws(StoreError) {
                let answers = Array(try connection.pipeline(begin + statements + commit).dropFirst(begin.count).prefix(statements.count))
                if let accept {
                    try accept(answers)
                    try connection.execute("COMMIT")
                }
                return answers
            } catch {
                if connection.isUsable && !connection.isIdle { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    /// The connection string with limits, so nothing waits forever: 5 s to connect, keepalives
    /// and a TCP user timeout for a silent peer, 30 s a statement and 10 s for a lock. Settings
    /// the caller gave win.
    private static func withTimeout(_ url: String) -> String {
        let settings = [
            ("connect_timeout", "5"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
            ("tcp_user_timeout", "30000"), ("options", "-c statement_timeout=30000 -c lock_timeout=10000"),
        ].filter { !url.contains($0.0) }
        if url.contains("://") {
            let query = settings.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&")
            return query.isEmpty ? url : url + (url.contains("?") ? "&" : "?") + query
        }
        return ([url] + settings.map { "\($0.0)='\($0.1)'" }).joined(separator: " ")
    }

    /// The URL for the banner and logs: `url` with its password replaced by `***`, in each form
    /// libpq takes: a URL's `user:password@` or `?password=`, and a `key=value` `password=`.
    public static func withoutPassword(_ url: String) -> String {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("postgres://") || trimmed.hasPrefix("postgresql://") {
            guard var components = URLComponents(string: trimmed) else { return "(a database URL that cannot be read)" }
            if components.password != nil { components.password = "***" }
            if let items = components.queryItems, items.contains(where: { $0.name == "password" }) {
                components.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
            }
            return components.string ?? "(a database URL that cannot be read)"
        }
        // key=value settings: the value is a word, or quoted with backslash escapes.
        return url.replacingOccurrences(of: #"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)"#, with: "$1***", options: .regularExpression)
    }
}
