-- What every Supabase project already has, so the public-schema files below run unchanged in a
-- Supabase project's SQL editor: the API roles, the auth schema and the helpers policies call.
-- Written to run more than once, and in several databases at the same time: roles belong to the
-- whole cluster, so one created meanwhile by another database's migration is fine.
DO $$
DECLARE
    wanted text[][] := ARRAY[
        ['anon', 'NOLOGIN NOINHERIT'], ['authenticated', 'NOLOGIN NOINHERIT'], ['service_role', 'NOLOGIN NOINHERIT BYPASSRLS'],
        -- The login role servers may connect as (PostgREST's `authenticator`): it may become each API role.
        ['authenticator', 'LOGIN NOINHERIT']];
BEGIN
    FOR i IN 1 .. array_length(wanted, 1) LOOP
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = wanted[i][1]) THEN
            BEGIN
                EXECUTE format('CREATE ROLE %I %s', wanted[i][1], wanted[i][2]);
            EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
            END;
        END IF;
    END LOOP;
END
$$;
-- The role that runs the migrations (the DATABASE_URL's user) switches roles the same way.
DO $$
BEGIN
    GRANT anon, authenticated, service_role TO authenticator;
    EXECUTE format('GRANT anon, authenticated, service_role TO %I', current_user);
EXCEPTION WHEN unique_violation THEN NULL;
END
$$;

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
