import Foundation
import SoarCore
import SoarSchema

/// The app's migrations on Postgres: the files run as written, each in its own transaction under
/// an advisory lock (processes starting together apply each once), recorded where the Supabase
/// CLI records them; the data API's schema is then read from the catalog.
extension PostgresStore {
    private static let lock = "SELECT pg_advisory_xact_lock(7160736)"
    private static let ledger = """
        CREATE SCHEMA IF NOT EXISTS supabase_migrations;
        CREATE TABLE IF NOT EXISTS supabase_migrations.schema_migrations (version text PRIMARY KEY, statements text[], name text);
        ALTER TABLE supabase_migrations.schema_migrations ADD COLUMN IF NOT EXISTS checksum text;
        """

    public func appliedAppMigrations() throws(StoreError) -> [AppliedMigration] {
        try run { connection throws(StoreError) in try Self.applied(on: connection) }
    }

    @discardableResult
    public func migrateApp(_ files: [MigrationFile]) throws(MigrationError) -> [MigrationFile] {
        // Every file is parsed first: a syntax error is reported before anything runs.
        var parsed: [String: [SQLParser.Statement]] = [:]
        for file in files {
            do throws(SQLError) { parsed[file.version] = try SQLParser.parse(file.sql) } catch { throw file.failure(error) }
        }
        var done: [MigrationFile] = []
        for file in files {
            let ran = try migrating { () throws(StoreError) in
                try run { connection throws(StoreError) -> Bool in
                    try connection.execute(Self.lock + ";" + Self.ledger)
                    let applied = try Self.applied(on: connection)
                    let pending: [MigrationFile]
                    do throws(MigrationError) { pending = try MigrationFile.pending(files, applied: applied) } catch {
                        throw StoreError.unavailable(error.message)
                    }
                    guard pending.contains(where: { $0.version == file.version }) else { return false }
                    if applied.isEmpty, file.version == AppSchema.starter.version, try Self.madeBySoar(on: connection) {
                        // The seed app's tables, made by an earlier Soar as the starter makes them: recorded, not made again.
                        try Self.record(file, on: connection)
                        return true
                    }
                    let statements = parsed[file.version] ?? []
                    let bytes = Array(file.sql.utf8)
                    for (index, statement) in statements.enumerated() {
                        // The file runs in Soar's transaction: its own BEGIN and COMMIT would end it
                        // half-way (the Supabase CLI also runs each file as one transaction).
                        if statement.node.kind == "TransactionStmt" { continue }
                        let end = index + 1 < statements.count ? statements[index + 1].offset : bytes.count
                        let text = String(decoding: bytes[statement.offset..<max(statement.offset, end)], as: UTF8.self)
                        do throws(StoreError) { try connection.execute(text) } catch {
                            let within = error.position.map { String(text.prefix($0 - 1)).utf8.count } ?? 0
                            throw StoreError.unavailable(file.failure(SQLError(error.message, at: statement.offset + within)).message)
                        }
                    }
                    try Self.record(file, on: connection)
                    return true
                }
            }
            if ran { done.append(file) }
        }
        try migrating { () throws(StoreError) in
            try run { connection throws(StoreError) in
                // Under the lock: processes starting together would otherwise replace the trigger's
                // function at the same time ("tuple concurrently updated").
                try connection.execute(Self.lock)
                let schema = try Self.catalog(on: connection)
                if AppSchema.ownsDeviceTokens(schema) { try connection.execute(Self.oneOwnerTrigger) }
                try connection.execute(ChangeCapture(dialect: .postgres).triggers(for: schema))
                let openTrigger = WebhookQueue(dialect: .postgres).openTrigger(for: schema)
                if !openTrigger.isEmpty { try connection.execute(openTrigger) }
                let functions = try Self.functions(on: connection, relations: schema.relations)
                self.schema.withLock { $0 = Table.all(schema) }
                realtime.withLock { $0 = schema.realtime }
                functionsByName.withLock { $0 = functions }
            }
        }
        return done
    }

    /// Reads the catalog again: after the app's migrations, and on `NOTIFY pgrst, 'reload schema'`.
    /// Requests in flight keep the tables they started with; the next ones get the new schema.
    public func reloadSchema() throws(StoreError) {
        let (schema, functions) = try run { connection throws(StoreError) in
            let schema = try Self.catalog(on: connection)
            return (schema, try Self.functions(on: connection, relations: schema.relations))
        }
        self.schema.withLock { $0 = Table.all(schema) }
        realtime.withLock { $0 = schema.realtime }
        functionsByName.withLock { $0 = functions }
    }

    /// LISTENs on `pgrst`, as PostgREST does, on a connection of its own, and reloads the schema
    /// on `reload schema` (or an empty payload), until ``close()``.
    func watchSchema() {
        let url = pool.url
        let closed = self.closed
        // Until closed, or until the store is gone without being closed (a test's).
        Thread.detachNewThread { [weak self] in
            while !closed.withLock({ $0 }) && self != nil {
                guard let connection = try? PGConnection(url), (try? connection.execute("LISTEN pgrst")) != nil else {
                    Thread.sleep(forTimeInterval: 1)
                    continue
                }
                while !closed.withLock({ $0 }) && self != nil {
                    guard let payloads = try? connection.notifications(timeout: 1) else { break }
                    if payloads.contains(where: { $0 == "reload schema" || $0.isEmpty }) { try? self?.reloadSchema() }
                }
            }
        }
    }

