-- Realtime's change log: one row per row changed in an app table (its primary key), written by
-- soar.capture_change(), which Soar puts on each table after the app's migrations; every process
-- reads it (so a change made through one reaches subscribers on all), and it is pruned after a
-- minute. The function runs as its owner: the roles that write rows cannot touch the log. Which
-- tables: those the app's migrations add to the supabase_realtime publication, as on Supabase.
CREATE SCHEMA IF NOT EXISTS soar;
CREATE TABLE soar.changes (
    id bigserial PRIMARY KEY,
    tbl text NOT NULL,
    type text NOT NULL,
    pk jsonb NOT NULL,
    at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX changes_at_idx ON soar.changes (at);
CREATE FUNCTION soar.capture_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    source jsonb := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
    key jsonb := '{}';
    name text;
BEGIN
    FOREACH name IN ARRAY TG_ARGV LOOP
        key := key || jsonb_build_object(name, source -> name);
    END LOOP;
    INSERT INTO soar.changes (tbl, type, pk) VALUES (TG_TABLE_NAME, TG_OP, key);
    RETURN NULL;
END
$$;
DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = 'supabase_realtime') THEN
        CREATE PUBLICATION supabase_realtime;
    END IF;
END $$;
