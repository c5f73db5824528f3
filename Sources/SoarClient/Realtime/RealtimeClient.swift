import Foundation
import SoarCore

/// Supabase Realtime for an app: channels over one WebSocket (`/realtime/v1/websocket`, vsn
/// 1.0.0), heartbeats every 25 s, the user's access token on every join, and, when the socket
/// drops, a reconnect with back-off (1 s doubling to 30 s) that joins every channel again.
public actor RealtimeClient {
    private let url: URL
    private let apiKey: String
    private let auth: SoarAuthClient?
    private let connector: any WebSocketConnecting
    private var connection: (any WebSocketConnection)?
    private var connecting: Task<any WebSocketConnection, any Error>?
    private let channels = Locked([String: RealtimeChannel]())
    private var replies: [String: CheckedContinuation<JSONValue, any Error>] = [:]
    private var nextRef = 0
    private var tasks: [Task<Void, Never>] = []
    private var closed = false
    private var followingAuth = false

    init(url: URL, apiKey: String, auth: SoarAuthClient?, connector: any WebSocketConnecting) {
        self.url = url
        self.apiKey = apiKey
        self.auth = auth
        self.connector = connector
    }

    /// The channel named `name` (topic `realtime:<name>`), made once. A private channel is
    /// joined only as the app's policies on `realtime.messages` allow (Realtime Authorization).
    /// One socket holds one channel a topic: asking for the other kind replaces a channel that is
    /// not joined, and gives back the joined one otherwise.
    public nonisolated func channel(_ name: String, isPrivate: Bool = false) -> RealtimeChannel {
        let topic = "realtime:" + name
        return channels.withLock { channels in
            if let existing = channels[topic], existing.isPrivate == isPrivate || existing.wasJoined { return existing }
            let made = RealtimeChannel(topic: topic, client: self, isPrivate: isPrivate)
            channels[topic] = made
            return made
        }
    }

    /// Closes the socket; channels end their streams.
    public func disconnect() {
        closed = true
        tasks.forEach { $0.cancel() }
        connection?.close()
        connection = nil
        for channel in channels.withLock({ channels in defer { channels = [:] }; return channels.values }) { channel.finish() }
    }

    // MARK: for channels

    /// Sends a message and waits for its `phx_reply`: the reply's `response` when `ok`.
    func request(topic: String, event: String, payload: JSONValue, joinRef: String?) async throws -> JSONValue {
        let socket = try await open()
        let (ref, text) = message(topic: topic, event: event, payload: payload, joinRef: joinRef)
        return try await withCheckedThrowingContinuation { continuation in
            replies[ref] = continuation
            Task {
                do { try await socket.send(text) } catch { self.fail(ref, error) }
            }
        }
    }

    /// A message with the next ref, as vsn 1.0.0 writes it.
    private func message(topic: String, event: String, payload: JSONValue, joinRef: String?) -> (ref: String, text: String) {
        nextRef += 1
        let ref = String(nextRef)
        let text = String(decoding: JSONValue.object([
            "topic": .string(topic), "event": .string(event), "payload": payload, "ref": .string(ref), "join_ref": joinRef.map { .string($0) } ?? .null,
        ]).jsonData, as: UTF8.self)
        return (ref, text)
    }

    /// The token a join carries: the signed-in user's, else the API key.
    func accessToken() async -> String {
        guard let auth, auth.currentSession != nil, let session = try? await auth.session else { return apiKey }
        return session.accessToken
    }

    func forget(_ topic: String) { channels.withLock { $0[topic] = nil } }

    // MARK: the socket

    private func open() async throws -> any WebSocketConnection {
        if let connection { return connection }
        if closed { throw WebSocketError("the realtime client was disconnected") }
        if let connecting { return try await connecting.value }
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : (components.scheme == "http" ? "ws" : components.scheme)
        components.path = components.path.replacingOccurrences(of: "/$", with: "", options: .regularExpression) + "/realtime/v1/websocket"
        components.queryItems = [URLQueryItem(name: "apikey", value: apiKey), URLQueryItem(name: "vsn", value: "1.0.0")]
        let target = components.url!
        let connector = self.connector
        let task = Task { try await connector.connect(to: target) }
        connecting = task
        defer { connecting = nil }
        let socket = try await task.value
        connection = socket
        tasks.append(Task { await self.receive(from: socket) })
        tasks.append(Task { await self.heartbeat() })
        if !followingAuth, let auth {
            followingAuth = true
            let changes = auth.authStateChanges
            tasks.append(Task { for await (event, session) in changes { await self.tokenChanged(event, session) } })
            tasks.append(Task { await self.keepTokenFresh(auth) })
        }
        return socket
    }

    private func receive(from socket: any WebSocketConnection) async {
        do {
            for try await text in socket.messages { dispatch(text) }
        } catch {}
        await dropped(socket)
    }

    private func dispatch(_ text: String) {
        guard let message = try? JSONValue.read(Data(text.utf8)).objectValue, let topic = message["topic"]?.stringValue,
            let event = message["event"]?.stringValue
        else { return }
        let payload = message["payload"] ?? [:]
        if event == "phx_reply", let ref = message["ref"]?.stringValue, let waiting = replies.removeValue(forKey: ref) {
            let fields = payload.objectValue ?? [:]
            if fields["status"]?.stringValue == "ok" {
                waiting.resume(returning: fields["response"] ?? [:])
            } else {
                let reason = fields["response"]?.objectValue?["reason"]?.stringValue ?? "the server refused it"
                waiting.resume(throwing: AppError(.validation, reason))
            }
            return
        }
        channels.withLock { $0[topic] }?.received(event: event, payload: payload)
    }

    private func fail(_ ref: String, _ error: any Error) {
        replies.removeValue(forKey: ref)?.resume(throwing: error)
    }

    /// The socket ended: waiting requests fail, and unless closed on purpose the client comes back
    /// with back-off and joins its channels again.
    private func dropped(_ socket: any WebSocketConnection) async {
        guard connection.map({ $0 as AnyObject === socket as AnyObject }) ?? false else { return }
        connection = nil
        for (_, waiting) in replies { waiting.resume(throwing: WebSocketError("the realtime socket closed")) }
        replies = [:]
        for channel in channels.withLock({ $0.values }) { channel.lost() }
        var delay: UInt64 = 1
        while !closed {
            try? await Task.sleep(nanoseconds: delay * 1_000_000_000)
            if closed { return }
            if (try? await open()) != nil {
                for channel in channels.withLock({ $0.values }) where channel.wasJoined { try? await channel.join() }
                return
            }
            delay = min(delay * 2, 30)
        }
    }

    /// A refreshed token, a new sign-in or a sign-out reaches every joined channel, as Supabase's
    /// clients send it (`access_token`), so the server keeps the channel open past the old
    /// token's expiry and reads rows as the right user.
    private func tokenChanged(_ event: AuthChange, _ session: AuthSession?) async {
        guard event != .initialSession, let socket = connection else { return }
        let token = session?.accessToken ?? apiKey
        for (topic, channel) in channels.withLock({ $0 }) where channel.wasJoined {
            // No reply comes to an access_token update: sent, not awaited.
            try? await socket.send(message(topic: topic, event: "access_token", payload: ["access_token": .string(token)], joinRef: channel.joinRef).text)
        }
    }

    /// Refreshes the session shortly before its access token expires while the socket is in
    /// use, as Supabase's clients do, so joined channels get the new token in time.
    private func keepTokenFresh(_ auth: SoarAuthClient) async {
        while !Task.isCancelled && !closed {
            var wait: TimeInterval = 30
            if let session = auth.currentSession {
                wait = max(0.5, session.expiry.timeIntervalSince(auth.now()) - auth.refreshMargin)
            }
            try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
            if !Task.isCancelled, auth.currentSession != nil { _ = try? await auth.session }
        }
    }

    private func heartbeat() async {
        while !Task.isCancelled && !closed {
            try? await Task.sleep(nanoseconds: 25_000_000_000)
            guard !Task.isCancelled, connection != nil else { continue }
            _ = try? await request(topic: "phoenix", event: "heartbeat", payload: [:], joinRef: nil)
        }
    }
}
