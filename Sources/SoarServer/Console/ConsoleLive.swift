import Foundation
import SoarCore
import SoarHTTP
import SoarPush
import SoarRealtime

/// The console's live progress, through realtime: a signed-in administrator's page opens a
/// WebSocket at `/console/api/realtime` (its session cookie, from the console's own origin) and
/// joins the private channel `console:sends`. While anyone has, the recent sends are read twice a
/// second and broadcast there (event `sends`) whenever they changed.
final class ConsoleLive: @unchecked Sendable {
    /// The channel's topic; only the console's sockets may join it (``ChannelPolicies``).
    static let topic = "console:sends"
    /// The role a console socket acts as: it hears the console's topics and nothing of the app's.
    static let role = "console"
    static let interval: DispatchTimeInterval = .milliseconds(500)
    /// How long a socket's channel lasts before the page must open another (its session checked
    /// again): an administrator signed out or removed hears no more than this.
    static let channelLifetime = 900

    private let realtime: RealtimeServer
    private let push: PushService
    private let now: @Sendable () -> Date
    private let queue = DispatchQueue(label: "soar.console.live")
    private var timer: DispatchSourceTimer?
    /// What was broadcast last (queue only); nil while nobody listens.
    private var last: Data?

    init(realtime: RealtimeServer, push: PushService, now: @escaping @Sendable () -> Date) {
        self.realtime = realtime
        self.push = push
        self.now = now
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: Self.interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
    }

    func stop() {
        timer?.cancel()
        queue.sync {}
    }

    private func tick() {
        guard realtime.hasMembers(topic: Self.topic, isPrivate: true) else {
            last = nil
            return
        }
        // The store unavailable: the next tick tries again.
        guard let sends = try? push.sends(limit: 100) else { return }
        let bytes = sends.jsonData
        guard bytes != last else { return }
        last = bytes
        realtime.broadcast(topic: Self.topic, event: "sends", payload: sends, isPrivate: true)
    }

    /// The WebSocket handshake for a signed-in administrator's page: only from the console's own
    /// origin (a browser sends the cookie with another site's handshake too).
    func upgrade(_ request: HTTPRequest) throws(ConsoleError) -> HTTPResponse {
        guard ConsoleAPI.origin(of: request) == true else {
            throw ConsoleError(403, "cross_origin", "The console's live channel opens only from the console's own page")
        }
        if let refusal = RealtimeEndpoints.handshakeRefusal(request) { return refusal }
        guard let version = PhoenixVersion(vsn: request.queryValue("vsn")) else {
            throw ConsoleError(400, "invalid_request", "vsn must be 1.0.0 or 2.0.0")
        }
        return RealtimeEndpoints.accept(request, into: realtime, version: version, identity: RealtimeIdentity(role: Self.role, expiresAt: Int(now().timeIntervalSince1970) + Self.channelLifetime))
    }
}
