-- Email sign-in and recovery: the codes mailed (hashed, one per user and kind), PKCE's flow states
-- (an auth code to exchange with its verifier), and the development mailbox (mail when no SMTP).
CREATE TABLE auth.one_time_tokens (
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    token_type text NOT NULL,
    token_hash text NOT NULL,
    code_challenge text,
    code_challenge_method text,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, token_type)
);
CREATE INDEX one_time_tokens_hash_idx ON auth.one_time_tokens (token_hash);
CREATE TABLE auth.flow_state (
    auth_code text PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    code_challenge text NOT NULL,
    code_challenge_method text NOT NULL,
    authentication_method text NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE TABLE auth.mailbox (
    id bigserial PRIMARY KEY,
    recipient text NOT NULL,
    subject text NOT NULL,
    body text NOT NULL,
    created_at timestamptz NOT NULL
);
