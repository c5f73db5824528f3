import SoarCore
import SoarHTTP
import SoarStore

/// `/health`: 200 when the store answers, 503 with the reason when it does not.
struct HealthEndpoints: Sendable {
    let store: any Store
    /// Where the reason for a failed check goes (the log).
    let failed: @Sendable (String) -> Void

    func check() -> HTTPResponse {
        do {
            try store.ping()
            return .json(200, ["status": "ok", "store": "ok"])
        } catch {
            // The reason (hosts, ports) is the operator's: /health answers anyone.
            failed(error.message)
            return .json(503, ["status": "unavailable", "store": "unavailable"])
        }
    }
}
