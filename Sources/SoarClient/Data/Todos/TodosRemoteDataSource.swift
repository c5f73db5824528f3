import Foundation
import SoarCore

/// The Supabase calls behind the todos feature; the repository's seam for tests.
public protocol TodosRemoteDataSourceProtocol: Sendable {
    func fetchTodos(userId: UUID) async throws(AppError) -> Fetched<[Todo]>
    func insert(_ todo: Todo) async throws(AppError)
    func setCompleted(id: UUID, _ completed: Bool) async throws(AppError)
    func delete(id: UUID) async throws(AppError)
    func setSortOrder(id: UUID, _ sortOrder: Int) async throws(AppError)
    /// The user's todos as they change elsewhere (another device), once subscribed.
    func liveChanges(userId: UUID) async throws(AppError) -> AsyncStream<RowChange<Todo>>
}

extension TodosRemoteDataSourceProtocol {
    /// No live changes: a data source without realtime says so.
    public func liveChanges(userId: UUID) async throws(AppError) -> AsyncStream<RowChange<Todo>> {
        throw AppError(.unknown, "Live updates are not available here.")
    }
}

/// `todos` through the data API; with a cache and a write queue, it keeps working offline.
///
/// Reads save their answer to the cache and fall back to it (marked stale) when the server cannot
/// be reached. Writes go through the queue, so offline ones land later, in order, and are applied
/// to the cached copy too: an offline list shows them, and the next todo's `sort_order` counts them.
public struct TodosRemoteDataSource: TodosRemoteDataSourceProtocol {
    private let client: Soar
    private let cache: OfflineCache?
    private let writes: WriteQueue?

    public init(client: Soar, cache: OfflineCache? = nil, writes: WriteQueue? = nil) {
        self.client = client
        self.cache = cache
        self.writes = writes
    }

    public func fetchTodos(userId: UUID) async throws(AppError) -> Fetched<[Todo]> {
        let key = Self.cacheKey(userId)
        let query = client.from("todos").select().eq("user_id", value: userId).order("sort_order").order("created_at")
        do throws(AppError) {
            let data = try await query.execute().data
            let todos = try Self.decode(data)
            cache?.save(data, for: key)
            return Fetched(todos)
        } catch where error.isOffline {
            guard let saved = cache?.load(key) else { throw error }
            return Fetched(try Self.decode(saved.data), isStale: true, asOf: saved.savedAt)
        }
    }

    private static func decode(_ data: Data) throws(AppError) -> [Todo] {
        do { return try JSONCoding.decode([Todo].self, from: data) } catch { throw AppError(.unknown, AppError.Messages.server, original: error) }
    }

    public func insert(_ todo: Todo) async throws(AppError) {
        try await write(client.from("todos").insert(todo)) { $0.append(todo) }
    }

    public func setCompleted(id: UUID, _ completed: Bool) async throws(AppError) {
        try await write(client.from("todos").update(["completed": completed]).eq("id", value: id)) { todos in
            for index in todos.indices where todos[index].id == id { todos[index].completed = completed }
        }
    }

    public func delete(id: UUID) async throws(AppError) {
        try await write(client.from("todos").delete().eq("id", value: id)) { $0.removeAll { $0.id == id } }
    }

    public func setSortOrder(id: UUID, _ sortOrder: Int) async throws(AppError) {
        try await write(client.from("todos").update(["sort_order": sortOrder]).eq("id", value: id)) { todos in
            for index in todos.indices where todos[index].id == id { todos[index].sortOrder = sortOrder }
        }
    }

    /// Follows `todos` rows of `userId` over realtime (channel `todos:<user>`); the table must be
    /// in the `supabase_realtime` publication, or the server's reason is thrown.
    public func liveChanges(userId: UUID) async throws(AppError) -> AsyncStream<RowChange<Todo>> {
        let user = userId.uuidString.lowercased()
        let channel = client.channel("todos:" + user)
        let changes = channel.changes(of: Todo.self, table: "todos", filter: "user_id=eq." + user)
        try await channel.subscribe()
        return changes
    }

    /// Sends (or queues) a write, then applies it to the cached list. Either way, an update or
    /// delete that matched no row fails as ``AppError/Code/notFound``.
    private func write(_ query: Query, cached change: (inout [Todo]) -> Void) async throws(AppError) {
        if let writes { try await writes.submit(query) } else { try await client.send(try query.pendingWrite) }
        guard let cache, let user = client.auth.currentUser?.id else { return }
        let key = Self.cacheKey(user)
        guard let saved = cache.load(key), var todos = try? JSONCoding.decode([Todo].self, from: saved.data) else { return }
        change(&todos)
        todos.sort { ($0.sortOrder, $0.createdAt ?? .distantFuture) < ($1.sortOrder, $1.createdAt ?? .distantFuture) }
        if let data = try? JSONCoding.encode(todos) { cache.save(data, for: key) }
    }

    private static func cacheKey(_ user: UUID) -> String { "todos-\(user.uuidString.lowercased())" }
}
