import Foundation
import SoarCore
import Synchronization

/// Push's Prometheus counters: notifications by outcome and reason, time to APNs' answer, rows
/// removed; the queue depth is read from the store when scraped.
public final class PushMetrics: Sendable {
    static let buckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private struct State {
        var outcomes: [String: Int] = [:]
        var buckets = [Int](repeating: 0, count: PushMetrics.buckets.count)
        var seconds = 0.0
        var answered = 0
        var removed = 0
        var recordingFailures = 0
    }

    private let state = Locked(State())

    func record(_ result: DeviceResult, seconds: Double) {
        let label = result.outcome.delivered ? "outcome=\"delivered\",reason=\"\"" : "outcome=\"failed\",reason=\"\(result.outcome.reason ?? "")\""
        state.withLock { state in
            state.outcomes[label, default: 0] += 1
            if let index = Self.buckets.firstIndex(where: { seconds <= $0 }) { state.buckets[index] += 1 }
            state.seconds += seconds
            state.answered += 1
            if result.removed { state.removed += 1 }
        }
    }

    /// A batch of outcomes the store did not take (it is tried again).
    func recordingFailed() { state.withLock { $0.recordingFailures += 1 } }

    /// The exposition text, with `pending` jobs as the queue depth.
    func text(pending: Int?) -> String {
        let state = state.withLock { $0 }
        var out = "# HELP soar_push_notifications_total Notifications by final outcome and APNs reason.\n# TYPE soar_push_notifications_total counter\n"
        for label in state.outcomes.keys.sorted() { out += "soar_push_notifications_total{\(label)} \(state.outcomes[label]!)\n" }
        out += "# HELP soar_push_send_duration_seconds Time from sending a notification to its final outcome.\n# TYPE soar_push_send_duration_seconds histogram\n"
        var cumulative = 0
        for (bound, count) in zip(Self.buckets, state.buckets) {
            cumulative += count
            out += "soar_push_send_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "soar_push_send_duration_seconds_bucket{le=\"+Inf\"} \(state.answered)\n"
        out += "soar_push_send_duration_seconds_sum \(state.seconds)\nsoar_push_send_duration_seconds_count \(state.answered)\n"
        out += "# HELP soar_push_rows_removed_total Device rows removed because APNs said the token is dead.\n# TYPE soar_push_rows_removed_total counter\n"
        out += "soar_push_rows_removed_total \(state.removed)\n"
        out += "# HELP soar_push_recording_failures_total Batches of outcomes the store failed to take (each is tried again).\n# TYPE soar_push_recording_failures_total counter\n"
        out += "soar_push_recording_failures_total \(state.recordingFailures)\n"
        if let pending {
            out += "# HELP soar_push_queue_depth Jobs of send-push waiting for their outcome.\n# TYPE soar_push_queue_depth gauge\n"
            out += "soar_push_queue_depth \(pending)\n"
        }
        return out
    }
}
