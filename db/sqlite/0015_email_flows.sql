-- Email sign-in and recovery: the codes mailed (hashed, one per user and kind), PKCE's flow states
-- (an auth code to exchange with its verifier), and the development mailbox (mail when no SMTP).
CREATE TABLE auth_one_time_tokens (
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    token_type TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    code_challenge TEXT,
    code_challenge_method TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (user_id, token_type)
);
CREATE INDEX auth_one_time_tokens_hash ON auth_one_time_tokens (token_hash);
CREATE TABLE auth_flow_state (
    auth_code TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    code_challenge TEXT NOT NULL,
    code_challenge_method TEXT NOT NULL,
    authentication_method TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE auth_mailbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient TEXT NOT NULL,
    subject TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at TEXT NOT NULL
);
