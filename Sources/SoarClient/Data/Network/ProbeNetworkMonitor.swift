import Foundation
import SoarCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Linux's network monitor: online while a probe URL (the backend's health endpoint) answers.
///
/// Linux has no NWPathMonitor; what an app needs to know is whether its backend answers, so this
/// asks it every `interval` on an injected clock (any HTTP answer counts as online).
public final class ProbeNetworkMonitor: NetworkMonitoring {
    private let probe: URL
    private let transport: any HTTPTransport
    private let state = Locked(true)
    private let changes = Broadcast<Bool>()

    public init(probe: URL, transport: any HTTPTransport = URLSessionTransport(timeout: 5)) {
        self.probe = probe
        self.transport = transport
    }

    public var isOnline: Bool { state.withLock { $0 } }

    public func updates() -> AsyncStream<Bool> { changes.stream(startingWith: isOnline) }

    /// Probes once and publishes a change.
    ///
    /// - Returns: whether the probe was answered.
    @discardableResult
    public func check() async -> Bool {
        let online = (try? await transport.send(URLRequest(url: probe))) != nil
        let changed = state.withLock { old in
            defer { old = online }
            return old != online
        }
        if changed { changes.yield(online) }
        return online
    }

    /// Probes every `interval` until the task is cancelled.
    public func start<C: Clock>(every interval: C.Duration, clock: C) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                await check()
                try? await clock.sleep(for: interval)
            }
        }
    }
}
