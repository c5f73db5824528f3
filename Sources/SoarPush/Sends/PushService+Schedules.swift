import Foundation
import SoarCore
import SoarStore

/// `/functions/v1/schedules`: the sends waiting for their time, one's state, and cancelling one.
extension PushService {
    /// Scheduled sends not yet sent, by due time.
    public func schedules() throws(PushError) -> JSONValue {
        // The first 1,000 by due time, without their bodies (GET /schedules/<id> has each one's).
        do {
            return .array(try jobs.schedules(all: false).prefix(1000).map { schedule in
                var entry = Self.json(schedule).objectValue ?? [:]
                entry["request"] = nil
                return .object(entry)
            })
        } catch {
            throw PushError(503, "store_unavailable", error.message)
        }
    }

    /// One scheduled send, whatever its state.
    public func scheduleStatus(id: String) throws(PushError) -> JSONValue {
        let schedule: PushSchedule?
        do { schedule = try jobs.schedule(id: id) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard let schedule else { throw PushError(404, "not_found", "no scheduled send has the id \(id)") }
        return Self.json(schedule)
    }

    /// Cancels a scheduled send before it runs.
    ///
    /// - Throws: ``PushError`` 404 for an unknown id, 409 once it started or was cancelled.
    public func cancelSchedule(id: String) throws(PushError) -> JSONValue {
        let schedule = try scheduleStatus(id: id)
        let cancelled: Bool
        do { cancelled = try jobs.cancelSchedule(id: id) } catch { throw PushError(503, "store_unavailable", error.message) }
        guard cancelled else {
            throw PushError(409, "not_cancellable", "the scheduled send is \(schedule.objectValue?["status"]?.stringValue ?? "gone"): only a scheduled one can be cancelled")
        }
        return ["schedule_id": .string(id), "status": "cancelled"]
    }

    static func json(_ schedule: PushSchedule) -> JSONValue {
        [
            "schedule_id": .string(schedule.id), "send_at": .string(Timestamp.parse(schedule.dueAt).map(Timestamp.format) ?? schedule.dueAt),
            "status": .string(schedule.status), "created_at": .string(schedule.createdAt),
            // Once sent, the send of the same id holds its statistics.
            "send": schedule.status == "sent" ? .string("/functions/v1/sends/\(schedule.id)") : .null,
            "request": (try? JSONValue.read(Data(schedule.request.utf8))) ?? .null,
        ]
    }
}
