import Testing
@testable import SoarSchema

@Suite(.timeLimit(.minutes(1)))
struct SQLiteTranslatorTests {
    private func translate(_ sql: String, into schema: Schema = Schema()) throws -> (Schema, [SQLiteTranslator.Step]) {
        var translator = SQLiteTranslator(schema: schema)
        var steps: [SQLiteTranslator.Step] = []
        for statement in try SQLParser.parse(sql) { steps += try translator.translate(statement) }
        return (translator.schema, steps)
    }

    @Test func aTableWithPoliciesBecomesSQLiteDDLAndPredicates() throws {
        let (schema, steps) = try translate("""
            create table public.todos (
              id uuid primary key default gen_random_uuid(),
              user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
              title text not null check (length(title) > 0),
              done boolean not null default false
            );
            alter table todos enable row level security;
            create policy "own" on todos for select to authenticated using ((select auth.uid()) = user_id);
            revoke delete on todos from anon;
            """)
        let todos = try #require(schema.relation("todos"))
        #expect(todos.primaryKey == ["id"] && todos.rowSecurity)
        #expect(todos.columns.map(\.type) == ["uuid", "uuid", "text", "bool"])
        #expect(steps[0].sql.contains(#""user_id" TEXT NOT NULL DEFAULT (auth_uid())"#))
        #expect(steps[0].sql.contains(#"REFERENCES "auth_users" ("id") ON DELETE CASCADE"#))
        #expect(steps[0].sql.contains(#"CONSTRAINT "todos_title_check" CHECK ((length("title")) > (0))"#))
        #expect(try schema.filter("todos", .select, role: "authenticated") == #"((((SELECT auth_uid())) = ("user_id")))"#)
        #expect(try schema.filter("todos", .select, role: "anon") == "0")
        #expect(try schema.filter("todos", .select, role: "service_role") == nil)
        #expect(todos.grants["anon"]?.delete == false && todos.grants["anon"]?.select == true)
    }

    @Test func whatCannotBeTranslatedIsRefusedWithItsPlace() throws {
        let sql = "create table t (id int primary key);\ncreate trigger x after insert on t for each row execute function f();"
        let error = #expect(throws: SQLError.self) { try translate(sql) }
        let position = SQLError.position(of: error?.offset ?? 0, in: sql)
        #expect(error?.message.contains("CREATE TRIGGER") == true)
        #expect(position.line == 2 && position.column == 1)
    }

    @Test func constantsAreReadAsTheirColumnsTypes() throws {
        let (schema, steps) = try translate("""
            create type mood as enum ('sad', 'ok', 'happy');
            create table n (id int primary key, at timestamptz);
            create table m (id int primary key, at timestamptz check (at > '2026-01-01 10:00+02'), ok boolean, mood mood check (mood >= 'ok'));
            alter table m enable row level security;
            create policy p on m for select using (ok = 'yes' and id in (select id from n where at = '2026-01-01'));
            """)
        #expect(steps[1].sql.contains(#"CHECK (("at") > ('2026-01-01T08:00:00.000000+00:00'))"#), "\(steps[1].sql)")
        #expect(steps[1].sql.contains(#"CHECK ((CASE "mood" WHEN 'sad' THEN 0 WHEN 'ok' THEN 1 WHEN 'happy' THEN 2 END) >= (1))"#))
        let filter = try #require(try schema.filter("m", .select, role: "anon"))
        #expect(filter.contains(#"(("ok") = (1))"#) && filter.contains(#"("at") = ('2026-01-01T00:00:00.000000+00:00')"#), "\(filter)")
        // A form Soar does not read ('infinity', zone names: Postgres reads more) is left as written;
        // an enum's unknown label is refused where it stands, as Postgres refuses it.
        let (_, more) = try translate("create table o (at timestamptz check (at < 'infinity'), u uuid check (u <> '{A0EEBC99-9C0B4EF8BB6D6BB9BD380A11}'), n int check (n <> ' 7 '));")
        #expect(more[0].sql.contains(#"("at") < ('infinity')"#) && more[0].sql.contains("'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'") && more[0].sql.contains(#"("n") <> (7)"#), "\(more[0].sql)")
        let sql = "create type e as enum ('a');\ncreate table p (v e check (v > 'b'));"
        let error = #expect(throws: SQLError.self) { try translate(sql) }
        #expect(error?.message == #"invalid input value for enum e: "b""#)
        #expect(SQLError.position(of: error?.offset ?? 0, in: sql).line == 2)
    }

