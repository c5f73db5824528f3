import Foundation
import SoarCore
import SoarHTTP
import SoarStore

/// `/health`: 200 when the store answers a read and takes a write, 503 with the reason logged
/// when it does not (a full disk fails writes while reads still answer).
struct HealthEndpoints: Sendable {
    let store: any Store
    /// Where the reason for a failed check goes (the log).
    let failed: @Sendable (String) -> Void
    let now: @Sendable () -> Date
    /// The last check and when it ran: `/health` answers anyone, so it writes at most once a second.
    private let last = Locked<(at: Date, failure: String?)?>(nil)

    init(store: any Store, now: @escaping @Sendable () -> Date, failed: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.now = now
        self.failed = failed
    }

    func check() -> HTTPResponse {
        let now = now()
        var failure: String?
        if let recent = last.withLock({ $0 }), abs(now.timeIntervalSince(recent.at)) < 1 {
            failure = recent.failure
        } else {
            do throws(StoreError) {
                try store.ping()
                try store.probeWrite()
            } catch {
                failure = error.message
                // The reason (hosts, ports, paths) is the operator's: /health answers anyone.
                failed(error.message)
            }
            last.withLock { [failure] in $0 = (now, failure) }
        }
        guard failure == nil else { return .json(503, ["status": "unavailable", "store": "unavailable"]) }
        return .json(200, ["status": "ok", "store": "ok"])
    }
}
