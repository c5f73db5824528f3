import Foundation

/// Push's webhooks on Postgres: the queue's SQL (``WebhookQueue``) on the store's connections.
extension PostgresStore {
    private static let webhookQueue = WebhookQueue(dialect: .postgres)

    public func addWebhook(_ endpoint: WebhookEndpoint) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.webhookQueue.add(endpoint, on: connection) }
    }

    public func webhooks() throws(StoreError) -> [WebhookEndpoint] {
        try run { connection throws(StoreError) in try Self.webhookQueue.all(on: connection) }
    }

    public func deleteWebhook(id: String) throws(StoreError) -> Bool {
        try run { connection throws(StoreError) in try Self.webhookQueue.delete(id: id, on: connection) }
    }

    public func claimWebhookMessages(owner: String, now: String, leaseUntil: String, limit: Int) throws(StoreError) -> [WebhookMessage] {
        guard try run({ connection throws(StoreError) in try Self.webhookQueue.anyDue(now: now, on: connection) }) else { return [] }
        return try run { connection throws(StoreError) in try Self.webhookQueue.claim(owner: owner, now: now, leaseUntil: leaseUntil, limit: limit, on: connection) }
    }

    public func finishWebhookMessages(_ attempts: [WebhookAttempt], at time: String) throws(StoreError) {
        guard !attempts.isEmpty else { return }
        try run { connection throws(StoreError) in try Self.webhookQueue.finish(attempts, at: time, on: connection) }
    }

    public func webhookMessages(send: String?, endpoint: String?, limit: Int) throws(StoreError) -> [WebhookMessage] {
        try run { connection throws(StoreError) in try Self.webhookQueue.list(send: send, endpoint: endpoint, limit: limit, on: connection) }
    }

    public func webhookCounts(send: String) throws(StoreError) -> [String: Int] {
        try run { connection throws(StoreError) in try Self.webhookQueue.counts(send: send, on: connection) }
    }

    public func pruneWebhookMessages(finishedBefore time: String) throws(StoreError) {
        try run { connection throws(StoreError) in try Self.webhookQueue.prune(finishedBefore: time, on: connection) }
    }
}
