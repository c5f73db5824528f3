import Foundation
import SoarClient
import SoarCore
import SoarTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct TodosRepositoryTests {
    let user = UUID()

    @Test func addTrimsValidatesAndGoesLast() async throws {
        let remote = FakeTodosDataSource([Todo(userId: user, title: "a", sortOrder: 0), Todo(userId: user, title: "b", sortOrder: 4)])
        let repository = TodosRepository(remote: remote)
        let added = try #require(await repository.add(text: "  buy milk \n", userId: user).value)
        #expect(added.title == "buy milk" && added.sortOrder == 5 && added.userId == user)
        #expect(remote.todos.count == 3 && remote.fetches == 1, "reads the rows once for the next sort_order")
        #expect(await repository.add(text: "   ", userId: user).error?.code == .validation)
        #expect(await repository.add(text: String(repeating: "x", count: 501), userId: user).error?.code == .validation)
        #expect(remote.todos.count == 3, "nothing invalid reaches the data source")
        let first = try #require(await TodosRepository(remote: FakeTodosDataSource()).add(text: "first", userId: user).value)
        #expect(first.sortOrder == 0)
    }

    @Test func failuresComeBackAsResultsNeverThrown() async {
        let remote = FakeTodosDataSource()
        remote.fail(with: AppError.network())
        let repository = TodosRepository(remote: remote)
        #expect(await repository.list(userId: user).error == AppError.network())
        #expect(await repository.add(text: "x", userId: user).error == AppError.network())
        #expect(await repository.delete(Todo(userId: user, title: "x")).error?.message == AppError.Messages.offline)
    }

    @Test func togglesDeletesAndReorders() async throws {
        let todos = (0..<3).map { Todo(userId: user, title: "\($0)", sortOrder: $0) }
        let remote = FakeTodosDataSource(todos)
        let repository = TodosRepository(remote: remote)
        let toggled = try #require(await repository.toggle(todos[1]).value)
        #expect(toggled.completed && remote.todos[1].completed)
        let reordered = try #require(await repository.reorder([todos[2], todos[0], todos[1]]).value)
        #expect(reordered.map(\.sortOrder) == [0, 1, 2] && reordered.map(\.title) == ["2", "0", "1"])
        #expect(remote.todos.sorted { $0.sortOrder < $1.sortOrder }.map(\.title) == ["2", "0", "1"])
        #expect(await repository.delete(todos[0]).value != nil)
        #expect(remote.todos.map(\.title).sorted() == ["1", "2"])
    }
}

@MainActor @Suite(.timeLimit(.minutes(1))) struct TodosViewModelTests {
    let user = UUID()

    @Test func idleThenLoadingThenDataEvenWhenEmpty() async {
        let model = TodosViewModel(repository: TodosRepository(remote: FakeTodosDataSource()), userId: user)
        #expect(model.state == .idle)
        await model.load()
        #expect(model.state == .data([]), "empty is data, not idle")
        await model.add("tea")
        #expect(model.state.value?.map(\.title) == ["tea"])
    }

    @Test func aFailedLoadShowsTheMessageAndAFailedActionKeepsTheList() async {
        let remote = FakeTodosDataSource([Todo(userId: user, title: "tea")])
        let model = TodosViewModel(repository: TodosRepository(remote: remote), userId: user)
        remote.fail(with: AppError.network())
        await model.load()
        #expect(model.state == .error(AppError.Messages.offline))
        remote.fail(with: nil)
        await model.load()
        remote.fail(with: AppError.rateLimited())
        await model.add("more")
        #expect(model.state.value?.count == 1 && model.actionError == AppError.Messages.rateLimited)
    }

    @Test func movingRowsStoresTheNewOrder() async {
        let remote = FakeTodosDataSource((0..<3).map { Todo(userId: user, title: "\($0)", sortOrder: $0) })
        let model = TodosViewModel(repository: TodosRepository(remote: remote), userId: user)
        await model.load()
        await model.move(fromOffsets: IndexSet(integer: 0), toOffset: 3)
        #expect(model.state.value?.map(\.title) == ["1", "2", "0"])
        #expect(remote.todos.sorted { $0.sortOrder < $1.sortOrder }.map(\.title) == ["1", "2", "0"])
    }
}
