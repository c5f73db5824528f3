import Foundation
import SoarClient
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A stand-in for `soar serve` inside a test: GoTrue's password sign-up and sign-in and
/// PostgREST's table API, in memory, behind the transport a ``Soar`` client takes. An app's
/// view-model and repository tests run against it with no server and no network:
///
/// ```swift
/// let backend = InMemoryBackend()
/// let client = Soar(supabaseURL: backend.url, supabaseKey: "test", store: InMemorySecureStore(), transport: backend)
/// try await client.auth.signUp(email: "ada@example.com", password: "correct-horse")
/// ```
///
/// What it does: `eq`, `neq`, `gt`, `gte`, `lt`, `lte`, `in`, `is`, `like` and `ilike` filters,
/// `order`, `limit` and `offset`, `single()`, inserts and upserts (`on_conflict`, merge or
/// ignore), updates and deletes, `return=representation`; `id` (a UUID), `created_at` and
/// `updated_at` filled in when absent. Ownership as the starter's policies have it: a signed-in
/// caller sees and writes only rows whose `user_id` (for `profiles`, `id`) is theirs, and a new
/// row without one becomes theirs. What it does not: embedding, column lists, RPC, storage; those
/// answer 501 with a message saying so. `offline` makes every request fail as a lost network does.
public final class InMemoryBackend: HTTPTransport {
    public let url = URL(string: "http://in-memory.soar.test")!
    private let state: Locked<State>

    struct State {
        var tables: [String: [[String: JSONValue]]]
        var defaults: [String: [String: JSONValue]]
        var users: [String: (id: UUID, password: String)] = [:]
        /// Access and refresh tokens to user ids.
        var tokens: [String: UUID] = [:]
        var offline = false
        var requests: [URLRequest] = []
    }

    /// - Parameters:
    ///   - tables: the tables and their rows (the starter's tables, empty, by default).
    ///   - defaults: column values a new row takes when it has none (`todos.completed` is false).
    public init(
        tables: [String: [[String: JSONValue]]] = Dictionary(uniqueKeysWithValues: InMemoryBackend.starterTables.map { ($0, []) }),
        defaults: [String: [String: JSONValue]] = ["todos": ["completed": false, "sort_order": 0]]
    ) {
        state = Locked(State(tables: tables, defaults: defaults))
    }

    public static let starterTables = ["todos", "profiles", "device_tokens", "notifications", "subscriptions", "payments"]

    public var offline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    /// Every request made, in order.
    public var requests: [URLRequest] { state.withLock { $0.requests } }

    /// A table's rows as they stand, whoever owns them.
    public func rows(_ table: String) -> [[String: JSONValue]] { state.withLock { $0.tables[table] ?? [] } }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let offline = state.withLock { state in
            state.requests.append(request)
            return state.offline
        }
        if offline { throw URLError(.notConnectedToInternet) }
        let (status, body) = state.withLock { state in Self.answer(request, &state) }
        let headers = ["Content-Type": "application/json"]
        return (body.jsonData, HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!)
    }

    // MARK: answering

    private static func answer(_ request: URLRequest, _ state: inout State) -> (Int, JSONValue) {
        guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return error(400, "PGRST100", "unreadable request")
        }
        let parts = components.path.split(separator: "/").map(String.init)
        let query = (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        let body = request.httpBody.flatMap { try? JSONValue.read($0) }
        let caller = bearer(request).flatMap { state.tokens[$0] }
        switch (parts.first, parts.dropFirst().first) {
        case ("auth", "v1"): return Auth.answer(Array(parts.dropFirst(2)), query, body, request, &state)
        case ("rest", "v1") where parts.count == 3:
            return Table(name: parts[2], caller: caller).answer(request, query, body, &state)
        default: return error(501, "not_implemented", "InMemoryBackend does not serve \(components.path)")
        }
    }

    static func bearer(_ request: URLRequest) -> String? {
        guard let header = request.value(forHTTPHeaderField: "Authorization"), header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst(7))
    }

    static func error(_ status: Int, _ code: String, _ message: String) -> (Int, JSONValue) {
        (status, ["code": .string(code), "message": .string(message), "msg": .string(message), "error_code": .string(code)])
    }
}