    @Test func intervalsAreAmountsAndUnits() throws {
        #expect(ExpressionTranslator.intervalParts("1 day")! == (86_400, 0))
        #expect(ExpressionTranslator.intervalParts("@ 1 year 2 mons -3 hours")! == (-10_800, 14))
        #expect(ExpressionTranslator.intervalParts("1 week 01:30")! == (604_800 + 5_400, 0))
        #expect(ExpressionTranslator.intervalParts("1.5 hours")! == (5_400, 0))
        for refused in ["", "soon", "1", "1 fortnight", "1.5 months", "P1D"] { #expect(ExpressionTranslator.intervalParts(refused) == nil, "\(refused)") }
        let (_, steps) = try translate("create table t (at timestamptz check (at > now() - interval '7 days'));")
        #expect(steps[0].sql.contains("soar_shift(now(), -604800.0, 0)"), "\(steps[0].sql)")
        #expect(throws: SQLError.self) { try translate("create table u (at timestamptz check (at > now() - interval 'P1D'));") }
    }

    @Test func aSyntaxErrorNamesItsLineAndColumn() {
        let sql = "create table t (id int);\ncreate tabel u (id int);"
        let error = #expect(throws: SQLError.self) { try SQLParser.parse(sql) }
        let position = SQLError.position(of: error?.offset ?? 0, in: sql)
        #expect(position == (2, 8) || position.line == 2, "\(position)")
    }

    @Test func restrictivePoliciesAreAndedAndPermissiveOred() throws {
        let (schema, _) = try translate("""
            create table notes (id int primary key, team int, author uuid);
            alter table notes enable row level security;
            create policy a on notes for select using (team = 1);
            create policy b on notes for select using (team = 2);
            create policy c on notes as restrictive for select using (author is not null);
            """)
        #expect(try schema.filter("notes", .select, role: "anon") == #"((("team") = (1)) OR (("team") = (2))) AND (("author") IS NOT NULL)"#)
    }

    @Test func aPolicysSubqueryReadsUnderThatTablesPolicies() throws {
        let (schema, _) = try translate("""
            create table members (team int, person uuid);
            create table notes (id int primary key, team int);
            alter table members enable row level security;
            alter table notes enable row level security;
            create policy own on members for select using (person = auth.uid());
            create policy team on notes for select using (exists (select 1 from members m where m.team = notes.team));
            """)
        let filter = try #require(try schema.filter("notes", .select, role: "authenticated"))
        #expect(filter.contains(#"EXISTS (SELECT 1 FROM (SELECT * FROM "members" WHERE ((("person") = (auth_uid())))) AS "m""#), "\(filter)")
        #expect(try schema.filter("notes", .select, role: "service_role") == nil)
    }

    @Test func policiesThatReadEachOtherAreARecursionAsInPostgres() throws {
        let (schema, _) = try translate("""
            create table a (id int primary key);
            create table b (id int primary key);
            alter table a enable row level security;
            alter table b enable row level security;
            create policy pa on a for select using (exists (select 1 from b where b.id = a.id));
            create policy pb on b for select using (exists (select 1 from a where a.id = b.id));
            """)
        #expect(throws: Schema.Recursion(relation: "a")) { try schema.filter("a", .select, role: "authenticated") }
        // So is any policy that reads its own table, whatever its command, as Postgres finds it.
        let (own, _) = try translate("""
            create table m (team int, person uuid, role text);
            alter table m enable row level security;
            create policy see on m for select using (person = auth.uid());
            create policy owners on m for insert with check (exists (select 1 from m o where o.team = m.team and o.role = 'owner'));
            """)
        #expect(try own.filter("m", .select, role: "authenticated") != nil)
        #expect(throws: Schema.Recursion(relation: "m")) { try own.check("m", .insert, role: "authenticated") }
    }

    @Test func anInvokerViewReadsUnderTheCallersPolicies() throws {
        let (schema, steps) = try translate("""
            create table notes (id int primary key, owner uuid);
            alter table notes enable row level security;
            create policy mine on notes for select using (owner = auth.uid());
            create view mine with (security_invoker = true) as select id from notes;
            create view everyone as select id from notes;
            """)
        #expect(steps.last?.sql == #"CREATE VIEW "everyone" AS SELECT "id" FROM "notes" AS "notes""#)
        #expect(try schema.source("mine", role: "authenticated").contains(#"FROM (SELECT * FROM "notes" WHERE"#))
        #expect(try schema.source("everyone", role: "authenticated") == #""everyone""#)
    }

    @Test func negativeAndZeroIntegersKeepTheirValue() throws {
        let (_, steps) = try translate("create table t (id int primary key, d int default -7 check (d > -5 and d <> 0));")
        #expect(steps[0].sql.contains("DEFAULT (-7)") && steps[0].sql.contains("((\"d\") > (-5)) AND ((\"d\") <> (0))"), "\(steps[0].sql)")
    }

    @Test func policiesMayNotReadAuthUsersAsOnSupabase() {
        let error = #expect(throws: SQLError.self) {
            try translate("""
                create table t (id int primary key);
                alter table t enable row level security;
                create policy p on t for select using (exists (select 1 from auth.users u where u.id = auth.uid()));
                """)
        }
        #expect(error?.message.contains("auth.users is refused") == true, "\(String(describing: error))")
    }

