import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct QueryTests {
    /// A signed-in client with three todos.
    func seeded() async throws -> (ClientFixture, UUID, [Todo]) {
        let fixture = try ClientFixture()
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let todos = (0..<3).map { Todo(userId: user, title: ["milk", "bread", "tea"][$0], completed: $0 == 1, sortOrder: $0) }
        try await fixture.client.from("todos").insert(todos).execute()
        return (fixture, user, todos)
    }

    @Test func selectFiltersOrdersAndDecodesRows() async throws {
        let (fixture, user, todos) = try await seeded()
        let all: [Todo] = try await fixture.client.from("todos").select().eq("user_id", value: user).order("sort_order", ascending: false).execute().value
        #expect(all.map(\.title) == ["tea", "bread", "milk"])
        #expect(all.last?.id == todos[0].id && all.last?.createdAt != nil)
        let open: [Todo] = try await fixture.client.from("todos").select().eq("completed", value: false).order("sort_order").execute().value
        #expect(open.map(\.title) == ["milk", "tea"])
        let some: [Todo] = try await fixture.client.from("todos").select().in("title", values: ["tea", "milk"]).order("title").execute().value
        #expect(some.map(\.title) == ["milk", "tea"])
        let liked: [Todo] = try await fixture.client.from("todos").select().ilike("title", pattern: "BR%").execute().value
        #expect(liked.map(\.title) == ["bread"])
        let page: [Todo] = try await fixture.client.from("todos").select().order("sort_order").range(from: 1, to: 2).execute().value
        #expect(page.map(\.title) == ["bread", "tea"])
        let first: [Todo] = try await fixture.client.from("todos").select().order("sort_order").limit(1).execute().value
        #expect(first.map(\.title) == ["milk"])
        let columns = try await fixture.client.from("todos").select("title").eq("id", value: todos[2].id).single().execute().data
        #expect(String(decoding: columns, as: UTF8.self) == #"{"title":"tea"}"#)
    }

    @Test func singleDecodesOneRowAndNoneIsNotFound() async throws {
        let (fixture, _, todos) = try await seeded()
        let one: Todo = try await fixture.client.from("todos").select().eq("id", value: todos[1].id).single().execute().value
        #expect(one.title == "bread" && one.completed)
        await #expect(throws: AppError(.notFound, AppError.Messages.notFound)) {
            let _: Todo = try await fixture.client.from("todos").select().eq("id", value: UUID()).single().execute().value
        }
    }

    @Test func updateUpsertAndDeleteReturnRowsWhenAsked() async throws {
        let (fixture, _, todos) = try await seeded()
        let updated: [Todo] = try await fixture.client.from("todos").update(["completed": true]).eq("id", value: todos[0].id).select().execute().value
        #expect(updated.map(\.completed) == [true])
        var renamed = todos[2]
        renamed.title = "green tea"
        try await fixture.client.from("todos").upsert(renamed, onConflict: "id").execute()
        let after: Todo = try await fixture.client.from("todos").select().eq("id", value: renamed.id).single().execute().value
        #expect(after.title == "green tea")
        try await fixture.client.from("todos").delete().eq("id", value: todos[1].id).execute()
        let left: [Todo] = try await fixture.client.from("todos").select().order("sort_order").execute().value
        #expect(left.map(\.title) == ["milk", "green tea"])
    }

    @Test func anotherUserSeesNothingAndCannotWrite() async throws {
        let (fixture, owner, todos) = try await seeded()
        let other = fixture.another()
        try await other.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        let seen: [Todo] = try await other.from("todos").select().eq("user_id", value: owner).execute().value
        #expect(seen.isEmpty)
        try await other.from("todos").delete().eq("id", value: todos[0].id).execute()
        let stolen = Todo(userId: owner, title: "not yours")
        await #expect { try await other.from("todos").insert(stolen).execute() } throws: { error in
            (error as? AppError)?.code == .authentication
        }
        let still: [Todo] = try await fixture.client.from("todos").select().execute().value
        #expect(still.count == 3)
    }

    @Test func aBrokenRuleIsAValidationErrorWithTheServersWords() async throws {
        let (fixture, user, _) = try await seeded()
        let error = await #expect(throws: AppError.self) {
            try await fixture.client.from("todos").insert(["user_id": user.uuidString, "title": "x", "sort_order": "not a number"]).execute()
        }
        #expect(error?.code == .validation && error?.status == 400)
        #expect(error?.message.contains("bigint") == true, "\(String(describing: error))")
    }

    @Test func functionsAreCalledAsTheUser() async throws {
        let fixture = try ClientFixture()
        try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse")
        let error = await #expect(throws: AppError.self) {
            try await fixture.client.functions.invoke("send-test-push", options: .init(body: PushTestRequest()))
        }
        #expect(error?.status == 503, "no APNs on this server: the seed's safe no-op")
    }

    @Test func valuesWithPostgRESTsSpecialCharactersMatchExactly() async throws {
        let fixture = try ClientFixture()
        let user = try await fixture.client.auth.signUp(email: ClientFixture.email(), password: "correct-horse").user.id
        let titles = [#"a,b"#, #"(x)"#, #"say "hi""#, "1+1=2 & more", "100%", #"back\slash"#, "dots.in.it"]
        try await fixture.client.from("todos").insert(titles.enumerated().map { Todo(userId: user, title: $1, sortOrder: $0) }).execute()
        for title in titles {
            let found: [Todo] = try await fixture.client.from("todos").select().eq("title", value: title).execute().value
            #expect(found.map(\.title) == [title])
        }
        let some: [Todo] = try await fixture.client.from("todos").select().in("title", values: titles).order("sort_order").execute().value
        #expect(some.map(\.title) == titles)
        await #expect(throws: AppError.self) { try await fixture.client.from("../auth/v1/admin/users").select().execute() }
        await #expect { try await fixture.client.functions.invoke("../../rest/v1/todos", options: .init(body: [String: String]())) } throws: { error in
            (error as? AppError)?.status == 404
        }
    }
}
