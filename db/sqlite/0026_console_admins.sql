-- The console's administrators (soar admin add), apart from the app's users, and their sessions,
-- each kept by the hash of its cookie's token.
CREATE TABLE soar_admins (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_sign_in_at TEXT
);
CREATE TABLE soar_admin_sessions (
  token_hash TEXT PRIMARY KEY,
  admin_id TEXT NOT NULL REFERENCES soar_admins (id) ON DELETE CASCADE,
  csrf TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX soar_admin_sessions_admin ON soar_admin_sessions (admin_id);
