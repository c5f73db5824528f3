import Foundation
import SoarCore

/// Realtime Authorization on Postgres, as Supabase's Realtime checks it: in a transaction that is
/// rolled back, a probe row of the topic is written as the owner and read as the caller (its
/// SELECT policies), then written as the caller (its INSERT policies), `realtime.topic()`
/// answering the topic.
extension PostgresStore {
    public func channelAccess(topic: String, extension kind: String, as access: Access) throws(StoreError) -> ChannelAccess {
        guard access.role != .serviceRole else { return ChannelAccess(read: true, write: true) }
        let id = UUID().uuidString.lowercased()
        let claims = JSONValue.object(["role": .string(access.role.rawValue), "sub": access.userID.map(JSONValue.string) ?? .null, "aal": .string(access.aal)])
        let asCaller = SQLStatement(
            text: "SELECT set_config('role', $1, true), set_config('request.jwt.claims', $2, true), set_config('request.jwt.claim.sub', $3, true), set_config('realtime.topic', $4, true)",
            parameters: [.text(access.role.rawValue), .text(claims.jsonText), .text(access.userID ?? ""), .text(topic)])
        let begin = SQLStatement(text: "BEGIN", parameters: [])
        let rollback = SQLStatement(text: "ROLLBACK", parameters: [])
        let read = try probe([
            begin, SQLStatement(text: "INSERT INTO realtime.messages (id, topic, extension) VALUES ($1::uuid, $2, $3)", parameters: [.text(id), .text(topic), .text(kind)]),
            asCaller, SQLStatement(text: "SELECT count(*) FROM realtime.messages WHERE id = $1::uuid", parameters: [.text(id)]), rollback,
        ]) { answers in answers[3].rows.first?.first.flatMap { $0 } == "1" }
        let write = try probe([
            begin, asCaller, SQLStatement(text: "INSERT INTO realtime.messages (topic, extension) VALUES ($1, $2)", parameters: [.text(topic), .text(kind)]), rollback,
        ]) { _ in true }
        return ChannelAccess(read: read, write: write)
    }

    /// Runs a rolled-back probe; a refusal by the policies or grants (42501) is a plain no.
    private func probe(_ statements: [SQLStatement], _ allowed: ([PGConnection.Answer]) -> Bool) throws(StoreError) -> Bool {
        try pool.with { connection throws(StoreError) in
            do throws(StoreError) {
                return allowed(try connection.pipeline(statements))
            } catch where error.code == "42501" {
                if connection.isUsable && !connection.isIdle { _ = try? connection.execute("ROLLBACK") }
                return false
            } catch {
                if connection.isUsable && !connection.isIdle { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }
}
