import Foundation
import SoarCore

/// Scheduled sends on SQLite: one process owns the file, so a claim is an update of the row.
extension SQLiteStore {
    public func addSchedule(id: String, request: String, dueAt: String) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            try connection.statement("INSERT INTO push_schedules (id, request, due_at, status, created_at, updated_at) VALUES (?1, ?2, ?3, 'scheduled', ?4, ?4)")
                .run([.text(id), .text(request), .text(dueAt), .text(time)])
        }
    }

    public func schedules(all: Bool) throws(StoreError) -> [PushSchedule] {
        try read { connection throws(StoreError) in
            let filter = all ? "" : " WHERE status IN ('scheduled', 'sending')"
            return try connection.statement("SELECT id, request, due_at, status, created_at FROM push_schedules\(filter) ORDER BY due_at, id").rows([]).map(Self.schedule)
        }
    }

    public func schedule(id: String) throws(StoreError) -> PushSchedule? {
        try read { connection throws(StoreError) in
            try connection.statement("SELECT id, request, due_at, status, created_at FROM push_schedules WHERE id = ?1").rows([.text(id)]).first.map(Self.schedule)
        }
    }

    public func claimDueSchedule(now: String, stale: String) throws(StoreError) -> PushSchedule? {
        let time = Timestamp.postgres(self.now())
        let due = "SELECT id, request, due_at, status, created_at FROM push_schedules WHERE (status = 'scheduled' AND due_at <= ?1) OR (status = 'sending' AND updated_at < ?2) ORDER BY due_at, id LIMIT 1"
        // Asked every second: a read while nothing is due, the writer only when something is.
        guard try read({ connection throws(StoreError) in try connection.statement(due).rows([.text(now), .text(stale)]).isEmpty }) == false else { return nil }
        return try write { connection throws(StoreError) in
            guard let row = try connection.statement(due).rows([.text(now), .text(stale)]).first else { return nil }
            let schedule = Self.schedule(row)
            try connection.statement("UPDATE push_schedules SET status = 'sending', updated_at = ?2 WHERE id = ?1").run([.text(schedule.id), .text(time)])
            return schedule
        }
    }

    public func finishSchedule(id: String, cancelled: Bool) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            // Only a claimed one: a sent schedule is never turned into a cancelled one.
            try connection.statement("UPDATE push_schedules SET status = ?2, updated_at = ?3 WHERE id = ?1 AND status = 'sending'")
                .run([.text(id), .text(cancelled ? "cancelled" : "sent"), .text(time)])
        }
    }

    public func touchSchedule(id: String) throws(StoreError) {
        let time = Timestamp.postgres(now())
        try write { connection throws(StoreError) in
            try connection.statement("UPDATE push_schedules SET updated_at = ?2 WHERE id = ?1 AND status = 'sending'").run([.text(id), .text(time)])
        }
    }

    public func cancelSchedule(id: String) throws(StoreError) -> Bool {
        let time = Timestamp.postgres(now())
        return try write { connection throws(StoreError) in
            try !connection.statement("UPDATE push_schedules SET status = 'cancelled', updated_at = ?2 WHERE id = ?1 AND status = 'scheduled' RETURNING id")
                .rows([.text(id), .text(time)]).isEmpty
        }
    }

    private static func schedule(_ row: [SQLValue]) -> PushSchedule {
        PushSchedule(id: text(row[0]) ?? "", request: text(row[1]) ?? "{}", dueAt: text(row[2]) ?? "", status: text(row[3]) ?? "", createdAt: text(row[4]) ?? "")
    }
}
