import Foundation
import SoarClient
import Supabase

/// `device_tokens` through supabase-swift: the upsert on `(user_id, token)` and the delete as the
/// ending session, reported when it matched nothing.
public struct SupabaseDeviceTokens: DeviceTokenRegistry {
    let client: SupabaseClient
    public init(client: SupabaseClient) { self.client = client }

    public func register(_ registration: DeviceToken, accessToken: String) async throws(AppError) {
        do {
            try await client.from("device_tokens").upsert(registration, onConflict: "user_id,token")
                .setHeader(name: "Authorization", value: "Bearer " + accessToken).execute()
        } catch { throw AppError.map(error) }
    }

    public func unregister(token: String, userId: UUID, accessToken: String) async throws(AppError) {
        let deleted: [DeviceToken]
        do {
            deleted = try await client.from("device_tokens").delete().eq("user_id", value: userId).eq("token", value: token)
                .select().setHeader(name: "Authorization", value: "Bearer " + accessToken).execute().value
        } catch { throw AppError.map(error) }
        if deleted.isEmpty { throw AppError(.notFound, "This device's token row was not found to delete.") }
    }
}

/// The server's inbox (`notifications`) through supabase-swift.
public struct SupabaseInbox: InboxSyncing {
    let client: SupabaseClient
    public init(client: SupabaseClient) { self.client = client }

    public func fetch() async throws(AppError) -> [InboxEntry] {
        do {
            let rows: [JSONValue] = try await client.from("notifications").select().order("created_at", ascending: false)
                .limit(Inbox.capacity).execute().value
            return rows.compactMap(ServerInbox.entry)
        } catch { throw AppError.map(error) }
    }

    public func markRead(_ id: String, at date: Date) async throws(AppError) {
        do { try await client.from("notifications").update(["read_at": Timestamp.format(date)]).eq("id", value: id).execute() } catch {
            throw AppError.map(error)
        }
    }

    public func markOpened(_ id: String, at date: Date) async throws(AppError) {
        let now = Timestamp.format(date)
        do { try await client.from("notifications").update(["opened_at": now, "read_at": now]).eq("id", value: id).execute() } catch {
            throw AppError.map(error)
        }
    }
}

/// The todos screen's data source through supabase-swift (seed 002's `TodosRemoteDataSource`).
public struct SupabaseTodos: TodosRemoteDataSourceProtocol {
    let client: SupabaseClient
    public init(client: SupabaseClient) { self.client = client }

    public func fetchTodos(userId: UUID) async throws(AppError) -> Fetched<[Todo]> {
        do {
            let todos: [Todo] = try await client.from("todos").select().eq("user_id", value: userId).order("sort_order")
                .order("created_at").execute().value
            return Fetched(todos)
        } catch { throw AppError.map(error) }
    }

    public func insert(_ todo: Todo) async throws(AppError) {
        do { try await client.from("todos").insert(todo).execute() } catch { throw AppError.map(error) }
    }

    public func setCompleted(id: UUID, _ completed: Bool) async throws(AppError) {
        try await changed { try client.from("todos").update(["completed": completed]).eq("id", value: id) }
    }

    public func delete(id: UUID) async throws(AppError) {
        try await changed { client.from("todos").delete().eq("id", value: id) }
    }

    public func setSortOrder(id: UUID, _ sortOrder: Int) async throws(AppError) {
        try await changed { try client.from("todos").update(["sort_order": sortOrder]).eq("id", value: id) }
    }

    /// An update or delete that matched no row is `.notFound`, as with SoarClient's own client.
    private func changed(_ query: () throws -> PostgrestFilterBuilder) async throws(AppError) {
        let rows: [Todo]
        do { rows = try await query().select().execute().value } catch { throw AppError.map(error) }
        if rows.isEmpty { throw AppError(.notFound, "That item was changed or deleted elsewhere, so this change was not saved.") }
    }
}

/// The Notifications screen's test button through supabase-swift's functions client.
public struct SupabasePushTestSender: PushTestSending {
    let client: SupabaseClient
    public init(client: SupabaseClient) { self.client = client }

    public func send(_ request: PushTestRequest) async -> AppResult<PushTestResult> {
        await AppResult {
            do {
                return try await client.functions.invoke("send-test-push", options: FunctionInvokeOptions(body: request)) as PushTestResult
            } catch { throw AppError.map(error) }
        }
    }
}
