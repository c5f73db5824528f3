import Foundation
import SoarCore

/// Durable sends on Postgres, run as the server's own role (clients have no grant on these tables).
extension PostgresStore {
    public func createSend(id: String, request: String, total: Int, suppressed: [String: Int], kind: String?, schedules: [PushSchedule]) throws(StoreError) {
        let date = now()
        let time = Timestamp.postgres(date)
        try run { connection throws(StoreError) in
            try connection.query(
                "INSERT INTO public.push_sends (id, request, total, created_at, finished_at, kind, stored_all) VALUES ($1, $2, $3, $4, $5, $6, false)",
                [id, request, String(total), time, total == 0 ? time : nil, kind])
            for (why, count) in suppressed where count > 0 {
                try connection.query("INSERT INTO public.push_send_reasons (send_id, reason, count) VALUES ($1, $2, $3)", [id, suppressedPrefix + why, String(count)])
            }
            for (why, count) in suppressed.sorted(by: { $0.key < $1.key }) where count > 0 {
                try WebhookQueue(dialect: .postgres).enqueue(
                    type: "push.suppressed", send: id, at: date,
                    data: ["send_id": .string(id), "kind": kind.map(JSONValue.string) ?? .null, "reason": .string(why), "count": .int(count)], on: connection)
            }
            for schedule in schedules {
                try connection.query(
                    "INSERT INTO public.push_schedules (id, request, due_at, status, created_at, updated_at) VALUES ($1, $2, $3, 'scheduled', $4, $4)",
                    [schedule.id, schedule.request, schedule.dueAt, time])
            }
        }
    }

    public func usersReached(kind: String, since: String, atLeast count: Int) throws(StoreError) -> Set<String> {
        try run { connection throws(StoreError) in
            Set(try connection.query(
                """
                SELECT j.user_id::text FROM public.push_sends s JOIN public.push_jobs j ON j.send_id = s.id
                WHERE s.kind = $1 AND s.created_at > $2 AND j.user_id IS NOT NULL GROUP BY j.user_id HAVING count(DISTINCT s.id) >= $3
                """, [kind, since, String(count)]
            ).compactMap { $0[0] })
        }
    }

