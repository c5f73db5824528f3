-- Realtime Authorization, as on Supabase: the app's policies on realtime.messages decide who may
-- join a private channel (SELECT) and send on it (INSERT). Soar evaluates them for a probe row
-- of the channel's topic; this table holds no rows, it lets the app's policies be prepared.
CREATE TABLE "realtime.messages" (
    id TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    extension TEXT NOT NULL,
    event TEXT,
    payload TEXT,
    private INTEGER DEFAULT 1,
    inserted_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
