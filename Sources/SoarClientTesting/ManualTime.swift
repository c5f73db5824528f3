import Foundation
import SoarClient
import Synchronization

/// A wall clock that moves only when told: token expiry, rate windows and grace intervals are
/// tested without sleeping. Pass `time.now` where a `() -> Date` is taken.
public final class ManualTime: Sendable {
    private let current: Locked<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Locked(start) }

    public var date: Date { current.withLock { $0 } }
    public var now: @Sendable () -> Date { { self.date } }
    public func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
