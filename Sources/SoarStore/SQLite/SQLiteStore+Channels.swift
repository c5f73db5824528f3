import Foundation
import SoarCore
import SoarSchema

/// Realtime Authorization on SQLite: the policies on `realtime.messages`, translated from the
/// app's migrations, evaluated for a probe row of the topic, as the caller, with
/// `realtime.topic()` answering the topic.
extension SQLiteStore {
    public func channelAccess(topic: String, extension kind: String, as access: Access) throws(StoreError) -> ChannelAccess {
        guard access.role != .serviceRole else { return ChannelAccess(read: true, write: true) }
        let schema = model.withLock { $0 }.withBuiltIns()
        let name = Schema.realtimeMessages.name
        guard let relation = schema.relation(name) else { return ChannelAccess(read: false, write: false) }
        let role = access.role.rawValue
        let grants = relation.grants[role] ?? Privileges()
        let read: String?, write: String?
        do throws(Schema.Recursion) {
            read = grants.select ? try schema.filter(name, .select, role: role) : "0"
            write = grants.insert ? try schema.check(name, .insert, role: role) : "0"
        } catch {
            throw StoreError(code: "42P17", message: "infinite recursion detected in policy for relation \"\(error.relation)\"")
        }
        let time = Timestamp.postgres(now())
        let probe = """
            (SELECT ?1 AS "id", ?2 AS "topic", ?3 AS "extension", NULL AS "event", NULL AS "payload", 1 AS "private", \
            ?4 AS "inserted_at", ?4 AS "updated_at") AS "\(name)"
            """
        let sql = "SELECT EXISTS (SELECT 1 FROM \(probe) WHERE \(read ?? "1")), EXISTS (SELECT 1 FROM \(probe) WHERE \(write ?? "1"))"
        let parameters: [SQLValue] = [.text(UUID().uuidString.lowercased()), .text(topic), .text(kind), .text(time)]
        return try self.read { connection throws(StoreError) in
            connection.context.set(access, at: time, topic: topic)
            defer { connection.context.set(nil, at: nil) }
            let row = try connection.statement(sql).rows(parameters).first ?? []
            return ChannelAccess(read: row.first == .integer(1), write: row.dropFirst().first == .integer(1))
        }
    }
}
