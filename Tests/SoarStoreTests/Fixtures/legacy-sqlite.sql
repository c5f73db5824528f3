-- A database as Soar made it before the app's migrations (its own migrations 0001-0011 of that
-- time, the seed app's tables among them), with rows; device tokens an earlier version kept in
-- another case. Written with Python's sqlite3 iterdump.
BEGIN TRANSACTION;
CREATE TABLE auth_refresh_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token_hash TEXT NOT NULL UNIQUE,
    session_id TEXT NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL,
    parent INTEGER,
    revoked INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE auth_sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    aal TEXT NOT NULL DEFAULT 'aal1',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE auth_users (
    id TEXT PRIMARY KEY,
    aud TEXT NOT NULL DEFAULT 'authenticated',
    role TEXT NOT NULL DEFAULT 'authenticated',
    email TEXT COLLATE NOCASE UNIQUE,
    phone TEXT UNIQUE,
    encrypted_password TEXT,
    is_anonymous INTEGER NOT NULL DEFAULT 0,
    app_metadata TEXT NOT NULL DEFAULT '{}',
    user_metadata TEXT NOT NULL DEFAULT '{}',
    email_confirmed_at TEXT,
    last_sign_in_at TEXT,
    banned_until TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
INSERT INTO "auth_users" VALUES('a1a1a1a1-0000-4000-8000-000000000001','authenticated','authenticated','alice@example.com',NULL,NULL,0,'{}','{}',NULL,NULL,NULL,'2026-11-01 00:00:00+00','2026-11-01 00:00:00+00');
INSERT INTO "auth_users" VALUES('b2b2b2b2-0000-4000-8000-000000000002','authenticated','authenticated','bob@example.com',NULL,NULL,0,'{}','{}',NULL,NULL,NULL,'2026-11-01 00:00:00+00','2026-11-01 00:00:00+00');
CREATE TABLE device_tokens (
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    token TEXT NOT NULL,
    platform TEXT NOT NULL DEFAULT 'ios',
    updated_at TEXT NOT NULL,
    created_at TEXT NOT NULL, environment TEXT CHECK (environment IN ('sandbox', 'production')), bundle_id TEXT,
    PRIMARY KEY (user_id, token)
) WITHOUT ROWID;
INSERT INTO "device_tokens" VALUES('a1a1a1a1-0000-4000-8000-000000000001','ABCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCDCD','ios','2026-01-01 00:00:00+00','2026-01-01 00:00:00+00','sandbox','com.example.app');
INSERT INTO "device_tokens" VALUES('a1a1a1a1-0000-4000-8000-000000000001','abcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd','ios','2026-01-02 00:00:00+00','2026-01-02 00:00:00+00','sandbox','com.example.app');
INSERT INTO "device_tokens" VALUES('a1a1a1a1-0000-4000-8000-000000000001','ef01010101010101010101010101010101010101010101010101010101010101','ios','2026-01-01 00:00:00+00','2026-01-01 00:00:00+00','sandbox','com.example.app');
INSERT INTO "device_tokens" VALUES('b2b2b2b2-0000-4000-8000-000000000002','EF01010101010101010101010101010101010101010101010101010101010101','ios','2026-01-03 00:00:00+00','2026-01-03 00:00:00+00','sandbox','com.example.app');
CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    title TEXT,
    body TEXT,
    payload TEXT NOT NULL DEFAULT '{}',
    send_id TEXT,
    created_at TEXT NOT NULL,
    read_at TEXT,
    opened_at TEXT
);
INSERT INTO "notifications" VALUES('44444444-0000-4000-8000-000000000001','a1a1a1a1-0000-4000-8000-000000000001','Hi','There','{"a":1}',NULL,'2026-11-02 10:00:00+00','2026-11-02 10:05:00+00',NULL);
CREATE TABLE payments (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    amount_cents INTEGER NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL
);
INSERT INTO "payments" VALUES('33333333-0000-4000-8000-000000000001','b2b2b2b2-0000-4000-8000-000000000002',999,'usd','paid','2026-11-02 10:00:00+00');
CREATE TABLE profiles (
    id TEXT PRIMARY KEY REFERENCES auth_users (id) ON DELETE CASCADE,
    full_name TEXT,
    bio TEXT,
    phone TEXT,
    location TEXT,
    avatar_url TEXT,
    created_at TEXT,
    updated_at TEXT
);
INSERT INTO "profiles" VALUES('a1a1a1a1-0000-4000-8000-000000000001','Alice','hi',NULL,'Oslo',NULL,'2026-11-02 10:00:00+00',NULL);
CREATE TABLE push_claims (
    first_id INTEGER NOT NULL,
    last_id INTEGER NOT NULL
);
CREATE TABLE "push_jobs" (
    id INTEGER PRIMARY KEY,
    send_id TEXT NOT NULL REFERENCES push_sends (id) ON DELETE CASCADE,
    user_id TEXT,
    token TEXT NOT NULL,
    environment TEXT,
    bundle_id TEXT,
    apns_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    notification_id TEXT,
    badge INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE push_outcomes (
    job_id INTEGER PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('delivered', 'failed')),
    reason TEXT,
    -- The environment the job was last sent to.
    environment TEXT,
    removed INTEGER NOT NULL DEFAULT 0,
    finished_at TEXT NOT NULL
);
CREATE TABLE push_send_reasons (
    send_id TEXT NOT NULL REFERENCES push_sends (id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (send_id, reason)
) WITHOUT ROWID;
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
, redelivered INTEGER NOT NULL DEFAULT 0, first_job_id INTEGER);
CREATE TABLE soar_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL);
INSERT INTO "soar_migrations" VALUES('0001_auth.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0002_app.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0003_push.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0004_push_sends.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0005_notifications.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0006_device_tokens_one_owner.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0007_push_leases.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0008_device_tokens_token_index.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0009_push_claims.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0010_device_tokens_lowercase.sql','2026-11-01 00:00:00+00');
INSERT INTO "soar_migrations" VALUES('0011_push_outcomes.sql','2026-11-01 00:00:00+00');
CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    product_id TEXT NOT NULL,
    status TEXT NOT NULL,
    current_period_end TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
INSERT INTO "subscriptions" VALUES('22222222-0000-4000-8000-000000000001','b2b2b2b2-0000-4000-8000-000000000002','pro','active',NULL,'2026-11-02 10:00:00+00','2026-11-02 10:00:00+00');
CREATE TABLE todos (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    completed INTEGER NOT NULL DEFAULT 0,
    sort_order INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
INSERT INTO "todos" VALUES('11111111-0000-4000-8000-000000000001','a1a1a1a1-0000-4000-8000-000000000001','buy milk',1,3,'2026-11-02 10:00:00+00','2026-11-02 11:00:00+00');
CREATE INDEX auth_sessions_user_id ON auth_sessions (user_id);
CREATE INDEX auth_refresh_tokens_session_id ON auth_refresh_tokens (session_id);
CREATE INDEX todos_user_id_sort_order ON todos (user_id, sort_order);
CREATE INDEX subscriptions_user_id ON subscriptions (user_id);
CREATE INDEX payments_user_id ON payments (user_id);
CREATE INDEX notifications_user_id_created_at ON notifications (user_id, created_at);
CREATE INDEX notifications_opened_send_id ON notifications (send_id) WHERE opened_at IS NOT NULL;
CREATE TRIGGER device_tokens_one_owner_update AFTER UPDATE OF token, user_id ON device_tokens
BEGIN
    DELETE FROM device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id;
END;
CREATE INDEX device_tokens_token ON device_tokens (token);
DELETE FROM "sqlite_sequence";
COMMIT;
