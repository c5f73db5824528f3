import Foundation
import SoarClient
import Synchronization

/// Todos in memory behind the data-source seam, for repository tests with no network.
public final class FakeTodosDataSource: TodosRemoteDataSourceProtocol {
    private let state = Locked<(todos: [Todo], failure: AppError?, fetches: Int)>(([], nil, 0))

    public init(_ todos: [Todo] = []) {
        state.withLock { $0.todos = todos }
    }

    public var todos: [Todo] { state.withLock { $0.todos } }
    public var fetches: Int { state.withLock { $0.fetches } }
    public func fail(with error: AppError?) { state.withLock { $0.failure = error } }

    private func run<T>(_ body: (inout [Todo]) -> T) throws(AppError) -> T {
        let result: Result<T, AppError> = state.withLock { state in
            if let failure = state.failure { return .failure(failure) }
            return .success(body(&state.todos))
        }
        return try result.get()
    }

    public func fetchTodos(userId: UUID) async throws(AppError) -> Fetched<[Todo]> {
        state.withLock { $0.fetches += 1 }
        return Fetched(try run { todos in todos.filter { $0.userId == userId }.sorted { $0.sortOrder < $1.sortOrder } })
    }

    public func insert(_ todo: Todo) async throws(AppError) { try run { $0.append(todo) } }

    public func setCompleted(id: UUID, _ completed: Bool) async throws(AppError) {
        try run { todos in
            if let index = todos.firstIndex(where: { $0.id == id }) { todos[index].completed = completed }
        }
    }

    public func delete(id: UUID) async throws(AppError) { try run { $0.removeAll { $0.id == id } } }

    public func setSortOrder(id: UUID, _ sortOrder: Int) async throws(AppError) {
        try run { todos in
            if let index = todos.firstIndex(where: { $0.id == id }) { todos[index].sortOrder = sortOrder }
        }
    }
}