    public func appendToSend(id: String, jobs: [NewPushJob], notifications: [NewNotification], inboxSize: Int, badgeUnread: Bool) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in
            try Self.insert(notifications, sendID: id, inboxSize: inboxSize, time: time, on: connection)
            // One statement per chunk: the jobs travel as arrays and are unnested by Postgres.
            for start in stride(from: 0, to: jobs.count, by: 5_000) {
                let chunk = jobs[start..<min(start + 5_000, jobs.count)]
                try connection.query(
                    """
                    INSERT INTO public.push_jobs (send_id, user_id, token, environment, bundle_id, apns_id, updated_at, notification_id, badge, variant)
                    SELECT $1, u, t, e, b, a::uuid, $2, n::uuid, g::bigint, v
                    FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) AS j(u, t, e, b, a, n, g, v)
                    """,
                    [id, time, Self.array(chunk.map(\.userID)), Self.array(chunk.map(\.token)), Self.array(chunk.map(\.environment)),
                     Self.array(chunk.map(\.bundleID)), Self.array(chunk.map(\.apnsID)), Self.array(chunk.map(\.notificationID)),
                     Self.array(chunk.map { $0.badge.map(String.init) }), Self.array(chunk.map(\.variant))])
            }
            if badgeUnread {
                try connection.query(
                    "UPDATE public.push_jobs j SET badge = (SELECT count(*) FROM public.notifications n WHERE n.user_id = j.user_id AND read_at IS NULL AND opened_at IS NULL) WHERE send_id = $1 AND user_id IS NOT NULL AND badge IS NULL AND state = 'pending'",
                    [id])
            }
            // Jobs just stored are pending: the send is not finished, whatever it counted before.
            try connection.query("UPDATE public.push_sends SET stored = stored + $1, stored_at = now(), finished_at = NULL WHERE id = $2", [String(jobs.count), id])
            try connection.query("SELECT pg_notify('soar_push_jobs', $1)", [id])
        }
    }

    public func storeFollowUp(id: String, of original: String, request: String, inbox: InboxChange) throws(StoreError) -> Int? {
        guard RandomUUID.parse(original) != nil else { return nil }
        let time = Timestamp.postgres(now())
        return try run { connection throws(StoreError) -> Int? in
            guard try !connection.query("SELECT 1 FROM public.push_sends WHERE id = $1", [original]).isEmpty else { return nil }
            try connection.query(
                "INSERT INTO public.push_sends (id, request, total, created_at, finished_at) VALUES ($1, $2, 0, $3, NULL)", [id, request, time])
            let count = try connection.query(
                """
                INSERT INTO public.push_jobs (send_id, user_id, token, environment, bundle_id, apns_id, updated_at, notification_id, variant)
                SELECT $1, user_id, token, environment, bundle_id, gen_random_uuid(), $2, notification_id, variant FROM public.push_jobs WHERE send_id = $3 ORDER BY id
                RETURNING 1
                """, [id, time, original]
            ).count
            try connection.query(
                "UPDATE public.push_sends SET total = $1::bigint, stored = $1::bigint, stored_at = now(), finished_at = CASE WHEN $1::bigint = 0 THEN $2::timestamptz END WHERE id = $3",
                [String(count), time, id])
            switch inbox {
            case .update(let title, let body, let payload):
                try connection.query(
                    "UPDATE public.notifications SET title = $1, body = $2, payload = jsonb_set($3::jsonb, '{soar_id}', to_jsonb(id::text)) WHERE id IN (SELECT notification_id FROM public.push_jobs WHERE send_id = $4)",
                    [title, body, payload, original])
            case .remove:
                try connection.query("DELETE FROM public.notifications WHERE id IN (SELECT notification_id FROM public.push_jobs WHERE send_id = $1)", [original])
            }
            try connection.query("SELECT pg_notify('soar_push_jobs', $1)", [id])
            return count
        }
    }

    /// Other processes may be storing their sends right now: only a send nothing was added to for
    /// a minute (its process died) is closed. Every worker runs this now and then.
    public func closePartlyStoredSends() throws(StoreError) {
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in
            try connection.query(
                "UPDATE public.push_sends SET total = stored, finished_at = CASE WHEN delivered + failed >= stored THEN $1::timestamptz ELSE finished_at END WHERE stored < total AND coalesce(stored_at, created_at) < now() - interval '1 minute'",
                [time])
        }
    }

    public func finishStoring(id: String) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in
            try connection.query(
                "UPDATE public.push_sends SET total = stored, stored_all = true, finished_at = CASE WHEN delivered + failed >= stored THEN coalesce(finished_at, $1::timestamptz) END WHERE id = $2",
                [time, id])
        }
    }

    public func partlyStored(id: String) throws(StoreError) -> (lastUser: String?, userlessTokens: Set<String>)? {
        guard RandomUUID.parse(id) != nil else { return nil }
        // Another process may be storing it right now: only a send nothing was added to for a
        // minute (its process stopped) is taken up, as closePartlyStoredSends closes them.
        let quiet = Timestamp.postgres(now().addingTimeInterval(-60))
        return try run { connection throws(StoreError) -> (lastUser: String?, userlessTokens: Set<String>)? in
            guard try !connection.query(
                "SELECT 1 FROM public.push_sends WHERE id = $1 AND NOT stored_all AND coalesce(stored_at, created_at) < $2::timestamptz", [id, quiet]
            ).isEmpty else { return nil }
            let last = try connection.query("SELECT max(user_id::text) FROM public.push_jobs WHERE send_id = $1", [id]).first?.first ?? nil
            let tokens = try connection.query("SELECT token FROM public.push_jobs WHERE send_id = $1 AND user_id IS NULL", [id]).compactMap { $0.first ?? nil }
            return (last, Set(tokens))
        }
    }

    public func addNotifications(_ notifications: [NewNotification], inboxSize: Int) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in try Self.insert(notifications, sendID: nil, inboxSize: inboxSize, time: time, on: connection) }
    }

    /// Inserts inbox rows, then trims the inboxes now over `inboxSize`.
    private static func insert(_ notifications: [NewNotification], sendID: String?, inboxSize: Int, time: String, on connection: PGConnection) throws(StoreError) {
        guard !notifications.isEmpty else { return }
        for start in stride(from: 0, to: notifications.count, by: 5_000) {
            let chunk = notifications[start..<min(start + 5_000, notifications.count)]
            try connection.query(
                """
                INSERT INTO public.notifications (id, user_id, title, body, payload, send_id, created_at)
                SELECT i, u, t, b, p::jsonb, $1, $2 FROM unnest($3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::text[]) AS n(i, u, t, b, p)
                """,
                [sendID, time, array(chunk.map(\.id)), array(chunk.map(\.userID)), array(chunk.map(\.title)), array(chunk.map(\.body)),
                 array(chunk.map(\.payload))])
        }
        try connection.query(
            """
            DELETE FROM public.notifications WHERE id IN (
              SELECT id FROM (
                SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY created_at DESC, id DESC) AS position
                FROM public.notifications WHERE user_id = ANY($1::uuid[])
              ) ranked WHERE position > $2)
            """,
            [array(Array(Set(notifications.map(\.userID)))), String(inboxSize)])
    }

    public func claimJobs(owner: String, limit: Int, leaseSeconds: Int) throws(StoreError) -> [PushJob] {
        // SKIP LOCKED: workers of several processes claim side by side, never the same job twice;
        // leases are timed by the database's clock, the one clock every process shares.
        try run { connection throws(StoreError) in
            try connection.query(
                """
                UPDATE public.push_jobs j SET lease_owner = $1, lease_until = now() + make_interval(secs => $2::int), attempts = j.attempts + 1
                FROM (SELECT id FROM public.push_jobs WHERE state = 'pending' AND (lease_until IS NULL OR lease_until < now())
                      ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED) claimed
                WHERE j.id = claimed.id
                RETURNING j.id, j.send_id, j.user_id, j.token, j.environment, j.bundle_id, j.apns_id, j.notification_id, j.badge, j.attempts, j.variant
                """,
                [owner, String(leaseSeconds), String(limit)]
            ).map { row in
                PushJob(
                    id: Int64(row[0] ?? "") ?? 0, sendID: row[1] ?? "", userID: row[2], token: row[3] ?? "", environment: row[4],
                    bundleID: row[5], apnsID: row[6] ?? "", notificationID: row[7], badge: row[8].flatMap { Int($0) }, attempts: Int(row[9] ?? "") ?? 1,
                    variant: row[10])
            }
            .sorted { $0.id < $1.id }
        }
    }

    public func renewLeases(owner: String, leaseSeconds: Int) throws(StoreError) {
        try run { connection throws(StoreError) in
            try connection.query(
                // SKIP LOCKED: a job whose outcome is being recorded right now is not waited for.
                """
                UPDATE public.push_jobs SET lease_until = now() + make_interval(secs => $2::int)
                WHERE id IN (SELECT id FROM public.push_jobs WHERE lease_owner = $1 AND state = 'pending' ORDER BY id FOR UPDATE SKIP LOCKED)
                """,
                [owner, String(leaseSeconds)])
        }
    }

    /// LISTEN on `soar_push_jobs` on a connection of its own: every process's worker wakes when
    /// any process stores jobs (NOTIFY is sent when the storing transaction commits).
    public func jobSignals() -> AsyncStream<Void>? {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let url = pool.url
        let stopped = Locked(false)
        continuation.onTermination = { _ in stopped.withLock { $0 = true } }
        Thread.detachNewThread {
            while !stopped.withLock({ $0 }) {
                guard let connection = try? PGConnection(url), (try? connection.execute("LISTEN soar_push_jobs")) != nil else {
                    Thread.sleep(forTimeInterval: 1)
                    continue
                }
                while !stopped.withLock({ $0 }) {
                    guard let payloads = try? connection.notifications(timeout: 1) else { break }
                    if !payloads.isEmpty { continuation.yield() }
                }
            }
        }
        return stream
    }

    public func tokensMoved(to userID: String, within seconds: TimeInterval) throws(StoreError) -> Set<String> {
        guard RandomUUID.parse(userID) != nil else { return [] }
        return try run { connection throws(StoreError) in
            Set(try connection.rows(
                "SELECT token FROM soar.device_moves WHERE to_user = $1 AND moved_at > now() - make_interval(secs => $2)",
                [.text(userID), .real(seconds)]).compactMap(\.first?.text))
        }
    }

    public func sendRequest(id: String) throws(StoreError) -> String? {
        guard RandomUUID.parse(id) != nil else { return nil }
        return try run { connection throws(StoreError) in
            try connection.query("SELECT request FROM public.push_sends WHERE id = $1", [id]).first?.first ?? nil
        }
    }

    public func finishJobs(_ results: [PushJobResult]) throws(StoreError) {
        guard !results.isEmpty else { return }
        // Rows are locked in id order, and sends below in key order, so processes never deadlock.
        let results = results.sorted { $0.jobID < $1.jobID }
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in
            // Only jobs still pending change, so an outcome recorded twice is counted once; the
            // send's counts move in the same transaction.
            let changed = try connection.query(
                """
                UPDATE public.push_jobs j SET state = r.state, reason = r.reason, environment = coalesce(r.environment, j.environment),
                  removed = r.removed, updated_at = $1
                FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::boolean[]) AS r(id, state, reason, environment, removed)
                WHERE j.id = r.id AND j.state = 'pending'
                RETURNING j.send_id, r.state, r.reason, r.removed, j.attempts
                """,
                [time, Self.array(results.map { String($0.jobID) }), Self.array(results.map { $0.delivered ? "delivered" : "failed" }),
                 Self.array(results.map(\.reason)), Self.array(results.map(\.environment)), Self.array(results.map { $0.removed ? "true" : "false" })])
            var counts: [String: (delivered: Int, failed: Int, removed: Int, redelivered: Int, reasons: [String: Int])] = [:]
            for row in changed {
                guard let send = row[0] else { continue }
                var count = counts[send] ?? (0, 0, 0, 0, [:])
                if (Int(row[4] ?? "") ?? 0) > 1 { count.redelivered += 1 }
                if row[1] == "delivered" { count.delivered += 1 } else { count.failed += 1 }
                if row[3] == "t" {
                    count.removed += 1
                    count.reasons[removedPrefix + (row[2] ?? "Unknown"), default: 0] += 1
                }
                if row[1] != "delivered" { count.reasons[row[2] ?? "Unknown", default: 0] += 1 }
                counts[send] = count
            }
            for (send, count) in counts.sorted(by: { $0.key < $1.key }) {
                try connection.query(
                    "UPDATE public.push_sends SET delivered = delivered + $1, failed = failed + $2, removed = removed + $3, redelivered = redelivered + $6, finished_at = CASE WHEN delivered + $1 + failed + $2 >= greatest(total, stored) THEN $4::timestamptz ELSE finished_at END WHERE id = $5",
                    [String(count.delivered), String(count.failed), String(count.removed), time, send, String(count.redelivered)])
                for (name, number) in count.reasons.sorted(by: { $0.key < $1.key }) {
                    try connection.query(
                        "INSERT INTO public.push_send_reasons (send_id, reason, count) VALUES ($1, $2, $3) ON CONFLICT (send_id, reason) DO UPDATE SET count = push_send_reasons.count + excluded.count",
                        [send, name, String(number)])
                }
            }
        }
    }

    public func recentSendIDs(limit: Int) throws(StoreError) -> [String] {
        try run { connection throws(StoreError) in
            try connection.query("SELECT id::text FROM public.push_sends ORDER BY created_at DESC, id LIMIT $1", [String(limit)]).compactMap { $0[0] }
        }
    }

    public func sendSummary(id: String) throws(StoreError) -> PushSendSummary? {
        guard RandomUUID.parse(id) != nil else { return nil }
        return try run { connection throws(StoreError) in
            guard let send = try connection.query("SELECT created_at, finished_at, total, delivered, failed, removed, redelivered FROM public.push_sends WHERE id = $1", [id]).first
            else { return nil }
            var reasons: [String: Int] = [:]
            for row in try connection.query("SELECT reason, count FROM public.push_send_reasons WHERE send_id = $1", [id]) {
                reasons[row[0] ?? ""] = Int(row[1] ?? "") ?? 0
            }
            let opens = try connection.query("SELECT count(*) FROM public.notifications WHERE send_id = $1 AND opened_at IS NOT NULL", [id])
            func number(_ index: Int) -> Int { Int(send[index] ?? "") ?? 0 }
            let (failures, suppressed, removedReasons) = reasons.splitByKind()
            func time(_ text: String?) -> String? { text.map { Timestamp.parse($0).map(Timestamp.postgres) ?? $0 } }
            return PushSendSummary(
                id: id, createdAt: time(send[0]) ?? "", finishedAt: time(send[1]), total: number(2), pending: number(2) - number(3) - number(4),
                delivered: number(3), failed: number(4), removed: number(5), reasons: failures, removedReasons: removedReasons, suppressed: suppressed,
                opens: Int(opens.first?.first.flatMap { $0 } ?? "") ?? 0, redelivered: number(6))
        }
    }

    public func pendingJobCount() throws(StoreError) -> Int {
        try run { connection throws(StoreError) in
            Int(try connection.query("SELECT count(*) FROM public.push_jobs WHERE state = 'pending'").first?.first.flatMap { $0 } ?? "") ?? 0
        }
    }

    /// A Postgres array literal of text values (NULL for nil), for `unnest($n::type[])`.
    static func array(_ values: [String?]) -> String {
        "{" + values.map { value in
            guard let value else { return "NULL" }
            return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }.joined(separator: ",") + "}"
    }
}
