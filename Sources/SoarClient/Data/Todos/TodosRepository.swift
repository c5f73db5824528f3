import Foundation
import SoarCore

/// What the todos screen may ask for; results never throw.
public protocol TodosRepositoryProtocol: Sendable {
    func list(userId: UUID) async -> AppResult<Fetched<[Todo]>>
    func add(text: String, userId: UUID) async -> AppResult<Todo>
    func toggle(_ todo: Todo) async -> AppResult<Todo>
    func delete(_ todo: Todo) async -> AppResult<Void>
    /// Stores the given order: each todo's `sort_order` becomes its index.
    func reorder(_ todos: [Todo]) async -> AppResult<[Todo]>
    /// The user's todos as they change elsewhere, or why they cannot be followed.
    func liveChanges(userId: UUID) async -> AppResult<AsyncStream<RowChange<Todo>>>
}

/// The todos feature's rules: titles are trimmed and checked, a new todo goes last (`sort_order`
/// one past the highest), a delete leaves a gap in `sort_order` and ``reorder(_:)`` closes it
/// (each todo's `sort_order` becomes its index). The network is the data source's.
public struct TodosRepository: TodosRepositoryProtocol {
    /// The longest title accepted, in characters.
    public static let maximumTitleLength = 500
    private let remote: any TodosRemoteDataSourceProtocol

    public init(remote: any TodosRemoteDataSourceProtocol) {
        self.remote = remote
    }

    public func liveChanges(userId: UUID) async -> AppResult<AsyncStream<RowChange<Todo>>> {
        await AppResult { try await remote.liveChanges(userId: userId) }
    }

    public func list(userId: UUID) async -> AppResult<Fetched<[Todo]>> {
        await AppResult { try await remote.fetchTodos(userId: userId) }
    }

    public func add(text: String, userId: UUID) async -> AppResult<Todo> {
        await AppResult {
            let title = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !title.isEmpty else { throw AppError.validation("Enter a title for the todo.") }
            guard title.count <= Self.maximumTitleLength else {
                throw AppError.validation("Keep the title under \(Self.maximumTitleLength) characters.")
            }
            let existing = try await remote.fetchTodos(userId: userId).value
            let next = (existing.map(\.sortOrder).max() ?? -1) + 1
            let todo = Todo(id: UUID(), userId: userId, title: title, sortOrder: next)
            try await remote.insert(todo)
            return todo
        }
    }

    public func toggle(_ todo: Todo) async -> AppResult<Todo> {
        await AppResult {
            var toggled = todo
            toggled.completed.toggle()
            try await remote.setCompleted(id: todo.id, toggled.completed)
            return toggled
        }
    }

    public func delete(_ todo: Todo) async -> AppResult<Void> {
        await AppResult { try await remote.delete(id: todo.id) }
    }

    public func reorder(_ todos: [Todo]) async -> AppResult<[Todo]> {
        await AppResult {
            var ordered = todos
            for index in ordered.indices where ordered[index].sortOrder != index {
                try await remote.setSortOrder(id: ordered[index].id, index)
                ordered[index].sortOrder = index
            }
            return ordered
        }
    }
}
