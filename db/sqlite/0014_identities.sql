-- GoTrue's identities: a user's accounts with providers (Sign in with Apple's `sub`, say).
CREATE TABLE auth_identities (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    provider TEXT NOT NULL,
    provider_id TEXT NOT NULL,
    identity_data TEXT NOT NULL DEFAULT '{}',
    email TEXT,
    last_sign_in_at TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (provider, provider_id)
);
CREATE INDEX auth_identities_user_id ON auth_identities (user_id);
