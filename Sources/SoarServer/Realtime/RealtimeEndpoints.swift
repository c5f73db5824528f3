import Foundation
import SoarAuth
import SoarCore
import SoarCrypto
import SoarHTTP
import SoarRealtime
import SoarStore

/// Supabase Realtime's doors: the WebSocket at `/realtime/v1/websocket` (an upgrade handed to
/// ``RealtimeServer``) and server-side broadcasts at `/realtime/v1/api/broadcast`.
struct RealtimeEndpoints: Sendable {
    let realtime: RealtimeServer
    let gateway: Gateway

    func register(in router: inout Router) {
        router.add(["GET"], "/realtime/v1/websocket") { exchange throws(ServerError) in try upgrade(exchange) }
        router.add(["POST"], "/realtime/v1/api/broadcast") { exchange throws(ServerError) in try broadcast(exchange) }
    }

    /// The access a token gives a realtime socket or channel, or nil when it is not valid now.
    static func identity(_ token: String, auth: AuthService) -> RealtimeIdentity? {
        guard let verified = try? auth.tokens.verify(token, now: auth.now()) else { return nil }
        if let session = verified.sessionID, (try? auth.sessionLive(session)) != true { return nil }
        return RealtimeIdentity(role: verified.access.role.rawValue, userID: verified.access.userID, expiresAt: verified.claims["exp"]?.intValue)
    }

    private func upgrade(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        let request = exchange.request
        if let refusal = Self.handshakeRefusal(request) { return refusal }
        try gateway.requireAPIKey(exchange)
        let apiKey = exchange.header("apikey") ?? request.queryValue("apikey") ?? ""
        guard let identity = Self.identity(apiKey, auth: gateway.auth) else { throw .gateway(401, "Invalid API key", code: "401") }
        guard let version = PhoenixVersion(vsn: request.queryValue("vsn")) else {
            throw .gateway(400, "vsn must be 1.0.0 or 2.0.0", code: "400")
        }
        return Self.accept(request, into: realtime, version: version, identity: identity)
    }

    /// The answer to a request that is not a WebSocket handshake Soar speaks (426), or nil.
    static func handshakeRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.headers["upgrade"]?.lowercased() == "websocket", let key = request.headers["sec-websocket-key"], !key.isEmpty else {
            return HTTPResponse(status: 426, headers: [("upgrade", "websocket"), ("content-type", "application/json")],
                                body: JSONValue.object(["message": "Upgrade to a WebSocket to use Realtime"]).jsonData)
        }
        guard request.headers["sec-websocket-version"] == "13" else {
            return HTTPResponse(status: 426, headers: [("sec-websocket-version", "13")], body: Data())
        }
        return nil
    }

    /// The 101 that hands a checked handshake's socket to `realtime`, acting as `identity`.
    static func accept(_ request: HTTPRequest, into realtime: RealtimeServer, version: PhoenixVersion, identity: RealtimeIdentity) -> HTTPResponse {
        let key = request.headers["sec-websocket-key"] ?? ""
        let accept = sha1(Data((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)).base64EncodedString()
        var response = HTTPResponse(status: 101, headers: [("upgrade", "websocket"), ("connection", "Upgrade"), ("sec-websocket-accept", accept)])
        response.upgrade = { socket in realtime.adopt(socket, version: version, identity: identity) }
        return response
    }

    /// `{"messages": [{"topic", "event", "payload", "private"}]}` with the service_role key: each
    /// sent to the topic's sockets (its private channel's with `"private": true`).
    private func broadcast(_ exchange: Exchange) throws(ServerError) -> HTTPResponse {
        var caller = exchange
        try gateway.admit(&caller)
        guard caller.access.role == .serviceRole else { throw .gateway(403, "Broadcasting from the server needs the service_role key", code: "403") }
        guard let body = try? JSONValue.read(exchange.request.body), let messages = body.objectValue?["messages"]?.arrayValue else {
            throw .gateway(400, "The body is {\"messages\": [{\"topic\", \"event\", \"payload\"}]}", code: "400")
        }
        for message in messages {
            let fields = message.objectValue ?? [:]
            guard let topic = fields["topic"]?.stringValue, let event = fields["event"]?.stringValue else {
                throw .gateway(400, "Each message needs a topic and an event", code: "400")
            }
            realtime.broadcast(topic: topic, event: event, payload: fields["payload"] ?? [:], isPrivate: fields["private"]?.boolValue ?? false)
        }
        return HTTPResponse(status: 202)
    }
}