    @Test func functionsKeepDefinerAndExecuteGrants() throws {
        let (schema, _) = try translate("""
            create table t (id int primary key);
            create function f() returns bigint language sql security definer as $$ select count(*) from t $$;
            revoke execute on function f() from anon, public;
            """)
        let function = try #require(schema.functions["f"])
        #expect(function.securityDefiner && function.arguments.isEmpty)
        #expect(!function.executable(by: "anon") && function.executable(by: "authenticated"))
    }

    @Test func theFolderAndTheDatabaseMustAgree() throws {
        let files = ["1", "3"].map { MigrationFile(version: $0, name: "m\($0)", sql: "select \($0);", path: "m/\($0)_m\($0).sql") }
        let applied = [AppliedMigration(version: "1", name: "m1", checksum: files[0].checksum), AppliedMigration(version: "2", name: "m2", checksum: "x")]
        let missing = #expect(throws: MigrationError.self) { try MigrationFile.pending(files, applied: applied) }
        #expect(missing?.message.contains("2_m2.sql was applied to this database but is not in the migrations folder") == true)
        let late = MigrationFile(version: "2", name: "late", sql: "select 2;", path: "m/2_late.sql")
        let appliedBoth = [AppliedMigration(version: "1", name: "m1", checksum: files[0].checksum), AppliedMigration(version: "3", name: "m3", checksum: files[1].checksum)]
        let older = #expect(throws: MigrationError.self) { try MigrationFile.pending([files[0], late, files[1]], applied: appliedBoth) }
        #expect(older?.message == "m/2_late.sql is older than 3, the last migration applied: give it a newer version (soar migration new NAME) so every database applies them in one order")
        #expect(try MigrationFile.pending(files, applied: [applied[0]]).map(\.version) == ["3"])
    }

