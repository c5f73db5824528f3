import Foundation
import SoarCore
import SoarStore

/// `/functions/v1/sends`: the sends' statistics, kept up to date by the transactions that record
/// their outcomes.
extension PushService {
    /// A send's progress: counts by outcome and reason, rows removed.
    ///
    /// - Throws: ``PushError`` 404 for an unknown id.
    public func sendStatus(id: String) throws(PushError) -> JSONValue {
        let summary: PushSendSummary?
        do { summary = try jobs.sendSummary(id: id) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard let summary else { throw PushError(404, "not_found", "no send has the id \(id)") }
        return json(summary)
    }

    /// The newest sends (at most `limit`), newest first, each as ``sendStatus(id:)`` gives it.
    public func sends(limit: Int = 100) throws(PushError) -> JSONValue {
        do throws(StoreError) {
            var sends: [JSONValue] = []
            for id in try jobs.recentSendIDs(limit: min(max(limit, 1), 1000)) {
                if let summary = try jobs.sendSummary(id: id) { sends.append(json(summary)) }
            }
            return .array(sends)
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
    }

    func json(_ summary: PushSendSummary) -> JSONValue {
        let webhookCounts = (try? webhookStore.webhookCounts(send: summary.id)) ?? [:]
        return .object([
            "send_id": .string(summary.id), "created_at": .string(summary.createdAt), "finished_at": summary.finishedAt.map { .string($0) } ?? .null,
            "total": .int(summary.total), "pending": .int(summary.pending), "delivered": .int(summary.delivered), "failed": .int(summary.failed),
            "removed": .int(summary.removed), "reasons": .object(summary.reasons.mapValues { .int($0) }), "removed_by_reason": .object(summary.removedReasons.mapValues { .int($0) }), "opens": .int(summary.opens), "redelivered": .int(summary.redelivered),
            "suppressed": .object(Dictionary(uniqueKeysWithValues: ["opted_out", "quiet_hours", "frequency_cap"].map { ($0, JSONValue.int(summary.suppressed[$0] ?? 0)) })),
            "webhooks": .object(Dictionary(uniqueKeysWithValues: ["pending", "delivered", "failed"].map { ($0, JSONValue.int(webhookCounts[$0] ?? 0)) })),
        ])
    }
}
