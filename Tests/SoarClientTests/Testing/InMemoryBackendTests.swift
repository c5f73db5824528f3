import Foundation
import SoarClient
@testable import SoarClientTesting
import Testing

/// The in-memory stand-in an app's own tests use: the seed app's todos screen, end to end through
/// the real repository and data source, with no server.
@MainActor @Suite(.timeLimit(.minutes(1))) struct InMemoryBackendTests {
    @Test func theTodosScreenRunsAgainstIt() async throws {
        let backend = InMemoryBackend()
        let client = Soar(supabaseURL: backend.url, supabaseKey: "test", store: InMemorySecureStore(), transport: backend)
        let ada = try await client.auth.signUp(email: "ada@example.com", password: "correct-horse")
        let model = TodosViewModel(repository: TodosRepository(remote: TodosRemoteDataSource(client: client)), userId: ada.user.id)
        await model.load()
        #expect(model.state == .data([]))
        await model.add("  milk ")
        await model.add("tea")
        #expect(model.state.value?.map(\.title) == ["milk", "tea"] && model.state.value?.map(\.sortOrder) == [0, 1])
        let milk = try #require(model.state.value?.first)
        await model.toggle(milk)
        await model.load()
        #expect(model.state.value?.first?.completed == true)
        await model.delete(milk)
        await model.add("")
        #expect(model.actionError != nil, "an empty title is refused before any request")
        #expect(backend.rows("todos").map { $0["title"] } == [.string("tea")])

        // Another user sees none of it, as the starter's policies have it.
        await client.auth.signOut()
        let bob = try await client.auth.signUp(email: "bob@example.com", password: "correct-horse")
        let theirs: [Todo] = try await client.from("todos").select().execute().value
        #expect(theirs.isEmpty && bob.user.id != ada.user.id)
        await #expect(throws: AppError.self) {
            try await client.from("todos").insert(Todo(userId: ada.user.id, title: "not mine")).execute()
        }

        // Offline is a lost network, as the app sees it.
        backend.offline = true
        await #expect(throws: AppError(.network, AppError.Messages.offline)) { try await client.from("todos").select().execute() }
    }

    @Test func aTodoThatIsGoneIsNotFoundWithOrWithoutAQueue() async throws {
        let backend = InMemoryBackend()
        let client = Soar(supabaseURL: backend.url, supabaseKey: "test", store: InMemorySecureStore(), transport: backend)
        let user = try await client.auth.signUp(email: "ada@example.com", password: "correct-horse").user.id
        let queue = WriteQueue(file: FileManager.default.temporaryDirectory.appendingPathComponent("writes-\(UUID().uuidString).json"), client: client)
        let gone = Todo(userId: user, title: "gone")
        for writes in [nil, queue] {
            let todos = TodosRepository(remote: TodosRemoteDataSource(client: client, writes: writes))
            #expect(await todos.toggle(gone).error?.code == .notFound)
            #expect(await todos.delete(gone).error?.code == .notFound)
        }
    }

    @Test(arguments: [
        ("eq.5", true), ("neq.5", false), ("gt.4", true), ("gte.5", true), ("lt.5", false), ("lte.5", true), ("in.(4,5)", true),
        ("is.null", false),
    ])
    func filtersCompareNumbersAsNumbers(condition: String, expected: Bool) {
        #expect(InMemoryBackend.Table.matches(.int(5), condition) == expected)
    }
}
