import Foundation
import Observation
import SoarCore

/// The todos screen's state: one ``UiState`` plus whether it shows an offline copy.
@MainActor @Observable
public final class TodosViewModel {
    public private(set) var state: UiState<[Todo]> = .idle
    /// True while the list is the cached copy from before the connection was lost.
    public private(set) var isStale = false
    /// The last failed action's message, for a toast; the list stays as it was.
    public private(set) var actionError: String?

    private let repository: any TodosRepositoryProtocol
    private let userId: UUID

    public init(repository: any TodosRepositoryProtocol, userId: UUID) {
        self.repository = repository
        self.userId = userId
    }

    public func load() async {
        if state.value == nil { state = .loading }
        switch await repository.list(userId: userId) {
        case .success(let fetched):
            state = .data(fetched.value)
            isStale = fetched.isStale
        case .failure(let error):
            state = .error(error.message)
        }
    }

    /// Shows changes made elsewhere (another device) as they arrive: rows inserted or changed are
    /// placed by `sort_order`, deleted ones go. When live updates cannot be had, `actionError`
    /// says why and the list stays as loaded.
    ///
    /// - Returns: the task that applies them; cancel it to stop.
    @discardableResult
    public func followChanges() async -> Task<Void, Never>? {
        switch await repository.liveChanges(userId: userId) {
        case .failure(let error):
            actionError = error.message
            return nil
        case .success(let changes):
            return Task { [weak self] in
                for await change in changes { self?.apply(change) }
            }
        }
    }

    func apply(_ change: RowChange<Todo>) {
        guard var todos = state.value else { return }
        switch change {
        case .insert(let todo), .update(let todo):
            todos.removeAll { $0.id == todo.id }
            todos.append(todo)
            todos.sort { ($0.sortOrder, $0.createdAt ?? .distantFuture) < ($1.sortOrder, $1.createdAt ?? .distantFuture) }
        case .delete(let key):
            guard let id = key.objectValue?["id"]?.stringValue.flatMap(UUID.init(uuidString:)) else { return }
            todos.removeAll { $0.id == id }
        }
        state = .data(todos)
    }

    public func add(_ text: String) async {
        apply(await repository.add(text: text, userId: userId)) { todos, todo in todos.append(todo) }
    }

    public func toggle(_ todo: Todo) async {
        apply(await repository.toggle(todo)) { todos, toggled in
            if let index = todos.firstIndex(where: { $0.id == toggled.id }) { todos[index] = toggled }
        }
    }

    public func delete(_ todo: Todo) async {
        apply(await repository.delete(todo)) { todos, _ in todos.removeAll { $0.id == todo.id } }
    }

    public func move(fromOffsets source: IndexSet, toOffset destination: Int) async {
        guard var todos = state.value else { return }
        let moving = source.sorted().map { todos[$0] }
        for index in source.sorted(by: >) { todos.remove(at: index) }
        let target = destination - source.filter { $0 < destination }.count
        todos.insert(contentsOf: moving, at: target)
        apply(await repository.reorder(todos)) { todos, ordered in todos = ordered }
    }

    private func apply<T>(_ result: AppResult<T>, _ change: (inout [Todo], T) -> Void) {
        switch result {
        case .success(let value):
            var todos = state.value ?? []
            change(&todos, value)
            state = .data(todos)
            actionError = nil
        case .failure(let error):
            actionError = error.message
        }
    }
}
