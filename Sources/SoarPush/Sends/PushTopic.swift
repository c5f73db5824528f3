import SoarStore

/// A topic users or single devices follow (`push_topic_subscriptions`,
/// `push_topic_device_subscriptions`: tables of the app's migrations): a send to it reaches the
/// devices of its followers.
enum PushTopic {
    static func valid(_ topic: String) -> Bool {
        !topic.isEmpty && topic.count <= 128
            && topic.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_.:-".unicodeScalars.contains($0) }
    }

    /// The tables of the app's migrations that say who follows what: users, and single devices.
    static let userTable = "push_topic_subscriptions"
    static let deviceTable = "push_topic_device_subscriptions"

    /// Whether any user or device follows `topic` (false too when the app's schema has neither table).
    static func followed(_ topic: String, store: any DataStore) throws(StoreError) -> Bool {
        for name in [userTable, deviceTable] {
            guard let table = store.tables[name], table.column("topic") != nil else { continue }
            var query = RowQuery()
            query.condition = named(topic)
            query.outputs = [RowQuery.Output(column: "topic", key: "topic")]
            query.limit = 1
            if try !store.select(table, query, as: .service, counting: false).rows.isEmpty { return true }
        }
        return false
    }

    /// Devices whose user follows `topic`, or which follow it themselves while they are that
    /// user's: a condition on `device_tokens`, over the tables the app's schema has.
    static func followers(of topic: String, tables: [String: Table]) -> RowQuery.Condition {
        var ways: [RowQuery.Condition] = []
        if tables[userTable] != nil {
            ways.append(.related(relation: userTable, join: [RowQuery.Join(related: "user_id", own: "user_id")], condition: named(topic)))
        }
        if tables[deviceTable] != nil {
            ways.append(.related(
                relation: deviceTable, join: [RowQuery.Join(related: "user_id", own: "user_id"), RowQuery.Join(related: "token", own: "token")],
                condition: named(topic)))
        }
        if ways.count == 1 { return ways[0] }
        return ways.isEmpty ? .compare(column: "token", op: .in, operand: .list([])) : .any(ways)
    }

    private static func named(_ topic: String) -> RowQuery.Condition {
        .compare(column: "topic", op: .eq, operand: .value(.text(topic)))
    }
}
