import Foundation
import SoarCore
import SoarSchema

/// A URL that receives push's delivery events.
public struct WebhookEndpoint: Sendable, Equatable {
    public let id: String
    public let url: String
    /// `whsec_` and the base64 of the signing key.
    public let secret: String
    /// The event types it gets; nil: every type.
    public let events: [String]?
    public let createdAt: String

    public init(id: String, url: String, secret: String, events: [String]?, createdAt: String) {
        self.id = id
        self.url = url
        self.secret = secret
        self.events = events
        self.createdAt = createdAt
    }
}

/// One event on its way to one endpoint.
public struct WebhookMessage: Sendable, Equatable {
    public let seq: Int64
    /// The `webhook-id`, the same on every attempt.
    public let id: String
    public let endpointID: String
    public let type: String
    public let sendID: String?
    public let payload: String
    /// `pending`, `delivered` or `failed` (given up).
    public let state: String
    /// Attempts made before this one.
    public let attempts: Int
    public let nextAttemptAt: String?
    public let lastStatus: Int?
    public let lastError: String?
    /// The endpoint's URL and secret, for a message claimed to be sent.
    public var url: String = ""
    public var secret: String = ""

    public init(
        seq: Int64, id: String, endpointID: String, type: String, sendID: String?, payload: String, state: String, attempts: Int,
        nextAttemptAt: String?, lastStatus: Int?, lastError: String?
    ) {
        self.seq = seq
        self.id = id
        self.endpointID = endpointID
        self.type = type
        self.sendID = sendID
        self.payload = payload
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}

/// What one attempt at a message came to.
public struct WebhookAttempt: Sendable {
    public let seq: Int64
    public let delivered: Bool
    /// The receiver's HTTP status; nil when none came (refused, timed out).
    public let status: Int?
    public let error: String?
    /// When to try again (a Postgres timestamp); nil with `delivered`, or when it is given up.
    public let retryAt: String?

    public init(seq: Int64, delivered: Bool, status: Int?, error: String?, retryAt: String?) {
        self.seq = seq
        self.delivered = delivered
        self.status = status
        self.error = error
        self.retryAt = retryAt
    }
}

/// Push's webhooks: endpoints, and messages queued in the transactions that made their events
/// (outcomes and opens by triggers; a send's suppressions by ``PushJobStore/createSend``).
public protocol WebhookStore: Sendable {
    func addWebhook(_ endpoint: WebhookEndpoint) throws(StoreError)
    func webhooks() throws(StoreError) -> [WebhookEndpoint]
    /// - Returns: whether there was one (its messages go with it).
    func deleteWebhook(id: String) throws(StoreError) -> Bool
    /// Takes up to `limit` pending messages due at `now` that no live process holds, leasing them
    /// to `owner` until `leaseUntil`, oldest first, each with its endpoint's URL and secret.
    func claimWebhookMessages(owner: String, now: String, leaseUntil: String, limit: Int) throws(StoreError) -> [WebhookMessage]
    /// Records attempts: delivered, due again at `retryAt`, or given up.
    func finishWebhookMessages(_ attempts: [WebhookAttempt], at time: String) throws(StoreError)
    /// Messages, newest first: of a send, or of an endpoint, or all.
    func webhookMessages(send: String?, endpoint: String?, limit: Int) throws(StoreError) -> [WebhookMessage]
    /// A send's messages by state.
    func webhookCounts(send: String) throws(StoreError) -> [String: Int]
    /// Forgets delivered and given-up messages finished before `time`.
    func pruneWebhookMessages(finishedBefore time: String) throws(StoreError)
}

/// Webhook SQL written once for both stores.
struct WebhookQueue {
    let dialect: SQLDialect

    private var endpoints: String { dialect == .postgres ? "public.push_webhooks" : "push_webhooks" }
    private var messages: String { dialect == .postgres ? "public.push_webhook_messages" : "push_webhook_messages" }
    /// A time parameter as the column's type.
    private func time(_ parameter: String) -> String { dialect == .postgres ? "\(parameter)::timestamptz" : parameter }
    private func timeText(_ column: String) -> String {
        dialect == .postgres ? "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')" : column
    }
    private var columns: String {
        "seq, id, endpoint_id, type, send_id, payload, state, attempts, \(timeText("next_attempt_at")), last_status, last_error"
    }

