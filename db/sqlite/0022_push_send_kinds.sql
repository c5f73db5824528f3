-- A send's kind, for per-user frequency caps by kind (SOAR_PUSH_FREQUENCY_CAPS).
ALTER TABLE push_sends ADD COLUMN kind TEXT;
CREATE INDEX push_sends_kind ON push_sends (kind, created_at);
