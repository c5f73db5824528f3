-- Sends to go out later (send-push's `send_at`): each runs once, as the send of the same id,
-- so a process that stopped half way runs it again without sending twice.
CREATE TABLE push_schedules (
    id TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    due_at TEXT NOT NULL,
    -- scheduled, sending (claimed by a process at updated_at), sent, cancelled
    status TEXT NOT NULL DEFAULT 'scheduled',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX push_schedules_due ON push_schedules (status, due_at);
