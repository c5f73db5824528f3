-- Auth: GoTrue's users, sessions and refresh tokens. Times are ISO 8601 UTC text; ids are uuid text.
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

CREATE TABLE auth_sessions (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    aal TEXT NOT NULL DEFAULT 'aal1',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX auth_sessions_user_id ON auth_sessions (user_id);

-- Refresh tokens are kept as SHA-256 hex: a copy of the file holds none that work.
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
CREATE INDEX auth_refresh_tokens_session_id ON auth_refresh_tokens (session_id);
