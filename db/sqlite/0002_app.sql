-- The app's tables (seed 002). Ownership, which Postgres enforces with RLS policies, is the
-- server's on SQLite; the columns and keys match the Postgres migrations.
CREATE TABLE device_tokens (
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    token TEXT NOT NULL,
    platform TEXT NOT NULL DEFAULT 'ios',
    updated_at TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (user_id, token)
) WITHOUT ROWID;

CREATE TABLE todos (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    completed INTEGER NOT NULL DEFAULT 0,
    sort_order INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX todos_user_id_sort_order ON todos (user_id, sort_order);

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

CREATE TABLE subscriptions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    product_id TEXT NOT NULL,
    status TEXT NOT NULL,
    current_period_end TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX subscriptions_user_id ON subscriptions (user_id);

CREATE TABLE payments (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    amount_cents INTEGER NOT NULL,
    currency TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX payments_user_id ON payments (user_id);
