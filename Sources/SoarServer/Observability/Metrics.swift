import Foundation
import SoarCore
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

    /// Worker threads record into different shards, so they do not wait for each other's lock.
    private final class Shard: Sendable {
        let state = Locked(State())
    }

    private let shards = (0..<8).map { _ in Shard() }

    func record(route: String, status: Int, seconds: Double, storeError: Bool) {
        // Thread ids are addresses with equal low bits: a multiplicative hash spreads them over the 8 shards.
        let shard = shards[Int((UInt(bitPattern: Int(pthread_self())) &* 0x9E37_79B9_7F4A_7C15) >> 61)]
        shard.state.withLock { state in
            state.requests[route, default: [:]][status, default: 0] += 1
            var histogram = state.latency[route] ?? Histogram()
            if let index = Metrics.buckets.firstIndex(where: { seconds <= $0 }) { histogram.counts[index] += 1 }
            histogram.sum += seconds
            histogram.total += 1
            state.latency[route] = histogram
            if storeError { state.storeErrors += 1 }
        }
    }

    /// All shards summed.
    private var merged: State {
        var total = State()
        for shard in shards {
            shard.state.withLock { state in
                for (route, statuses) in state.requests {
                    for (status, count) in statuses { total.requests[route, default: [:]][status, default: 0] += count }
                }
                for (route, histogram) in state.latency {
                    var sum = total.latency[route] ?? Histogram()
                    for index in sum.counts.indices { sum.counts[index] += histogram.counts[index] }
                    sum.sum += histogram.sum
                    sum.total += histogram.total
                    total.latency[route] = sum
                }
                total.storeErrors += state.storeErrors
            }
        }
        return total
    }

    /// The exposition text for `/metrics`.
    var text: String {
        do {
            let state = merged
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
