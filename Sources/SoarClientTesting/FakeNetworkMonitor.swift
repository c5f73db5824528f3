import SoarClient
import Synchronization

/// A network monitor tests switch on and off.
public final class FakeNetworkMonitor: NetworkMonitoring {
    private let online: Locked<Bool>
    private let continuations = Locked<[AsyncStream<Bool>.Continuation]>([])

    public init(online: Bool = true) {
        self.online = Locked(online)
    }

    public var isOnline: Bool { online.withLock { $0 } }

    public func updates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        continuation.yield(isOnline)
        continuations.withLock { $0.append(continuation) }
        return stream
    }

    public func set(online value: Bool) {
        online.withLock { $0 = value }
        for continuation in continuations.withLock({ $0 }) { continuation.yield(value) }
    }
}
