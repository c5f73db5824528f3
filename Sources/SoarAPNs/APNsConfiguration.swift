import Foundation

/// Everything an ``APNsClient`` needs: who it is, where it sends, and how it behaves.
public struct APNsConfiguration: Sendable {
    public var credentials: APNsCredentials
    public var environment: APNsEnvironment
    /// The app's bundle id, from which each push type's topic is derived.
    public var bundleID: String?
    /// An extra CA to trust (the emulator's, a proxy's); Apple's hosts need none.
    public var caFile: String?
    /// Connections kept to the host; each multiplexes up to the server's stream limit.
    public var maxConnections = 4
    /// Streams opened on one connection at most; the server's SETTINGS_MAX_CONCURRENT_STREAMS may
    /// allow fewer (APNs: 1 until a first success, then often 1000).
    public var maxStreamsPerConnection = 1000
    /// How many notifications a bulk send keeps outstanding when not told: as many as the
    /// connections can carry at once, at most 1,000 (more only waits in the queue: measured slower).
    public var bulkWindow: Int { max(1, min(1000, maxConnections * maxStreamsPerConnection)) }
    public var retry = RetryPolicy()
    /// How long one provider token is used (clamped to Apple's 20...60 minutes).
    public var tokenRefresh: TimeInterval = 50 * 60
    /// How long one request may take before it counts as a lost connection.
    public var timeout: Duration = .seconds(30)
    /// How long a new connection may take to be usable (TCP, TLS, the server's SETTINGS). A server
    /// that never gets there before any connection has worked is reported as misconfigured, not retried.
    public var connectTimeout: Duration = .seconds(10)
    /// How long a connection may sit idle before a PING checks it; one unanswered within
    /// `timeout` closes it.
    public var pingInterval: Duration = .seconds(60)
    /// The wall clock for provider tokens' `iat`.
    public var now: @Sendable () -> Date = { Date() }
    /// The clock back-off waits on; tests inject one that does not sleep.
    public var clock: any Clock<Duration> = ContinuousClock()
    /// Jitter for back-off, a number in 0...1.
    public var random: @Sendable () -> Double = { Double.random(in: 0...1) }

    public init(credentials: APNsCredentials, environment: APNsEnvironment, bundleID: String? = nil) {
        self.credentials = credentials
        self.environment = environment
        self.bundleID = bundleID
    }
}
