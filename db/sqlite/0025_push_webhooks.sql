-- Webhooks (POST /functions/v1/webhooks): the endpoints, and one message per event per endpoint,
-- written in the transaction that made the event (an outcome here, an open or a send's
-- suppressions elsewhere), then delivered at least once, signed as Standard Webhooks says, and
-- retried with back-off for about a day.
CREATE TABLE push_webhooks (
  id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  -- `whsec_` and the base64 of the signing key.
  secret TEXT NOT NULL,
  -- A JSON array of the event types it gets; NULL: every type.
  events TEXT,
  created_at TEXT NOT NULL
);
CREATE TABLE push_webhook_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  -- The `webhook-id`: the same on every attempt, for the receiver to drop duplicates.
  id TEXT NOT NULL UNIQUE,
  endpoint_id TEXT NOT NULL REFERENCES push_webhooks (id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  send_id TEXT,
  -- The JSON body as sent.
  payload TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  -- NULL: due now.
  next_attempt_at TEXT,
  lease_owner TEXT,
  lease_until TEXT,
  last_status INTEGER,
  last_error TEXT,
  finished_at TEXT
);
CREATE INDEX push_webhook_messages_pending ON push_webhook_messages (seq) WHERE state = 'pending';
CREATE INDEX push_webhook_messages_send ON push_webhook_messages (send_id) WHERE send_id IS NOT NULL;
CREATE INDEX push_webhook_messages_endpoint ON push_webhook_messages (endpoint_id, seq);

-- Each outcome: push.sent or push.failed, and push.token_removed when Apple said the token is dead.
CREATE TRIGGER push_webhook_outcome AFTER INSERT ON push_outcomes
WHEN EXISTS (SELECT 1 FROM push_webhooks)
BEGIN
  INSERT INTO push_webhook_messages (id, endpoint_id, type, send_id, payload)
  SELECT 'msg_' || lower(hex(randomblob(16))), w.id, e.type, j.send_id, json_object(
      'type', e.type, 'timestamp', strftime('%Y-%m-%dT%H:%M:%fZ', NEW.finished_at),
      'data', json_object('send_id', j.send_id, 'kind', s.kind, 'user_id', j.user_id, 'device_token', j.token, 'apns_id', j.apns_id,
        'environment', coalesce(NEW.environment, j.environment), 'reason', NEW.reason, 'notification_id', j.notification_id))
  FROM push_jobs j
  JOIN push_sends s ON s.id = j.send_id
  JOIN (SELECT CASE NEW.state WHEN 'delivered' THEN 'push.sent' ELSE 'push.failed' END AS type
        UNION ALL SELECT 'push.token_removed' WHERE NEW.removed) e
  JOIN push_webhooks w ON w.events IS NULL OR EXISTS (SELECT 1 FROM json_each(w.events) WHERE value = e.type)
  WHERE j.id = NEW.job_id;
END;