    @Test func generatedTypesNeverClash() throws {
        let (schema, _) = try translate("""
            create type item_type as enum ('Done', 'done');
            create table note (id int primary key);
            create table notes (id int primary key, _x int, x_ int, self text, kind item_type);
            create table item_types (id int primary key);
            create table series (id int primary key);
            """)
        let source = SwiftTypes.source(schema)
        #expect(source.contains("public struct Note:") && source.contains("public struct Notes:"))
        #expect(source.contains("public enum ItemType:") && source.contains("public struct ItemTypes:"), "\(source)")
        #expect(source.contains("case done = \"Done\"") && source.contains("case done2 = \"done\""))
        #expect(source.contains("public var x: Int?") && source.contains("public var x2: Int?") && source.contains("public var self_: String?"))
        #expect(source.contains("public struct Series:"))
    }

    @Test func aDefinerHelperInAPolicyEndsTheRecursionAsInPostgres() throws {
        let (schema, _) = try translate("""
            create table members (team int, person uuid);
            alter table members enable row level security;
            create function is_member(t int) returns boolean language sql security definer as $$
              select exists (select 1 from members where team = t and person = auth.uid()) $$;
            create policy "co-members" on members for select using (is_member(team));
            """)
        let filter = try #require(try schema.filter("members", .select, role: "authenticated"))
        // The argument is the policy's row, computed outside the helper's own FROM "members".
        #expect(filter.contains(#"(SELECT (SELECT EXISTS (SELECT 1 FROM "members" AS "members" WHERE (("team") = ("soar_arguments"."a1")) AND (("person") = (auth_uid())))) FROM (SELECT ("team") AS "a1") AS "soar_arguments")"#), "\(filter)")
    }

    @Test func anAddedCheckBecomesTriggersOnTheNewRow() throws {
        let (_, steps) = try translate("create table t (id int primary key, d int);\nalter table t add constraint d_small check (d < 10 and id > -1);")
        #expect(steps.count == 3)
        #expect(steps[1].sql == #"CREATE TRIGGER "d_small_insert" BEFORE INSERT ON "t" WHEN NOT (((NEW."d") < (10)) AND ((NEW."id") > (-1))) BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: d_small'); END"#, "\(steps[1].sql)")
    }
}

/// `ALTER PUBLICATION supabase_realtime`: which tables realtime follows, on SQLite as on Postgres.
@Suite(.timeLimit(.minutes(1))) struct PublicationTranslationTests {
    func translated(_ sql: String) throws(SQLError) -> Schema {
        var translator = SQLiteTranslator(schema: Schema())
        for statement in try SQLParser.parse(sql) { _ = try translator.translate(statement) }
        return translator.schema
    }

    @Test func tablesAreAddedDroppedAndSet() throws {
        let tables = "create table a (id int primary key); create table b (id int primary key); create view v as select * from a;"
        #expect(try translated(tables + "alter publication supabase_realtime add table a, public.b;").realtime == ["a", "b"])
        #expect(try translated(tables + "alter publication supabase_realtime add table a, b; alter publication supabase_realtime drop table a;").realtime == ["b"])
        #expect(try translated(tables + "alter publication supabase_realtime add table a; alter publication supabase_realtime set table b;").realtime == ["b"])
        #expect(try translated(tables + "alter publication supabase_realtime add table a; alter table a rename to c;").realtime == ["c"])
        #expect(try translated(tables + "alter publication supabase_realtime add table a; drop table a;").realtime == [])
        for (sql, message) in [
            ("alter publication other add table a;", "does not exist"), ("alter publication supabase_realtime add table v;", "is not a table"),
            ("alter publication supabase_realtime add table nope;", "does not exist"),
            ("alter publication supabase_realtime add table a; alter publication supabase_realtime add table a;", "already member"),
            ("create publication supabase_realtime;", "already exists"),
            ("alter publication supabase_realtime add table a (id);", "column lists"),
        ] {
            do {
                _ = try translated(tables + sql)
                Issue.record("\(sql) was taken")
            } catch {
                #expect(error.message.contains(message), "\(sql): \(error.message)")
            }
        }
    }
}
