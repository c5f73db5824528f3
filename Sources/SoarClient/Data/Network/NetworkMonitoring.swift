import Foundation

/// Whether the app can reach the network, for the offline banner and for replaying queued writes.
public protocol NetworkMonitoring: Sendable {
    /// The state now.
    var isOnline: Bool { get }
    /// The state now, then each change.
    func updates() -> AsyncStream<Bool>
}
