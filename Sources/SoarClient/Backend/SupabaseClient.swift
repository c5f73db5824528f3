import Foundation
import SoarCore

/// A Supabase-compatible client for `soar serve` (or a Supabase project): auth, the data API and
/// functions, shaped like supabase-swift's `client.auth`, `client.from(_:)` and `client.functions`.
public final class SupabaseClient: Sendable {
    public let auth: AuthClient
    public let functions: FunctionsClient
    /// Supabase Realtime: channels that follow row changes and carry broadcasts.
    public let realtime: RealtimeClient
    let backend: Backend

    /// - Parameters:
    ///   - url: the API URL, e.g. `http://127.0.0.1:54321`.
    ///   - anonKey: the project's anon key, sent as `apikey` on every request.
    ///   - store: where the session is kept between launches.
    ///   - transport: URLSession unless a test gives a fake.
    ///   - webSockets: how realtime opens its socket (URLSession on Apple systems, libwslay elsewhere).
    ///   - refreshMargin: seconds before expiry at which an access token is refreshed.
    ///   - now: the clock refreshes are timed by.
    public init(
        url: URL, anonKey: String, store: any SecureStore, transport: any HTTPTransport = URLSessionTransport(),
        webSockets: (any WebSocketConnecting)? = nil, refreshMargin: TimeInterval = 60, now: @escaping @Sendable () -> Date = Date.init
    ) {
        backend = Backend(url: url, anonKey: anonKey, transport: transport)
        auth = AuthClient(backend: backend, store: store, refreshMargin: refreshMargin, now: now)
        functions = FunctionsClient(backend: backend, auth: auth)
        realtime = RealtimeClient(url: url, apiKey: anonKey, auth: auth, connector: webSockets ?? Self.platformWebSockets)
    }

    #if canImport(FoundationNetworking)
        static let platformWebSockets: any WebSocketConnecting = SocketWebSockets()
    #else
        static let platformWebSockets: any WebSocketConnecting = URLSessionWebSockets()
    #endif

    /// A query on a table of the data API (`/rest/v1/<table>`).
    public func from(_ table: String) -> Query {
        Query(table: table, backend: backend, auth: auth)
    }
}

extension Backend {
    /// Sends a request as the signed-in user (the anon key when nobody is), refreshing an expiring
    /// token first, and once more after a 401 in case the token was revoked or expired in flight.
    func send(_ request: Request, as auth: AuthClient) async throws(AppError) -> Data {
        let token: String? = await auth.session == nil ? nil : try await auth.validSession().accessToken
        do throws(AppError) {
            return try await send(request, bearer: token)
        } catch where error.status == 401 && token != nil {
            // Refresh only if nobody did since this token was taken.
            guard let current = await auth.session else { throw error }
            let retry = current.accessToken == token ? try await auth.refresh().accessToken : current.accessToken
            return try await send(request, bearer: retry)
        }
    }
}
