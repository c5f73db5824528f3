import Foundation
import SoarCore

extension SQLiteStore {
    public func createSend(id: String, request: String, total: Int, suppressed: [String: Int], kind: String?, schedules: [PushSchedule]) throws(StoreError) {
        let date = now()
        let time = Timestamp.postgres(date)
        try write { connection throws(StoreError) in
            try connection.statement("INSERT INTO push_sends (id, request, total, created_at, finished_at, kind, stored_all) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0)")
                .run([.text(id), .text(request), .integer(Int64(total)), .text(time), total == 0 ? .text(time) : .null, kind.map(SQLValue.text) ?? .null])
            for (why, count) in suppressed where count > 0 {
                try connection.statement("INSERT INTO push_send_reasons (send_id, reason, count) VALUES (?1, ?2, ?3)")
                    .run([.text(id), .text(suppressedPrefix + why), .integer(Int64(count))])
            }
            for (why, count) in suppressed.sorted(by: { $0.key < $1.key }) where count > 0 {
                try WebhookQueue(dialect: .sqlite).enqueue(
                    type: "push.suppressed", send: id, at: date,
                    data: ["send_id": .string(id), "kind": kind.map(JSONValue.string) ?? .null, "reason": .string(why), "count": .int(count)], on: connection)
            }
            for schedule in schedules {
                try connection.statement("INSERT INTO push_schedules (id, request, due_at, status, created_at, updated_at) VALUES (?1, ?2, ?3, 'scheduled', ?4, ?4)")
                    .run([.text(schedule.id), .text(schedule.request), .text(schedule.dueAt), .text(time)])
            }
        }
    }

    public func usersReached(kind: String, since: String, atLeast count: Int) throws(StoreError) -> Set<String> {
        try read { connection throws(StoreError) in
            Set(try connection.statement(
                """
                SELECT j.user_id FROM push_sends s JOIN push_jobs j ON j.send_id = s.id
                WHERE s.kind = ?1 AND s.created_at > ?2 AND j.user_id IS NOT NULL GROUP BY j.user_id HAVING count(DISTINCT s.id) >= ?3
                """
            ).rows([.text(kind), .text(since), .integer(Int64(count))]).compactMap { Self.text($0[0]) })
        }
    }

