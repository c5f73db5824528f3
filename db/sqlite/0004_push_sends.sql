-- Durable sends: a send-push request and one job per device, each ending with one outcome.
-- A job stays 'pending' until its outcome is committed, so a process killed mid-send finishes
-- the rest after a restart, with the same apns-id. A send's counts are kept up to date in the
-- transactions that record outcomes, so reading them costs one row, however large the send.
CREATE TABLE push_sends (
    id TEXT PRIMARY KEY,
    request TEXT NOT NULL,
    total INTEGER NOT NULL,
    -- Jobs stored so far: a send is stored in chunks, delivered while the rest is stored.
    stored INTEGER NOT NULL DEFAULT 0,
    delivered INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    removed INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    finished_at TEXT
);

CREATE TABLE push_send_reasons (
    send_id TEXT NOT NULL REFERENCES push_sends (id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (send_id, reason)
) WITHOUT ROWID;

-- Jobs are never deleted one by one, so plain rowids only grow: claimed in id order.
CREATE TABLE push_jobs (
    id INTEGER PRIMARY KEY,
    send_id TEXT NOT NULL REFERENCES push_sends (id) ON DELETE CASCADE,
    user_id TEXT,
    token TEXT NOT NULL,
    environment TEXT,
    bundle_id TEXT,
    apns_id TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    reason TEXT,
    removed INTEGER NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL
);
CREATE INDEX push_jobs_pending ON push_jobs (id) WHERE state = 'pending';
CREATE INDEX push_jobs_send_id ON push_jobs (send_id);
