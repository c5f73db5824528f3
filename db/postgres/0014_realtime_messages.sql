-- Realtime Authorization, as on Supabase: the app's policies on realtime.messages decide who may
-- join a private channel (SELECT: receive its broadcasts and presence) and who may send on it
-- (INSERT), realtime.topic() naming the channel's topic while they are checked. Soar keeps no
-- rows here: each check writes a probe row and rolls it back.
CREATE SCHEMA IF NOT EXISTS realtime;
CREATE TABLE realtime.messages (
    id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
    topic text NOT NULL,
    extension text NOT NULL,
    event text,
    payload jsonb,
    private boolean DEFAULT true,
    inserted_at timestamp NOT NULL DEFAULT now(),
    updated_at timestamp NOT NULL DEFAULT now()
);
ALTER TABLE realtime.messages ENABLE ROW LEVEL SECURITY;
CREATE FUNCTION realtime.topic() RETURNS text LANGUAGE sql STABLE
    AS $$ SELECT nullif(current_setting('realtime.topic', true), '') $$;
GRANT USAGE ON SCHEMA realtime TO anon, authenticated, service_role;
GRANT SELECT, INSERT ON realtime.messages TO anon, authenticated;
GRANT ALL ON realtime.messages TO service_role;
GRANT EXECUTE ON FUNCTION realtime.topic() TO anon, authenticated, service_role;
