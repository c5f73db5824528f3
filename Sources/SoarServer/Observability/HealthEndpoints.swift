import SoarHTTP
import SoarStore

/// `/health`: 200 when the store answers, 503 with the reason when it does not.
struct HealthEndpoints: Sendable {
    let store: any Store

    func check() -> HTTPResponse {
        do {
            try store.ping()
            return .json(200, ["status": "ok", "store": "ok"])
        } catch {
            return .json(503, ["status": "unavailable", "store": .string(error.message)])
        }
    }
}
