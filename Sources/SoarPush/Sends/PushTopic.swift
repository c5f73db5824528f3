import SoarStore

/// A topic users follow (`push_topic_subscriptions`, a table of the app's migrations): a send to
/// it reaches the devices of its followers.
enum PushTopic {
    static func valid(_ topic: String) -> Bool {
        !topic.isEmpty && topic.count <= 128
            && topic.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_.:-".unicodeScalars.contains($0) }
    }

    /// Whether anyone follows `topic` (false too when the app's schema has no topics table).
    static func followed(_ topic: String, store: any DataStore) throws(StoreError) -> Bool {
        guard let table = store.tables["push_topic_subscriptions"], table.column("topic") != nil else { return false }
        var query = RowQuery()
        query.condition = .compare(column: "topic", op: .eq, operand: .value(.text(topic)))
        query.outputs = [RowQuery.Output(column: "topic", key: "topic")]
        query.limit = 1
        return try !store.select(table, query, as: .service, counting: false).rows.isEmpty
    }

    /// Devices whose user follows `topic`: a condition on `device_tokens`.
    static func followers(of topic: String) -> RowQuery.Condition {
        .related(
            relation: "push_topic_subscriptions", join: [RowQuery.Join(related: "user_id", own: "user_id")],
            condition: .compare(column: "topic", op: .eq, operand: .value(.text(topic))))
    }
}