    func add(_ endpoint: WebhookEndpoint, on connection: some SQLConnection) throws(StoreError) {
        let events: SQLValue = endpoint.events.map { .text(JSONValue.array($0.map(JSONValue.string)).jsonText) } ?? .null
        try connection.rows(
            "INSERT INTO \(endpoints) (id, url, secret, events, created_at) VALUES ($1, $2, $3, \(dialect == .postgres ? "$4::jsonb" : "$4"), \(time("$5")))",
            [.text(endpoint.id), .text(endpoint.url), .text(endpoint.secret), events, .text(endpoint.createdAt)])
    }

    func all(on connection: some SQLConnection) throws(StoreError) -> [WebhookEndpoint] {
        try connection.rows("SELECT id, url, secret, \(dialect == .postgres ? "events::text" : "events"), \(timeText("created_at")) FROM \(endpoints) ORDER BY created_at, id")
            .compactMap { row in
                guard let id = row[0].text, let url = row[1].text, let secret = row[2].text else { return nil }
                let events = row[3].text.flatMap { try? JSONValue.read(Data($0.utf8)) }?.arrayValue?.compactMap(\.stringValue)
                return WebhookEndpoint(id: id, url: url, secret: secret, events: events, createdAt: row[4].text ?? "")
            }
    }

    func delete(id: String, on connection: some SQLConnection) throws(StoreError) -> Bool {
        !(try connection.rows("DELETE FROM \(endpoints) WHERE id = $1 RETURNING id", [.text(id)]).isEmpty)
    }

    /// Queues one event for every endpoint that takes its type.
    func enqueue(type: String, send: String?, at: Date, data: JSONValue, on connection: some SQLConnection) throws(StoreError) {
        let id = dialect == .postgres ? "'msg_' || replace(gen_random_uuid()::text, '-', '')" : "'msg_' || lower(hex(randomblob(16)))"
        let takes = dialect == .postgres ? "w.events ? $1" : "EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = $1)"
        let payload = JSONValue.object(["type": .string(type), "timestamp": .string(Timestamp.format(at)), "data": data]).jsonText
        try connection.rows(
            "INSERT INTO \(messages) (id, endpoint_id, type, send_id, payload) SELECT \(id), w.id, $1, $2, $3 FROM \(endpoints) w WHERE w.events IS NULL OR \(takes)",
            [.text(type), send.map(SQLValue.text) ?? .null, .text(payload)])
    }

    /// Whether any message is due at `now` that no live lease holds: a read, so that an idle
    /// server's polls never take the writer.
    func anyDue(now: String, on connection: some SQLConnection) throws(StoreError) -> Bool {
        !(try connection.rows(
            """
            SELECT 1 FROM \(messages) WHERE state = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= \(time("$1")))
              AND (lease_until IS NULL OR lease_until <= \(time("$1"))) LIMIT 1
            """, [.text(now)]).isEmpty)
    }

    func claim(owner: String, now: String, leaseUntil: String, limit: Int, on connection: some SQLConnection) throws(StoreError) -> [WebhookMessage] {
        let lock = dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
        let claimed = try connection.rows(
            """
            UPDATE \(messages) SET lease_owner = $1, lease_until = \(time("$3"))
            WHERE seq IN (
              SELECT seq FROM \(messages) WHERE state = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= \(time("$2")))
                AND (lease_until IS NULL OR lease_until <= \(time("$2"))) ORDER BY seq LIMIT $4\(lock))
            RETURNING \(columns)
            """, [.text(owner), .text(now), .text(leaseUntil), .integer(Int64(limit))]
        ).compactMap(Self.message)
        guard !claimed.isEmpty else { return [] }
        let endpoints = Dictionary(try all(on: connection).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return claimed.sorted { $0.seq < $1.seq }.compactMap { message in
            guard let endpoint = endpoints[message.endpointID] else { return nil }
            var message = message
            message.url = endpoint.url
            message.secret = endpoint.secret
            return message
        }
    }

    func finish(_ attempts: [WebhookAttempt], at time: String, on connection: some SQLConnection) throws(StoreError) {
        for attempt in attempts {
            let state = attempt.delivered ? "delivered" : attempt.retryAt == nil ? "failed" : "pending"
            try connection.rows(
                """
                UPDATE \(messages) SET state = $1, attempts = attempts + 1, next_attempt_at = \(self.time("$2")), last_status = $3, last_error = $4,
                  lease_owner = NULL, lease_until = NULL, finished_at = CASE WHEN $1 = 'pending' THEN NULL ELSE \(self.time("$5")) END
                WHERE seq = $6 AND state = 'pending'
                """,
                [.text(state), attempt.retryAt.map(SQLValue.text) ?? .null, attempt.status.map { .integer(Int64($0)) } ?? .null,
                 attempt.error.map(SQLValue.text) ?? .null, .text(time), .integer(attempt.seq)])
        }
    }

    func list(send: String?, endpoint: String?, limit: Int, on connection: some SQLConnection) throws(StoreError) -> [WebhookMessage] {
        try connection.rows(
            "SELECT \(columns) FROM \(messages) WHERE (CAST($1 AS TEXT) IS NULL OR send_id = $1) AND (CAST($2 AS TEXT) IS NULL OR endpoint_id = $2) ORDER BY seq DESC LIMIT $3",
            [send.map(SQLValue.text) ?? .null, endpoint.map(SQLValue.text) ?? .null, .integer(Int64(limit))]
        ).compactMap(Self.message)
    }

    func counts(send: String, on connection: some SQLConnection) throws(StoreError) -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try connection.rows("SELECT state, count(*) FROM \(messages) WHERE send_id = $1 GROUP BY state", [.text(send)]) {
            if let state = row[0].text { counts[state] = row[1].text.flatMap { Int($0) } ?? 0 }
        }
        return counts
    }

