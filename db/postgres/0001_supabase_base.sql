-- What every Supabase project already has, so the public-schema files below run unchanged in a
-- Supabase project's SQL editor: the API roles, the auth schema and the helpers policies call.
-- Written to run more than once (roles belong to the whole cluster).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'anon') THEN CREATE ROLE anon NOLOGIN NOINHERIT; END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authenticated') THEN CREATE ROLE authenticated NOLOGIN NOINHERIT; END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'service_role') THEN CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS; END IF;
    -- The login role servers connect as (PostgREST's `authenticator`): it may become each API role.
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authenticator') THEN CREATE ROLE authenticator LOGIN NOINHERIT; END IF;
END
$$;
GRANT anon, authenticated, service_role TO authenticator;
-- The role that runs the migrations (the DATABASE_URL's user) switches roles the same way.
DO $$ BEGIN EXECUTE format('GRANT anon, authenticated, service_role TO %I', current_user); END $$;

CREATE SCHEMA IF NOT EXISTS auth;
GRANT USAGE ON SCHEMA auth TO anon, authenticated, service_role;
GRANT USAGE ON SCHEMA public TO anon, authenticated, service_role;

-- The JWT's claims, as PostgREST sets them for each request (`request.jwt.claims`, and the older
-- `request.jwt.claim.sub` form).
CREATE OR REPLACE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim.sub', true), ''),
        (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
    )::uuid
$$;
CREATE OR REPLACE FUNCTION auth.role() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim.role', true), ''),
        (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
    )::text
$$;
CREATE OR REPLACE FUNCTION auth.jwt() RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
$$;
GRANT EXECUTE ON FUNCTION auth.uid(), auth.role(), auth.jwt() TO anon, authenticated, service_role;

-- GoTrue's users, sessions and refresh tokens (refresh tokens kept as SHA-256 hex).
CREATE TABLE auth.users (
    id uuid PRIMARY KEY,
    aud text NOT NULL DEFAULT 'authenticated',
    role text NOT NULL DEFAULT 'authenticated',
    email text,
    phone text UNIQUE,
    encrypted_password text,
    is_anonymous boolean NOT NULL DEFAULT false,
    app_metadata jsonb NOT NULL DEFAULT '{}',
    user_metadata jsonb NOT NULL DEFAULT '{}',
    email_confirmed_at timestamptz,
    last_sign_in_at timestamptz,
    banned_until timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX users_email_key ON auth.users (lower(email));

CREATE TABLE auth.sessions (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
    aal text NOT NULL DEFAULT 'aal1',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX sessions_user_id ON auth.sessions (user_id);

CREATE TABLE auth.refresh_tokens (
    id bigserial PRIMARY KEY,
    token_hash text NOT NULL UNIQUE,
    session_id uuid NOT NULL REFERENCES auth.sessions (id) ON DELETE CASCADE,
    user_id uuid NOT NULL,
    parent bigint,
    revoked boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX refresh_tokens_session_id ON auth.refresh_tokens (session_id);
