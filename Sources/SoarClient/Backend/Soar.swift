import Foundation
import SoarCore

/// A Supabase-compatible client for `soar serve` (or a Supabase project): auth, the data API,
/// functions and realtime, in supabase-swift's shapes (`client.auth`, `client.from(_:)`,
/// `client.functions.invoke(_:options:)`, `client.channel(_:)`), under names of its own so an app
/// may import supabase-swift beside it.
public final class Soar: Sendable {
    public let auth: SoarAuthClient
    public let functions: SoarFunctionsClient
    /// Supabase Storage: `storage.from("avatars")`.
    public let storage: SoarStorageClient
    /// Supabase Realtime: channels that follow row changes and carry broadcasts.
    public let realtime: RealtimeClient
    let backend: Backend

    /// - Parameters:
    ///   - supabaseURL: the API URL, e.g. `http://127.0.0.1:54321`.
    ///   - supabaseKey: the project's anon key, sent as `apikey` on every request.
    ///   - store: where the session is kept between launches: by default the keychain on Apple
    ///     systems, 0600 files under `$XDG_DATA_HOME/soar/<host>` (or `~/.local/share`) elsewhere.
    ///   - transport: URLSession unless a test gives a fake.
    ///   - webSockets: how realtime opens its socket (URLSession on Apple systems, libwslay elsewhere).
    ///   - refreshMargin: seconds before expiry at which an access token is refreshed.
    ///   - now: the clock refreshes are timed by.
    public init(
        supabaseURL: URL, supabaseKey: String, store: (any SecureStore)? = nil, transport: any HTTPTransport = URLSessionTransport(),
        webSockets: (any WebSocketConnecting)? = nil, refreshMargin: TimeInterval = 60, now: @escaping @Sendable () -> Date = Date.init
    ) {
        backend = Backend(url: supabaseURL, anonKey: supabaseKey, transport: transport)
        auth = SoarAuthClient(backend: backend, store: store ?? Self.platformStore(for: supabaseURL), refreshMargin: refreshMargin, now: now)
        functions = SoarFunctionsClient(backend: backend, auth: auth)
        storage = SoarStorageClient(backend: backend, auth: auth)
        realtime = RealtimeClient(url: supabaseURL, apiKey: supabaseKey, auth: auth, connector: webSockets ?? Self.platformWebSockets)
    }

    #if canImport(FoundationNetworking)
        static let platformWebSockets: any WebSocketConnecting = SocketWebSockets()

        static func platformStore(for url: URL) -> any SecureStore {
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
            let name = "\(url.host ?? "local")-\(url.port ?? (url.scheme == "https" ? 443 : 80))"
            return FileSecureStore(directory: base.appendingPathComponent("soar").appendingPathComponent(name))
        }
    #else
        static let platformWebSockets: any WebSocketConnecting = URLSessionWebSockets()

        static func platformStore(for url: URL) -> any SecureStore {
            KeychainStore(service: "soar.\(url.host ?? "local")")
        }
    #endif

    /// A query on a table of the data API (`/rest/v1/<table>`).
    public func from(_ table: String) -> Query {
        Query(table: table, backend: backend, auth: auth)
    }

    /// Calls a database function (`POST /rest/v1/rpc/<name>`) with named arguments; filters and
    /// `execute().value` follow as for a table.
    public func rpc(_ function: String, params: some Encodable & Sendable = [String: String]()) -> Query {
        Query(table: "rpc/" + function, backend: backend, auth: auth).posting(params)
    }

    /// A realtime channel (topic `realtime:<name>`), as supabase-swift's `client.channel(_:)`;
    /// `isPrivate`: authorized by the app's policies on `realtime.messages`.
    public func channel(_ name: String, isPrivate: Bool = false) -> RealtimeChannel {
        realtime.channel(name, isPrivate: isPrivate)
    }

    /// Any request to the backend, for what the typed API lacks: `path` under the API URL
    /// (`"auth/v1/settings"`, `"api/creator/device_tokens"`), sent as the signed-in user unless
    /// `headers` carry an `Authorization` of their own.
    ///
    /// - Returns: the body of a 2xx answer.
    @discardableResult
    public func request(_ method: String, path: String, query: [URLQueryItem] = [], headers: [String: String] = [:], body: Data? = nil) async throws(AppError) -> Data {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map { Backend.segment(String($0)) }
        return try await backend.send(Backend.Request(method: method, path: segments.joined(separator: "/"), query: query, headers: headers, body: body), as: auth)
    }
}

extension Backend {
    /// Sends a request as the signed-in user (the anon key when nobody is), refreshing an expiring
    /// token first, and once more after a 401 in case the token was revoked or expired in flight.
    func send(_ request: Request, as auth: SoarAuthClient) async throws(AppError) -> Data {
        // A request that names its own session (`setHeader(name: "Authorization", ...)`) is sent as is.
        if request.headers.keys.contains(where: { $0.lowercased() == "authorization" }) { return try await send(request, bearer: nil) }
        let token: String? = auth.currentSession == nil ? nil : try await auth.session.accessToken
        do throws(AppError) {
            return try await send(request, bearer: token)
        } catch where error.status == 401 && token != nil {
            // Refresh only if nobody did since this token was taken.
            guard let current = auth.currentSession else { throw error }
            let retry = current.accessToken == token ? try await auth.refresh().accessToken : current.accessToken
            return try await send(request, bearer: retry)
        }
    }
}
