import Foundation
import Synchronization

/// Prometheus counters: requests by route and status, a latency histogram, store errors.
final class Metrics: Sendable {
    static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    private struct Histogram {
        var counts = [Int](repeating: 0, count: Metrics.buckets.count)
        var sum = 0.0
        var total = 0
    }

    private struct State {
        var requests: [String: [Int: Int]] = [:]
        var latency: [String: Histogram] = [:]
        var storeErrors = 0
    }

    private let state = Mutex(State())

    func record(route: String, status: Int, seconds: Double, storeError: Bool) {
        state.withLock { state in
            state.requests[route, default: [:]][status, default: 0] += 1
            var histogram = state.latency[route] ?? Histogram()
            if let index = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { histogram.counts[index] += 1 }
            histogram.sum += seconds
            histogram.total += 1
            state.latency[route] = histogram
            if storeError { state.storeErrors += 1 }
        }
    }

    /// The exposition text for `/metrics`.
    var text: String {
        state.withLock { state in
            var out = "# HELP soar_http_requests_total Requests answered, by route and status.\n# TYPE soar_http_requests_total counter\n"
            for route in state.requests.keys.sorted() {
                for (status, count) in state.requests[route]!.sorted(by: { $0.key < $1.key }) {
                    out += "soar_http_requests_total{route=\"\(route)\",status=\"\(status)\"} \(count)\n"
                }
            }
            out += "# HELP soar_http_request_duration_seconds Time to answer, by route.\n# TYPE soar_http_request_duration_seconds histogram\n"
            for route in state.latency.keys.sorted() {
                let histogram = state.latency[route]!
                var cumulative = 0
                for (bound, count) in zip(Metrics.buckets, histogram.counts) {
                    cumulative += count
                    out += "soar_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)\n"
                }
                out += "soar_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(histogram.total)\n"
                out += "soar_http_request_duration_seconds_sum{route=\"\(route)\"} \(histogram.sum)\n"
                out += "soar_http_request_duration_seconds_count{route=\"\(route)\"} \(histogram.total)\n"
            }
            out += "# HELP soar_store_errors_total Requests the store failed.\n# TYPE soar_store_errors_total counter\n"
            out += "soar_store_errors_total \(state.storeErrors)\n"
            return out
        }
    }
}
