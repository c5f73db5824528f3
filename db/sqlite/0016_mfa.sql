-- Second factors (TOTP) and their challenges, as GoTrue keeps them.
CREATE TABLE auth_mfa_factors (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    friendly_name TEXT,
    factor_type TEXT NOT NULL,
    status TEXT NOT NULL,
    secret TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX auth_mfa_factors_user_id ON auth_mfa_factors (user_id);
CREATE TABLE auth_mfa_challenges (
    id TEXT PRIMARY KEY,
    factor_id TEXT NOT NULL REFERENCES auth_mfa_factors (id) ON DELETE CASCADE,
    created_at TEXT NOT NULL
);
