-- Second factors (TOTP) and their challenges, as GoTrue keeps them.
CREATE TABLE auth.mfa_factors (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    friendly_name text,
    factor_type text NOT NULL,
    status text NOT NULL,
    secret text NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX mfa_factors_user_id_idx ON auth.mfa_factors (user_id);
CREATE TABLE auth.mfa_challenges (
    id uuid PRIMARY KEY,
    factor_id uuid NOT NULL REFERENCES auth.mfa_factors (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL
);