    func prune(finishedBefore time: String, on connection: some SQLConnection) throws(StoreError) {
        try connection.rows("DELETE FROM \(messages) WHERE state <> 'pending' AND finished_at < \(self.time("$1"))", [.text(time)])
    }

    /// push.opened: a trigger on the app's `notifications` (when it has `id`, `user_id`, `send_id`
    /// and `opened_at`), so an open recorded by any path (the data API, SQL) is an event. Replaced
    /// after each migration of the app's schema, like realtime's capture triggers.
    func openTrigger(for schema: Schema) -> String {
        let drop = dialect == .postgres
            ? "DROP TRIGGER IF EXISTS push_webhook_opened ON public.notifications;" : "DROP TRIGGER IF EXISTS push_webhook_opened;"
        guard let table = schema.relation("notifications"), !table.isView,
            ["id", "user_id", "send_id", "opened_at"].allSatisfy({ table.column($0) != nil })
        else { return dialect == .postgres && (schema.relation("notifications")?.isView ?? true) ? "" : drop }
        switch dialect {
        case .postgres:
            return drop + """

                CREATE OR REPLACE FUNCTION soar.webhook_opened() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = '' AS $$
                BEGIN
                  IF OLD.opened_at IS NULL AND NEW.opened_at IS NOT NULL AND NEW.send_id IS NOT NULL AND EXISTS (SELECT 1 FROM public.push_webhooks) THEN
                    PERFORM soar.webhook_event('push.opened', NEW.send_id::text, NEW.opened_at::timestamptz,
                      jsonb_build_object('send_id', NEW.send_id, 'user_id', NEW.user_id, 'notification_id', NEW.id));
                  END IF;
                  RETURN NULL;
                END;
                $$;
                CREATE TRIGGER push_webhook_opened AFTER UPDATE OF opened_at ON public.notifications
                  FOR EACH ROW EXECUTE FUNCTION soar.webhook_opened();
                """
        case .sqlite:
            return drop + """

                CREATE TRIGGER push_webhook_opened AFTER UPDATE OF opened_at ON notifications
                WHEN OLD.opened_at IS NULL AND NEW.opened_at IS NOT NULL AND NEW.send_id IS NOT NULL AND EXISTS (SELECT 1 FROM push_webhooks)
                BEGIN
                  INSERT INTO push_webhook_messages (id, endpoint_id, type, send_id, payload)
                  SELECT 'msg_' || lower(hex(randomblob(16))), w.id, 'push.opened', NEW.send_id, json_object(
                      'type', 'push.opened', 'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', NEW.opened_at),
                      'data', json_object('send_id', NEW.send_id, 'user_id', NEW.user_id, 'notification_id', NEW.id))
                  FROM push_webhooks w WHERE w.events IS NULL OR EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = 'push.opened');
                END;
                """
        }
    }

    private static func message(_ row: [SQLValue]) -> WebhookMessage? {
        guard row.count >= 11, let seq = row[0].text.flatMap({ Int64($0) }), let id = row[1].text, let endpoint = row[2].text, let type = row[3].text,
            let payload = row[5].text, let state = row[6].text
        else { return nil }
        return WebhookMessage(
            seq: seq, id: id, endpointID: endpoint, type: type, sendID: row[4].text, payload: payload, state: state,
            attempts: row[7].text.flatMap { Int($0) } ?? 0, nextAttemptAt: row[8].text, lastStatus: row[9].text.flatMap { Int($0) }, lastError: row[10].text)
    }
}
