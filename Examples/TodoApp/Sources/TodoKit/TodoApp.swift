import Foundation
import SoarClient

/// The app, wired once: the client, its session and offline files under one folder, the todos
/// and profile features, and the push pipeline with the app's own routes and registry.
public struct TodoApp: Sendable {
    public let client: Soar
    public let queue: WriteQueue
    public let todos: TodosRepository
    public let profile: ProfileRepository
    public let registrar: PushTokenRegistrar
    public let inbox: ServerInbox

    /// - Parameters:
    ///   - url: the server (`soar serve`'s API URL).
    ///   - anonKey: its anon key.
    ///   - folder: where the session (0600 files), the offline copy and the write queue live.
    ///   - transport: URLSession, or a test's stand-in.
    public init(url: URL, anonKey: String, folder: URL, transport: any HTTPTransport = URLSessionTransport()) {
        let secrets = FileSecureStore(directory: folder.appendingPathComponent("secrets"))
        client = Soar(supabaseURL: url, supabaseKey: anonKey, store: secrets, transport: transport)
        queue = WriteQueue(file: folder.appendingPathComponent("writes.json"), client: client)
        todos = TodosRepository(remote: TodosRemoteDataSource(
            client: client, cache: OfflineCache(directory: folder.appendingPathComponent("cache")), writes: queue))
        profile = ProfileRepository(remote: ProfileRemoteDataSource(client: client))
        registrar = PushTokenRegistrar(registry: AppDeviceTokens(client: client), auth: client.auth, store: secrets, environment: "sandbox")
        inbox = ServerInbox(client: client)
    }

    /// The signed-in user, or an error that says to sign in.
    public func user() throws(AppError) -> AuthUser {
        guard let user = client.auth.currentUser else { throw AppError(.authentication, "Sign in first: todoapp sign-in EMAIL PASSWORD") }
        return user
    }

    /// The inbox, newest first, each entry with the screen a tap opens.
    public func inboxEntries() async throws(AppError) -> [InboxEntry] {
        try await inbox.fetch().map { $0.routed(by: AppRoutes.table) }
    }
}
