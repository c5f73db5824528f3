import Foundation
import SoarAuth
import SoarConsoleAssets
import SoarHTTP
import SoarPush
import SoarRealtime
import SoarStore

/// The console on a port of its own: its pages (`/console/`, assets in the binary, no request to
/// any other host, a Content-Security-Policy that says so) and its API (``ConsoleAPI``).
final class ConsoleServer: Sendable {
    private let http: HTTPServer
    private let live: ConsoleLive
    let url: String

    /// Nothing loads from elsewhere, nothing runs inline, and no other site may frame it; the
    /// simulated device's tab talks to this server and to the API (`apiOrigin`), as an app does.
    static func policy(apiOrigin: String) -> String {
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self' \(apiOrigin); "
            + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    }

    init(
        host: String, port: UInt16, hostForURL: String, tls: HTTPServer.TLS?, store: any Store, push: PushService, hasher: any PasswordHashing,
        device: ConsoleDevice, emulator: (@Sendable (String, String, Data) -> (status: Int, body: Data))?, realtime: RealtimeServer,
        now: @escaping @Sendable () -> Date
    ) throws(HTTPServerError) {
        let live = ConsoleLive(realtime: realtime, push: push, now: now)
        let api = ConsoleAPI(
            store: store, push: push, sessions: ConsoleSessions(store: store, hasher: hasher, secure: tls != nil, now: now), emulator: emulator, live: live,
            now: now)
        let policy = Self.policy(apiOrigin: device.apiURL)
        http = try HTTPServer(host: host, port: port, tls: tls) { request, _ in
            var response = Self.answer(request, api: api, device: device)
            response.headers += [
                ("content-security-policy", policy), ("x-content-type-options", "nosniff"), ("referrer-policy", "no-referrer"),
                ("cache-control", "no-store"),
            ]
            return response
        }
        url = "\(tls == nil ? "http" : "https")://\(hostForURL):\(http.port)/console/"
        self.live = live
        live.start()
    }

    var port: UInt16 { http.port }

    func stop() {
        live.stop()
        http.stop()
    }

    private static func answer(_ request: HTTPRequest, api: ConsoleAPI, device: ConsoleDevice) -> HTTPResponse {
        if request.path.hasPrefix("/console/api/") { return api.handle(request) }
        if request.path.hasPrefix("/console/device/api/") { return device.handle(request) }
        guard request.method == "GET" || request.method == "HEAD" else { return .error(405, "the console's pages are read with GET") }
        if request.path == "/" || request.path == "/console" { return HTTPResponse(status: 302, headers: [("location", "/console/")]) }
        guard let asset = ConsoleAssets.asset(at: request.path) else { return .error(404, "no console page at \(request.path)") }
        return HTTPResponse(status: 200, headers: [("content-type", asset.type)], body: asset.bytes)
    }
}
