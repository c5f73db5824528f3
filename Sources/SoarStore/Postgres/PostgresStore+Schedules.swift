import Foundation
import SoarCore

/// Scheduled sends on Postgres: processes claim a due one with FOR UPDATE SKIP LOCKED, so each
/// runs in one process at a time.
extension PostgresStore {
    public func addSchedule(id: String, request: String, dueAt: String) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in
            try connection.query(
                "INSERT INTO public.push_schedules (id, request, due_at, status, created_at, updated_at) VALUES ($1, $2, $3, 'scheduled', $4, $4)",
                [id, request, dueAt, time])
        }
    }

    public func schedules(all: Bool) throws(StoreError) -> [PushSchedule] {
        try run { connection throws(StoreError) in
            let filter = all ? "" : " WHERE status IN ('scheduled', 'sending')"
            return try connection.query("SELECT id, request, due_at, status, created_at FROM public.push_schedules\(filter) ORDER BY due_at, id").map(Self.schedule)
        }
    }

    public func schedule(id: String) throws(StoreError) -> PushSchedule? {
        guard RandomUUID.parse(id) != nil else { return nil }
        return try run { connection throws(StoreError) in
            try connection.query("SELECT id, request, due_at, status, created_at FROM public.push_schedules WHERE id = $1", [id]).first.map(Self.schedule)
        }
    }

    public func claimDueSchedule(now: String, stale: String) throws(StoreError) -> PushSchedule? {
        let time = Timestamp.postgres(self.now())
        return try run { connection throws(StoreError) in
            try connection.query(
                """
                UPDATE public.push_schedules SET status = 'sending', updated_at = $3 WHERE id = (
                  SELECT id FROM public.push_schedules
                  WHERE (status = 'scheduled' AND due_at <= $1) OR (status = 'sending' AND updated_at < $2)
                  ORDER BY due_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
                RETURNING id, request, due_at, status, created_at
                """, [now, stale, time]
            ).first.map(Self.schedule)
        }
    }

    public func finishSchedule(id: String, cancelled: Bool) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in
            // Only a claimed one: a sent schedule is never turned into a cancelled one.
            try connection.query("UPDATE public.push_schedules SET status = $2, updated_at = $3 WHERE id = $1 AND status = 'sending'", [id, cancelled ? "cancelled" : "sent", time])
        }
    }

    public func touchSchedule(id: String) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try run { connection throws(StoreError) in
            try connection.query("UPDATE public.push_schedules SET updated_at = $2 WHERE id = $1 AND status = 'sending'", [id, time])
        }
    }

    public func cancelSchedule(id: String) throws(StoreError) -> Bool {
        guard RandomUUID.parse(id) != nil else { return false }
        let time = Timestamp.postgres(now())
        return try run { connection throws(StoreError) in
            try !connection.query("UPDATE public.push_schedules SET status = 'cancelled', updated_at = $2 WHERE id = $1 AND status = 'scheduled' RETURNING id", [id, time]).isEmpty
        }
    }

    private static func schedule(_ row: [String?]) -> PushSchedule {
        func time(_ text: String?) -> String { text.map { Timestamp.parse($0).map(Timestamp.postgres) ?? $0 } ?? "" }
        return PushSchedule(id: row[0] ?? "", request: row[1] ?? "{}", dueAt: time(row[2]), status: row[3] ?? "", createdAt: time(row[4]))
    }
}