    private static func applied(on connection: PGConnection) throws(StoreError) -> [AppliedMigration] {
        let exists = try connection.query("SELECT to_regclass('supabase_migrations.schema_migrations') IS NOT NULL").first?.first ?? nil
        guard exists == "t" else { return [] }
        return try connection.query("SELECT version, coalesce(name, ''), coalesce(checksum, '') FROM supabase_migrations.schema_migrations ORDER BY length(version), version")
            .map { AppliedMigration(version: $0[0] ?? "", name: $0[1] ?? "", checksum: $0[2] ?? "") }
    }

    private static func record(_ file: MigrationFile, on connection: PGConnection) throws(StoreError) {
        try connection.query(
            "INSERT INTO supabase_migrations.schema_migrations (version, name, statements, checksum) VALUES ($1, $2, ARRAY[$3], $4)",
            [file.version, file.name, file.sql, file.checksum])
    }

    /// Whether an earlier Soar made the seed app's tables itself (before the app had migrations).
    private static func madeBySoar(on connection: PGConnection) throws(StoreError) -> Bool {
        let found = try connection.query(
            "SELECT to_regclass('public.todos') IS NOT NULL AND EXISTS (SELECT FROM public.soar_migrations WHERE name = '0002_app_policies.sql')")
        return found.first?.first == "t"
    }

    /// Soar's own tables in public, which the data API does not serve.
    static let internalTables: Set<String> = ["soar_migrations", "push_sends", "push_send_reasons", "push_jobs", "push_schedules", "push_templates", "push_webhooks", "push_webhook_messages"]

    /// The data API's schema from the catalog, as PostgREST's schema cache reads it.
    static func catalog(on connection: PGConnection) throws(StoreError) -> Schema {
        var schema = Schema()
        for row in try connection.query(
            "SELECT t.typname, e.enumlabel FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = 'public' ORDER BY t.typname, e.enumsortorder")
        {
            schema.enums[row[0] ?? "", default: []].append(row[1] ?? "")
        }
        let columns = try connection.query(
            """
            SELECT c.relname, c.relkind::text, a.attname, t.typname, a.attnotnull, a.atthasdef OR a.attidentity <> ''
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            JOIN pg_type t ON t.oid = a.atttypid
            WHERE n.nspname = 'public' AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
            ORDER BY c.relname, a.attnum
            """)
        for row in columns where !internalTables.contains(row[0] ?? "") {
            let name = row[0] ?? ""
            var relation = schema.relations[name] ?? Relation(name: name, isView: ["v", "m"].contains(row[1] ?? ""), columns: [])
            relation.columns.append(Attribute(name: row[2] ?? "", type: row[3] ?? "text", nullable: row[4] != "t", hasDefault: row[5] == "t"))
            // Postgres enforces its own grants and policies: the store lets every request reach it.
            for role in SQLiteTranslator.roles { relation.grants[role] = .all }
            schema.relations[name] = relation
        }
        let keys = try connection.query(
            """
            SELECT c.relname, a.attname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
            WHERE n.nspname = 'public' AND i.indisprimary ORDER BY c.relname, k.position
            """)
        for row in keys { schema.relations[row[0] ?? ""]?.primaryKey.append(row[1] ?? "") }
        for row in try connection.query(
            "SELECT tablename FROM pg_publication_tables WHERE pubname = 'supabase_realtime' AND schemaname = 'public'")
        {
            if let name = row[0], schema.relations[name] != nil { schema.realtime.insert(name) }
        }
        let foreign = try connection.query(
            """
            SELECT c.conname, rel.relname, CASE WHEN refns.nspname = 'public' THEN ref.relname ELSE refns.nspname || '.' || ref.relname END,
              (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i)
                JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
              (SELECT string_agg(a.attname, ',' ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i)
                JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n)
            FROM pg_constraint c JOIN pg_class rel ON rel.oid = c.conrelid JOIN pg_namespace ns ON ns.oid = rel.relnamespace
            JOIN pg_class ref ON ref.oid = c.confrelid JOIN pg_namespace refns ON refns.oid = ref.relnamespace
            WHERE c.contype = 'f' AND ns.nspname = 'public' ORDER BY c.conname
            """)
        for row in foreign {
            let key = ForeignKey(
                name: row[0] ?? "", columns: (row[3] ?? "").split(separator: ",").map(String.init), referencedRelation: row[2] ?? "",
                referencedColumns: (row[4] ?? "").split(separator: ",").map(String.init))
            schema.relations[row[1] ?? ""]?.foreignKeys.append(key)
        }
        return schema
    }

    /// See ``AppSchema/ownsDeviceTokens(_:)``: a definer function, since the rows it removes are
    /// other users', which the registering user's policies hide.
    static let oneOwnerTrigger = """
        CREATE SCHEMA IF NOT EXISTS soar;
        CREATE OR REPLACE FUNCTION soar.device_tokens_one_owner() RETURNS trigger
          LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM public.device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id) THEN
            IF (SELECT count(*) FROM soar.device_moves WHERE to_user = NEW.user_id AND moved_at > now() - interval '1 hour') >= \(AppSchema.movesPerHour) THEN
              RAISE EXCEPTION '\(AppSchema.tooManyMoves)';
            END IF;
            DELETE FROM soar.device_moves WHERE moved_at < now() - interval '1 day';
            INSERT INTO soar.device_moves (token, from_user, to_user)
              SELECT token, user_id, NEW.user_id FROM public.device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id;
            DELETE FROM public.device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id;
          END IF;
          RETURN NULL;
        END;
        $$;
        CREATE OR REPLACE TRIGGER device_tokens_one_owner AFTER INSERT OR UPDATE OF token, user_id ON public.device_tokens
          FOR EACH ROW EXECUTE FUNCTION soar.device_tokens_one_owner();
        DROP FUNCTION IF EXISTS public.device_tokens_one_owner();
        """

}
