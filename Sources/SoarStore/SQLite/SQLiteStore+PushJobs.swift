import Foundation
import SoarCore

extension SQLiteStore {
    public func createSend(id: String, request: String, jobs: [NewPushJob]) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            try connection.statement("INSERT INTO push_sends (id, request, total, created_at) VALUES (?1, ?2, ?3, ?4)")
                .run([.text(id), .text(request), .integer(Int64(jobs.count)), .text(time)])
            let insert = try connection.statement(
                "INSERT INTO push_jobs (send_id, user_id, token, environment, bundle_id, apns_id, updated_at, notification_id, badge) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)")
            for job in jobs {
                try insert.run([
                    .text(id), Self.optional(job.userID), .text(job.token), Self.optional(job.environment), Self.optional(job.bundleID),
                    .text(job.apnsID), .text(time), Self.optional(job.notificationID), job.badge.map { .integer(Int64($0)) } ?? .null,
                ])
            }
        }
    }

    public func pendingJobs(after: Int64, limit: Int) throws(StoreError) -> [PushJob] {
        try read { connection throws(StoreError) in
            try connection.statement(
                "SELECT id, send_id, user_id, token, environment, bundle_id, apns_id, notification_id, badge FROM push_jobs WHERE state = 'pending' AND id > ?1 ORDER BY id LIMIT ?2"
            ).rows([.integer(after), .integer(Int64(limit))]).map { row in
                PushJob(
                    id: Self.integer(row[0]), sendID: Self.text(row[1]) ?? "", userID: Self.text(row[2]), token: Self.text(row[3]) ?? "",
                    environment: Self.text(row[4]), bundleID: Self.text(row[5]), apnsID: Self.text(row[6]) ?? "", notificationID: Self.text(row[7]),
                    badge: row[8] == .null ? nil : Int(Self.integer(row[8])))
            }
        }
    }

    public func sendRequest(id: String) throws(StoreError) -> String? {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT request FROM push_sends WHERE id = ?1").rows([.text(id)]).first.flatMap { Self.text($0[0]) }
        }
    }

    public func finishJobs(_ results: [PushJobResult]) throws(StoreError) {
        guard !results.isEmpty else { return }
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            let update = try connection.statement(
                "UPDATE push_jobs SET state = ?1, reason = ?2, environment = coalesce(?3, environment), removed = ?4, updated_at = ?5 WHERE id = ?6 AND state = 'pending' RETURNING send_id"
            )
            var sends = Set<String>()
            for result in results {
                let rows = try update.rows([
                    .text(result.delivered ? "delivered" : "failed"), Self.optional(result.reason), Self.optional(result.environment),
                    .integer(result.removed ? 1 : 0), .text(time), .integer(result.jobID),
                ])
                if let send = rows.first.flatMap({ Self.text($0[0]) }) { sends.insert(send) }
            }
            let finish = try connection.statement(
                "UPDATE push_sends SET finished_at = ?1 WHERE id = ?2 AND finished_at IS NULL AND NOT EXISTS (SELECT 1 FROM push_jobs WHERE send_id = ?2 AND state = 'pending')"
            )
            for send in sends { try finish.run([.text(time), .text(send)]) }
        }
    }

    public func sendSummary(id: String) throws(StoreError) -> PushSendSummary? {
        try read { connection throws(StoreError) in
            guard let send = try connection.statement("SELECT created_at, finished_at, total FROM push_sends WHERE id = ?1").rows([.text(id)]).first else {
                return nil
            }
            var counts: [String: Int] = [:]
            var reasons: [String: Int] = [:]
            var removed = 0
            let groups = try connection.statement(
                "SELECT state, reason, count(*), sum(removed) FROM push_jobs WHERE send_id = ?1 GROUP BY state, reason"
            ).rows([.text(id)])
            for row in groups {
                let state = Self.text(row[0]) ?? ""
                let count = Int(Self.integer(row[2]))
                counts[state, default: 0] += count
                removed += Int(Self.integer(row[3]))
                if state == "failed", let reason = Self.text(row[1]) { reasons[reason, default: 0] += count }
            }
            let opens = try connection.statement("SELECT count(*) FROM notifications WHERE send_id = ?1 AND opened_at IS NOT NULL").rows([.text(id)])
            return PushSendSummary(
                id: id, createdAt: Self.text(send[0]) ?? "", finishedAt: Self.text(send[1]), total: Int(Self.integer(send[2])),
                pending: counts["pending"] ?? 0, delivered: counts["delivered"] ?? 0, failed: counts["failed"] ?? 0, removed: removed, reasons: reasons,
                opens: Int(opens.first.map { Self.integer($0[0]) } ?? 0))
        }
    }

    public func pendingJobCount() throws(StoreError) -> Int {
        try read { connection throws(StoreError) in
            Int(try connection.statement("SELECT count(*) FROM push_jobs WHERE state = 'pending'").rows([]).first.map { Self.integer($0[0]) } ?? 0)
        }
    }

    public func trimInbox(userIDs: [String], keep: Int) throws(StoreError) {
        guard !userIDs.isEmpty else { return }
        try write { connection throws(StoreError) in
            let trim = try connection.statement(
                "DELETE FROM notifications WHERE user_id = ?1 AND id NOT IN (SELECT id FROM notifications WHERE user_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2)"
            )
            for user in userIDs { try trim.run([.text(user), .integer(Int64(keep))]) }
        }
    }

    public func unreadCounts(userIDs: [String]) throws(StoreError) -> [String: Int] {
        try read { connection throws(StoreError) in
            let count = try connection.statement("SELECT count(*) FROM notifications WHERE user_id = ?1 AND read_at IS NULL AND opened_at IS NULL")
            var counts: [String: Int] = [:]
            for user in userIDs { counts[user] = Int(try count.rows([.text(user)]).first.map { Self.integer($0[0]) } ?? 0) }
            return counts
        }
    }

    static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
    static func text(_ value: SQLValue) -> String? { if case .text(let text) = value { text } else { nil } }
    static func integer(_ value: SQLValue) -> Int64 { if case .integer(let number) = value { number } else { 0 } }
}
