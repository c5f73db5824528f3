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
        #expect(todos.rowFilter(.select, role: "authenticated") == #"((((SELECT auth_uid())) = ("user_id")))"#)
        #expect(todos.rowFilter(.select, role: "anon") == "0")
        #expect(todos.rowFilter(.select, role: "service_role") == nil)
        #expect(todos.grants["anon"]?.delete == false && todos.grants["anon"]?.select == true)
    }

    @Test func whatCannotBeTranslatedIsRefusedWithItsPlace() throws {
        let sql = "create table t (id int primary key);\ncreate trigger x after insert on t for each row execute function f();"
        let error = #expect(throws: SQLError.self) { try translate(sql) }
        let position = SQLError.position(of: error?.offset ?? 0, in: sql)
        #expect(error?.message.contains("CREATE TRIGGER") == true)
        #expect(position.line == 2 && position.column == 1)
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
        #expect(schema.relation("notes")?.rowFilter(.select, role: "anon") == #"((("team") = (1)) OR (("team") = (2))) AND (("author") IS NOT NULL)"#)
    }
}