    public func appendToSend(id: String, jobs: [NewPushJob], notifications: [NewNotification], inboxSize: Int, badgeUnread: Bool) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write(bulk: true) { connection throws(StoreError) in
            try Self.insert(notifications, sendID: id, inboxSize: inboxSize, time: time, on: connection)
            // This transaction is the chunk's alone: the jobs after the last one now are its own.
            let before = try connection.statement("SELECT coalesce(max(id), 0) FROM push_jobs").rows([]).first?.first ?? .integer(0)
            let insert = try connection.statement(
                "INSERT INTO push_jobs (send_id, user_id, token, environment, bundle_id, apns_id, updated_at, notification_id, badge, variant) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)")
            for job in jobs {
                try insert.run([
                    .text(id), Self.optional(job.userID), .text(job.token), Self.optional(job.environment), Self.optional(job.bundleID),
                    .text(job.apnsID), .text(time), Self.optional(job.notificationID), job.badge.map { .integer(Int64($0)) } ?? .null, Self.optional(job.variant),
                ])
            }
            if badgeUnread {
                try connection.statement(
                    "UPDATE push_jobs SET badge = (SELECT count(*) FROM notifications WHERE notifications.user_id = push_jobs.user_id AND read_at IS NULL AND opened_at IS NULL) WHERE id > ?1 AND user_id IS NOT NULL AND badge IS NULL"
                ).run([before])
            }
            // Jobs just stored are pending: the send is not finished, whatever it counted before.
            try connection.statement(
                "UPDATE push_sends SET stored = stored + ?1, finished_at = NULL, first_job_id = coalesce(first_job_id, ?3 + 1) WHERE id = ?2"
            ).run([.integer(Int64(jobs.count)), .text(id), before])
        }
    }

    public func storeFollowUp(id: String, of original: String, request: String, inbox: InboxChange) throws(StoreError) -> Int? {
        let time = Timestamp.postgres(now())
        return try write { connection throws(StoreError) -> Int? in
            guard try !connection.statement("SELECT 1 FROM push_sends WHERE id = ?1").rows([.text(original)]).isEmpty else { return nil }
            let before = try connection.statement("SELECT coalesce(max(id), 0) FROM push_jobs").rows([]).first?.first ?? .integer(0)
            try connection.statement("INSERT INTO push_sends (id, request, total, created_at, first_job_id) VALUES (?1, ?2, 0, ?3, ?4 + 1)")
                .run([.text(id), .text(request), .text(time), before])
            try connection.statement(
                """
                INSERT INTO push_jobs (send_id, user_id, token, environment, bundle_id, apns_id, updated_at, notification_id, variant)
                SELECT ?1, user_id, token, environment, bundle_id, gen_random_uuid(), ?2, notification_id, variant FROM push_jobs WHERE send_id = ?3 ORDER BY id
                """
            ).run([.text(id), .text(time), .text(original)])
            let count = Int(Self.integer(try connection.statement("SELECT count(*) FROM push_jobs WHERE id > ?1").rows([before]).first?[0] ?? .integer(0)))
            try connection.statement("UPDATE push_sends SET total = ?1, stored = ?1, finished_at = CASE WHEN ?1 = 0 THEN ?2 END WHERE id = ?3")
                .run([.integer(Int64(count)), .text(time), .text(id)])
            switch inbox {
            case .update(let title, let body, let payload):
                try connection.statement("UPDATE notifications SET title = ?1, body = ?2, payload = json_set(?3, '$.soar_id', id) WHERE id IN (SELECT notification_id FROM push_jobs WHERE send_id = ?4)")
                    .run([Self.optional(title), Self.optional(body), .text(payload), .text(original)])
            case .remove:
                try connection.statement("DELETE FROM notifications WHERE id IN (SELECT notification_id FROM push_jobs WHERE send_id = ?1)").run([.text(original)])
            }
            return count
        }
    }

    public func closePartlyStoredSends() throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            try connection.statement(
                "UPDATE push_sends SET total = stored, finished_at = CASE WHEN delivered + failed >= stored THEN ?1 ELSE finished_at END WHERE stored < total"
            ).run([.text(time)])
        }
    }

    public func finishStoring(id: String) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            try connection.statement(
                "UPDATE push_sends SET total = stored, stored_all = 1, finished_at = CASE WHEN delivered + failed >= stored THEN coalesce(finished_at, ?1) END WHERE id = ?2"
            ).run([.text(time), .text(id)])
        }
    }

    public func partlyStored(id: String) throws(StoreError) -> (lastUser: String?, userlessTokens: Set<String>)? {
        try read { connection throws(StoreError) -> (lastUser: String?, userlessTokens: Set<String>)? in
            guard try !connection.statement("SELECT 1 FROM push_sends WHERE id = ?1 AND stored_all = 0").rows([.text(id)]).isEmpty else { return nil }
            let last = try connection.statement("SELECT max(user_id) FROM push_jobs WHERE send_id = ?1").rows([.text(id)]).first.flatMap { Self.text($0[0]) }
            let tokens = try connection.statement("SELECT token FROM push_jobs WHERE send_id = ?1 AND user_id IS NULL").rows([.text(id)]).compactMap { Self.text($0[0]) }
            return (last, Set(tokens))
        }
    }

    public func addNotifications(_ notifications: [NewNotification], inboxSize: Int) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in try Self.insert(notifications, sendID: nil, inboxSize: inboxSize, time: time, on: connection) }
    }

    /// Inserts inbox rows, then trims the inboxes now over `inboxSize` (found by ``fullInboxes``,
    /// so a send to everyone trims only those that are full).
    private static func insert(_ notifications: [NewNotification], sendID: String?, inboxSize: Int, time: String, on connection: SQLiteConnection) throws(StoreError) {
        guard !notifications.isEmpty else { return }
        let insert = try connection.statement(
            "INSERT INTO notifications (id, user_id, title, body, payload, send_id, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
        for row in notifications {
            try insert.run([.text(row.id), .text(row.userID), optional(row.title), optional(row.body), .text(row.payload), optional(sendID), .text(time)])
        }
        let trim = try connection.statement(
            "DELETE FROM notifications WHERE user_id = ?1 AND id NOT IN (SELECT id FROM notifications WHERE user_id = ?1 ORDER BY created_at DESC, id DESC LIMIT ?2)")
        for user in try fullInboxes(of: notifications.map(\.userID), inboxSize: inboxSize, on: connection) {
            try trim.run([.text(user), .integer(Int64(inboxSize))])
        }
    }

    /// The users of `userIDs` whose inbox holds more than `inboxSize` rows.
    ///
    /// A page of a send to everyone holds every user of a stretch of ids: while their inboxes are
    /// small, one scan of that stretch of the index finds them, 2.5 times cheaper than a lookup of
    /// each user (measured). A stretch of more than 16 rows a user (scattered users, or larger
    /// inboxes, which each lookup walks anyway) is left after that many rows for the lookups.
    private static func fullInboxes(of userIDs: [String], inboxSize: Int, on connection: SQLiteConnection) throws(StoreError) -> [String] {
        guard var first = userIDs.first else { return [] }
        var last = first
        for user in userIDs {
            if user.utf8.lexicographicallyPrecedes(first.utf8) { first = user }
            if last.utf8.lexicographicallyPrecedes(user.utf8) { last = user }
        }
        let bound = Int64(16 * userIDs.count)
        let stretch = try connection.statement(
            "SELECT count(*) FROM (SELECT 1 FROM notifications WHERE user_id >= ?1 AND user_id <= ?2 LIMIT ?3)"
        ).rows([.text(first), .text(last), .integer(bound)])
        if stretch.first.map({ integer($0[0]) < bound }) == true {
            let wrote = Set(userIDs)
            return try connection.statement(
                "SELECT user_id FROM notifications WHERE user_id >= ?1 AND user_id <= ?2 GROUP BY user_id HAVING count(*) > ?3"
            ).rows([.text(first), .text(last), .integer(Int64(inboxSize))]).compactMap { text($0[0]) }.filter(wrote.contains)
        }
        let users = Array(Set(userIDs))
        var full: [String] = []
        for start in stride(from: 0, to: users.count, by: 10_000) {
            let chunk = users[start..<min(start + 10_000, users.count)]
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            full += try connection.statement(
                "SELECT user_id FROM notifications WHERE user_id IN (\(marks)) GROUP BY user_id HAVING count(*) > \(inboxSize)"
            ).rows(chunk.map { .text($0) }).compactMap { text($0[0]) }
        }
        return full
    }

    /// Claims in memory (one process owns the file): a read of the next pending jobs no live
    /// lease holds, and one row recording the claim's id range, instead of a write of every job.
    public func claimJobs(owner: String, limit: Int, leaseSeconds: Int) throws(StoreError) -> [PushJob] {
        return try jobClaims.withLock { (claims: inout JobClaims) throws(StoreError) -> [PushJob] in
            let time = now()
            var rows: [[SQLValue]] = []
            for range in claims.freeRanges(at: time) where rows.isEmpty {
                rows = try read { connection throws(StoreError) in
                    try connection.statement(
                        """
                        SELECT id, send_id, user_id, token, environment, bundle_id, apns_id, notification_id, badge, attempts, variant FROM push_jobs
                        WHERE id >= ?1 AND id <= ?2 AND NOT EXISTS (SELECT 1 FROM push_outcomes WHERE job_id = push_jobs.id) ORDER BY id LIMIT ?3
                        """
                    ).rows([.integer(range.lowerBound), .integer(range.upperBound), .integer(Int64(limit))])
                }
            }
            // One write records the new claim and forgets the claims whose jobs have all ended.
            let finished = claims.removeFinished()
            let claimed = rows.isEmpty ? nil : Self.integer(rows[0][0])...Self.integer(rows[rows.count - 1][0])
            if claimed != nil || !finished.isEmpty {
                try write { connection throws(StoreError) in
                    let delete = try connection.statement("DELETE FROM push_claims WHERE first_id = ?1 AND last_id = ?2")
                    for claim in finished { try delete.run([.integer(claim.first), .integer(claim.last)]) }
                    if let claimed {
                        try connection.statement("INSERT INTO push_claims (first_id, last_id) VALUES (?1, ?2)")
                            .run([.integer(claimed.lowerBound), .integer(claimed.upperBound)])
                    }
                }
            }
            guard let claimed else { return [] }
            // The lease runs from now, not from before the waits for the store.
            claims.add(
                JobClaims.Claim(
                    first: claimed.lowerBound, last: claimed.upperBound, owner: owner, until: now() + TimeInterval(leaseSeconds), unfinished: Set(rows.map { Self.integer($0[0]) })))
            return rows.map { row in
                let id = Self.integer(row[0])
                return PushJob(
                    id: id, sendID: Self.text(row[1]) ?? "", userID: Self.text(row[2]), token: Self.text(row[3]) ?? "",
                    environment: Self.text(row[4]), bundleID: Self.text(row[5]), apnsID: Self.text(row[6]) ?? "", notificationID: Self.text(row[7]),
                    badge: row[8] == .null ? nil : Int(Self.integer(row[8])), attempts: Int(Self.integer(row[9])) + claims.attempts(of: id),
                    variant: Self.text(row[10]))
            }
        }
    }

    public func renewLeases(owner: String, leaseSeconds: Int) throws(StoreError) {
        let until = now() + TimeInterval(leaseSeconds)
        jobClaims.withLock { $0.renew(owner: owner, until: until) }
    }

    /// One process owns a SQLite file, so no other worker is alive: its stores are woken in-process.
    public func jobSignals() -> AsyncStream<Void>? { nil }

    /// On opening the file, the workers of the process that last had it are gone: each pending
    /// job their claims covered counts one more attempt, and the claims end. Claims will look for
    /// pending jobs from the first job of the sends not finished (a send with a pending job is not).
    func releaseLeases() throws(StoreError) {
        let start = try write { connection throws(StoreError) -> Int64 in
            for claim in try connection.statement("SELECT first_id, last_id FROM push_claims").rows([]) {
                try connection.statement(
                    "UPDATE push_jobs SET attempts = attempts + 1 WHERE id >= ?1 AND id <= ?2 AND NOT EXISTS (SELECT 1 FROM push_outcomes WHERE job_id = push_jobs.id)"
                ).run(claim)
            }
            try connection.execute("DELETE FROM push_claims")
            // One process owns the file: a schedule it was sending when it stopped is due again now
            // (its send, if stored, is found by id, not stored twice).
            try connection.execute("UPDATE push_schedules SET status = 'scheduled' WHERE status = 'sending'")
            let first = try connection.statement(
                "SELECT coalesce((SELECT min(first_job_id) FROM push_sends WHERE finished_at IS NULL), (SELECT coalesce(max(id), 0) + 1 FROM push_jobs))"
            ).rows([])
            return first.first.map { Self.integer($0[0]) } ?? 0
        }
        jobClaims.withLock { $0.unclaimedFrom = start }
    }

    public func sendRequest(id: String) throws(StoreError) -> String? {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT request FROM push_sends WHERE id = ?1").rows([.text(id)]).first.flatMap { Self.text($0[0]) }
        }
    }

    public func finishJobs(_ results: [PushJobResult]) throws(StoreError) {
        guard !results.isEmpty else { return }
        let time = Timestamp.postgres(now())
        // Results that end alike (nearly all: delivered, nothing removed) are recorded by one
        // statement each, over a JSON array of their job ids.
        struct Ending: Hashable {
            let delivered: Bool
            let reason: String?
            let environment: String?
            let removed: Bool
        }
        var endings: [Ending: [Int64]] = [:]
        for result in results {
            endings[Ending(delivered: result.delivered, reason: result.reason, environment: result.environment, removed: result.removed), default: []]
                .append(result.jobID)
        }
        // A job's attempts: those stored (claims before the last start) and this process's claims.
        // Looked up now, for these jobs only: a copy of the claims kept alive here would make
        // the lock's `ended` below copy every claim's set of unfinished jobs.
        let claimAttempts = jobClaims.withLock { claims in
            Dictionary(results.map { ($0.jobID, claims.attempts(of: $0.jobID)) }, uniquingKeysWith: { first, _ in first })
        }
        let ended = try write { connection throws(StoreError) -> [Int64] in
            // A job that has an outcome keeps it: only the new ones are returned, and counted.
            let insert = try connection.statement(
                """
                INSERT INTO push_outcomes (job_id, state, reason, environment, removed, finished_at)
                SELECT push_jobs.id, ?1, ?2, ?3, ?4, ?5 FROM json_each(?6) JOIN push_jobs ON push_jobs.id = json_each.value WHERE true
                ON CONFLICT (job_id) DO NOTHING RETURNING job_id
                """
            )
            // Counted by send in SQL, for the jobs that have `?2` attempts beyond the stored ones.
            let bySend = try connection.statement(
                "SELECT send_id, count(*), sum(attempts + ?2 > 1) FROM push_jobs WHERE id IN (SELECT value FROM json_each(?1)) GROUP BY send_id")
            var ended: [Int64] = []
            var counts: [String: (delivered: Int, failed: Int, removed: Int, redelivered: Int, reasons: [String: Int])] = [:]
            for (ending, ids) in endings {
                let inserted = try insert.integers([
                    .text(ending.delivered ? "delivered" : "failed"), Self.optional(ending.reason), Self.optional(ending.environment),
                    .integer(ending.removed ? 1 : 0), .text(time), Self.jsonArray(ids),
                ])
                guard !inserted.isEmpty else { continue }
                ended += inserted
                var byAttempts: [Int: [Int64]] = [:]
                for id in inserted { byAttempts[claimAttempts[id] ?? 0, default: []].append(id) }
                for (extra, ids) in byAttempts {
                    for row in try bySend.rows([Self.jsonArray(ids), .integer(Int64(extra))]) {
                        guard let send = Self.text(row[0]) else { continue }
                        let jobs = Int(Self.integer(row[1]))
                        var count = counts[send] ?? (0, 0, 0, 0, [:])
                        count.redelivered += Int(Self.integer(row[2]))
                        if ending.delivered { count.delivered += jobs } else { count.failed += jobs }
                        if ending.removed {
                            count.removed += jobs
                            count.reasons[removedPrefix + (ending.reason ?? "Unknown"), default: 0] += jobs
                        }
                        if !ending.delivered { count.reasons[ending.reason ?? "Unknown", default: 0] += jobs }
                        counts[send] = count
                    }
                }
            }
            let tally = try connection.statement(
                "UPDATE push_sends SET delivered = delivered + ?1, failed = failed + ?2, removed = removed + ?3, redelivered = redelivered + ?6, finished_at = CASE WHEN delivered + ?1 + failed + ?2 >= max(total, stored) THEN ?4 ELSE finished_at END WHERE id = ?5"
            )
            let reason = try connection.statement(
                "INSERT INTO push_send_reasons (send_id, reason, count) VALUES (?1, ?2, ?3) ON CONFLICT (send_id, reason) DO UPDATE SET count = count + excluded.count"
            )
            for (send, count) in counts {
                try tally.run([
                    .integer(Int64(count.delivered)), .integer(Int64(count.failed)), .integer(Int64(count.removed)), .text(time), .text(send),
                    .integer(Int64(count.redelivered)),
                ])
                for (name, number) in count.reasons { try reason.run([.text(send), .text(name), .integer(Int64(number))]) }
            }
            return ended
        }
        jobClaims.withLock { $0.ended(ended) }
    }

    /// Ids as a JSON array, which `json_each` reads as one bound value.
    private static func jsonArray(_ ids: [Int64]) -> SQLValue {
        .text("[" + ids.map(String.init).joined(separator: ",") + "]")
    }

    public func recentSendIDs(limit: Int) throws(StoreError) -> [String] {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT id FROM push_sends ORDER BY created_at DESC, id LIMIT ?1").rows([.integer(Int64(limit))]).compactMap { Self.text($0[0]) }
        }
    }

    public func sendSummary(id: String) throws(StoreError) -> PushSendSummary? {
        try read { connection throws(StoreError) in
            guard let send = try connection.statement("SELECT created_at, finished_at, total, delivered, failed, removed, redelivered FROM push_sends WHERE id = ?1")
                .rows([.text(id)]).first
            else { return nil }
            var reasons: [String: Int] = [:]
            for row in try connection.statement("SELECT reason, count FROM push_send_reasons WHERE send_id = ?1").rows([.text(id)]) {
                reasons[Self.text(row[0]) ?? ""] = Int(Self.integer(row[1]))
            }
            let opens = try connection.statement("SELECT count(*) FROM notifications WHERE send_id = ?1 AND opened_at IS NOT NULL").rows([.text(id)])
            let (failures, suppressed, removedReasons) = reasons.splitByKind()
            let total = Int(Self.integer(send[2]))
            let delivered = Int(Self.integer(send[3]))
            let failed = Int(Self.integer(send[4]))
            return PushSendSummary(
                id: id, createdAt: Self.text(send[0]) ?? "", finishedAt: Self.text(send[1]), total: total, pending: total - delivered - failed,
                delivered: delivered, failed: failed, removed: Int(Self.integer(send[5])), reasons: failures, removedReasons: removedReasons, suppressed: suppressed,
                opens: Int(opens.first.map { Self.integer($0[0]) } ?? 0), redelivered: Int(Self.integer(send[6])))
        }
    }

    public func tokensMoved(to userID: String, within seconds: TimeInterval) throws(StoreError) -> Set<String> {
        let since = Timestamp.postgres(now().addingTimeInterval(-seconds))
        return try read { connection throws(StoreError) in
            Set(try connection.rows("SELECT token FROM soar_device_moves WHERE to_user = $1 AND moved_at > $2", [.text(userID), .text(since)]).compactMap(\.first?.text))
        }
    }

    public func pendingJobCount() throws(StoreError) -> Int {
        try read { connection throws(StoreError) in
            // Each send counts its own: the jobs stored, less those with an outcome.
            Int(try connection.statement("SELECT coalesce(sum(stored - delivered - failed), 0) FROM push_sends WHERE finished_at IS NULL").rows([]).first.map { Self.integer($0[0]) } ?? 0)
        }
    }

    static func optional(_ text: String?) -> SQLValue { text.map { .text($0) } ?? .null }
    static func text(_ value: SQLValue) -> String? { if case .text(let text) = value { text } else { nil } }
    static func integer(_ value: SQLValue) -> Int64 { if case .integer(let number) = value { number } else { 0 } }
}
