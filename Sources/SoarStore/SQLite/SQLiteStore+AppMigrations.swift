import Foundation
import SoarCore
import SoarSchema

/// The app's migrations on SQLite: each file translated (``SQLiteTranslator``), then run in its
/// own transaction with the schema model it leaves behind and its record (version, checksum).
extension SQLiteStore {
    public func appliedAppMigrations() throws(StoreError) -> [AppliedMigration] {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT version, name, checksum FROM soar_app_migrations ORDER BY length(version), version").rows([]).map {
                AppliedMigration(version: Self.text($0[0]) ?? "", name: Self.text($0[1]) ?? "", checksum: Self.text($0[2]) ?? "")
            }
        }
    }

    @discardableResult
    public func migrateApp(_ files: [MigrationFile]) throws(MigrationError) -> [MigrationFile] {
        let pending = try MigrationFile.pending(files, applied: try migrating { () throws(StoreError) in try appliedAppMigrations() })
        var current = try migrating { () throws(StoreError) in try storedSchema() }
        var legacy = try migrating { () throws(StoreError) in try legacyTables() }
        for file in pending {
            var translator = SQLiteTranslator(schema: current)
            var steps: [SQLiteTranslator.Step] = []
            do throws(SQLError) {
                for statement in try SQLParser.parse(file.sql) { steps += try translator.translate(statement) }
            } catch {
                throw file.failure(error)
            }
            let schema = translator.schema
            let upgrading = legacy
            let time = Timestamp.postgres(now())
            try migrating { () throws(StoreError) in
                try write { connection throws(StoreError) in
                    connection.context.set(nil, at: nil)
                    try Self.setAside(upgrading, on: connection)
                    for step in steps {
                        do throws(StoreError) {
                            try connection.execute(step.prepareOnly ? "EXPLAIN " + step.sql : step.sql)
                        } catch {
                            throw StoreError.unavailable(file.failure(SQLError(error.message.replacingOccurrences(of: "database error: ", with: ""), at: step.offset)).message)
                        }
                    }
                    try Self.copyBack(upgrading, into: schema, on: connection)
                    let json = String(decoding: (try? JSONEncoder().encode(schema)) ?? Data("{}".utf8), as: UTF8.self)
                    try connection.statement("INSERT OR REPLACE INTO soar_app_schema (id, schema) VALUES (1, ?1)").run([.text(json)])
                    try connection.statement("INSERT INTO soar_app_migrations (version, name, checksum, applied_at) VALUES (?1, ?2, ?3, ?4)")
                        .run([.text(file.version), .text(file.name), .text(file.checksum), .text(time)])
                }
            }
            legacy = []
            current = schema
            load(schema)
        }
        // Every start: the rule's and realtime's triggers as this version of Soar writes them.
        if AppSchema.ownsDeviceTokens(current) {
            try migrating { () throws(StoreError) in try write { connection throws(StoreError) in try connection.execute(Self.oneOwnerTriggers) } }
        }
        let capture = ChangeCapture(dialect: .sqlite).triggers(for: current) + "\n" + WebhookQueue(dialect: .sqlite).openTrigger(for: current)
        try migrating { () throws(StoreError) in try write { connection throws(StoreError) in try connection.execute(capture) } }
        return pending
    }

    /// The schema the applied migrations left (empty before the first).
    func storedSchema() throws(StoreError) -> Schema {
        try write { connection throws(StoreError) in
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS soar_app_migrations (version TEXT PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS soar_app_schema (id INTEGER PRIMARY KEY CHECK (id = 1), schema TEXT NOT NULL);
                """)
            guard case .text(let json)? = try connection.statement("SELECT schema FROM soar_app_schema WHERE id = 1").rows([]).first?.first else {
                return Schema().withBuiltIns()
            }
            guard let schema = try? JSONDecoder().decode(Schema.self, from: Data(json.utf8)) else {
                throw StoreError.unavailable("the app's schema recorded in the database cannot be read")
            }
            return schema.withBuiltIns()
        }
    }

    /// The seed app's tables made by Soar itself before the app had migrations: kept, and
    /// upgraded to the starter's definitions by the first migration (which must make them).
    private func legacyTables() throws(StoreError) -> [String] {
        try read { connection throws(StoreError) in
            let recorded = try connection.statement("SELECT count(*) FROM soar_app_migrations").rows([]).first?.first
            guard recorded == .integer(0) else { return [] }
            let names = AppSchema.legacyTables.map { "'\($0)'" }.joined(separator: ", ")
            return try connection.statement("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN (\(names))").rows([]).compactMap { Self.text($0[0]) }
        }
    }

    /// Moves the old tables aside (their indexes and triggers dropped, their names freed).
    private static func setAside(_ tables: [String], on connection: SQLiteConnection) throws(StoreError) {
        for table in tables {
            let attached = try connection.statement("SELECT type, name FROM sqlite_schema WHERE tbl_name = ?1 AND type IN ('index', 'trigger') AND sql IS NOT NULL")
                .rows([.text(table)])
            for item in attached { try connection.execute("DROP \((text(item[0]) ?? "").uppercased()) \"\(text(item[1]) ?? "")\"") }
            try connection.execute("ALTER TABLE \"\(table)\" RENAME TO \"soar_legacy_\(table)\"")
        }
    }

    /// Copies every row of the old tables into the new ones (the columns they share), then drops them.
    private static func copyBack(_ tables: [String], into schema: Schema, on connection: SQLiteConnection) throws(StoreError) {
        for table in tables {
            let old = try connection.statement("SELECT name FROM pragma_table_info(?1)").rows([.text("soar_legacy_\(table)")]).compactMap { text($0[0]) }
            guard let relation = schema.relation(table), !relation.isView else {
                throw StoreError.unavailable(
                    "this database holds the seed app's table \(table) from an earlier Soar; the app's first migration must make it (soar init writes the starter)")
            }
            let shared = old.filter { relation.column($0) != nil }
            let names = shared.map { "\"\($0)\"" }.joined(separator: ", ")
            if table == "device_tokens" {
                try copyDeviceTokens(shared, on: connection)
            } else {
                try connection.execute("INSERT INTO \"\(table)\" (\(names)) SELECT \(names) FROM \"soar_legacy_\(table)\"")
            }
            try connection.execute("DROP TABLE \"soar_legacy_\(table)\"")
        }
    }

    /// Device tokens in lowercase, one row per device: of one user's rows for a device the newest
    /// stays, and of several users' the latest user's (the one-owner rule).
    private static func copyDeviceTokens(_ columns: [String], on connection: SQLiteConnection) throws(StoreError) {
        let names = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let values = columns.map { $0 == "token" ? "lower(\"token\")" : "\"\($0)\"" }.joined(separator: ", ")
        let updates = columns.filter { $0 != "user_id" && $0 != "token" }.map { "\"\($0)\" = excluded.\"\($0)\"" }.joined(separator: ", ")
        try connection.execute(
            """
            INSERT INTO device_tokens (\(names)) SELECT \(values) FROM soar_legacy_device_tokens WHERE true ORDER BY updated_at, token
            ON CONFLICT (user_id, token) DO UPDATE SET \(updates);
            DELETE FROM device_tokens WHERE EXISTS (
                SELECT 1 FROM device_tokens AS newer WHERE newer.token = device_tokens.token AND newer.user_id <> device_tokens.user_id
                  AND (newer.updated_at > device_tokens.updated_at OR (newer.updated_at = device_tokens.updated_at AND newer.user_id > device_tokens.user_id)));
            """)
    }

    /// See ``AppSchema/ownsDeviceTokens(_:)``.
    static let oneOwnerTriggers: String = {
        // Only a token another user holds runs the body: every other write pays one index probe.
        let body = """
            WHEN EXISTS (SELECT 1 FROM device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id)
            BEGIN
              SELECT RAISE(ABORT, '\(AppSchema.tooManyMoves)')
                WHERE (SELECT count(*) FROM soar_device_moves WHERE to_user = NEW.user_id AND moved_at > soar_ago(3600)) >= \(AppSchema.movesPerHour);
              DELETE FROM soar_device_moves WHERE moved_at < soar_ago(86400);
              INSERT INTO soar_device_moves (token, from_user, to_user, moved_at)
                SELECT token, user_id, NEW.user_id, now() FROM device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id;
              DELETE FROM device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id;
            END;
            """
        return """
            DROP TRIGGER IF EXISTS device_tokens_one_owner_insert;
            DROP TRIGGER IF EXISTS device_tokens_one_owner_update;
            CREATE TRIGGER device_tokens_one_owner_insert AFTER INSERT ON device_tokens \(body)
            CREATE TRIGGER device_tokens_one_owner_update AFTER UPDATE OF token, user_id ON device_tokens \(body)
            """
    }()


}
