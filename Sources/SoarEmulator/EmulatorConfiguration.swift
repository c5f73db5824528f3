import Foundation

/// How an ``APNsEmulator`` listens and what it trusts.
public struct EmulatorConfiguration: Sendable {
    /// Where the APNs port listens; 127.0.0.1 unless told otherwise.
    public var host = "127.0.0.1"
    /// 0 picks a free port.
    public var port: UInt16 = 0
    /// A second APNs port for the production environment (0: a free one). With it, `port` is the
    /// sandbox, and a token registered to one environment gets BadDeviceToken on the other.
    public var productionPort: UInt16?
    /// The plain-HTTP control port; nil serves the control API only under `/_emulator/`.
    public var controlPort: UInt16? = 0
    /// TLS certificate and key files; nil with ``h2c`` for cleartext HTTP/2 (prior knowledge).
    public var certificateFile: String?
    public var keyFile: String?
    public var h2c = false
    /// When set, client certificates that chain to this CA authenticate their connection.
    public var clientCAFile: String?
    public var keys: [RegisteredKey] = []
    /// Bundle ids that may be pushed to; nil allows any topic.
    public var allowedTopics: Set<String>?
    public var unregistered: [String] = []
    public var bad: [String] = []
    public var faults = Faults()
    /// SETTINGS_MAX_CONCURRENT_STREAMS until the first accepted request: 1, as APNs does.
    public var initialStreamLimit: UInt32 = 1
    /// SETTINGS_MAX_CONCURRENT_STREAMS after the first accepted request.
    public var raisedStreamLimit: UInt32 = 1000
    /// Deliveries kept for `GET /deliveries`.
    public var keep = 10_000
    /// Receives one JSON line per accepted notification.
    public var deliveryLog: (@Sendable (String) -> Void)?
    /// The wall clock for token ages and timestamps; tests inject their own.
    public var now: @Sendable () -> Date = { Date() }

    public init() {}
}
