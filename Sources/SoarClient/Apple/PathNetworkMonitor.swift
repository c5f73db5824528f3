#if canImport(Network)
    import Foundation
    import Network
    import Synchronization

    /// NWPathMonitor as the ``NetworkMonitoring`` on Apple platforms.
    public final class PathNetworkMonitor: NetworkMonitoring {
        private let monitor = NWPathMonitor()
        private let state = Locked(true)
        private let changes = Broadcast<Bool>()

        public init() {
            monitor.pathUpdateHandler = { [weak self] path in
                guard let self else { return }
                let online = path.status == .satisfied
                let changed = state.withLock { old in
                    defer { old = online }
                    return old != online
                }
                if changed { changes.yield(online) }
            }
            monitor.start(queue: DispatchQueue(label: "soar.network-monitor"))
        }

        deinit { monitor.cancel() }

        public var isOnline: Bool { state.withLock { $0 } }
        public func updates() -> AsyncStream<Bool> { changes.stream(startingWith: isOnline) }
    }
#endif
