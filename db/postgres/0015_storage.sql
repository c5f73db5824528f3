-- Storage, as on Supabase: buckets, and objects as rows whose access the app's policies on
-- storage.objects decide. The bytes are files under the storage directory, one per version; a
-- row names its version. Row security is on with no policy: nothing is reachable until the app's
-- migrations say who may (service_role bypasses it).
CREATE SCHEMA IF NOT EXISTS storage;
CREATE TABLE storage.buckets (
    id text PRIMARY KEY,
    name text NOT NULL,
    owner uuid,
    owner_id text,
    public boolean NOT NULL DEFAULT false,
    file_size_limit bigint,
    allowed_mime_types text[],
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX bname ON storage.buckets (name);
CREATE TABLE storage.objects (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    bucket_id text NOT NULL REFERENCES storage.buckets (id),
    name text NOT NULL,
    owner uuid,
    owner_id text,
    version text,
    metadata jsonb,
    user_metadata jsonb,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    last_accessed_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX bucketid_objname ON storage.objects (bucket_id, name);
ALTER TABLE storage.buckets ENABLE ROW LEVEL SECURITY;
ALTER TABLE storage.objects ENABLE ROW LEVEL SECURITY;

-- The folders of a name (`a/b/c.png`: {a,b}), its last part (`c.png`) and extension (`png`; the
-- whole last part when it has no dot, as Supabase's).
CREATE FUNCTION storage.foldername(name text) RETURNS text[] LANGUAGE sql IMMUTABLE
    AS $$ SELECT (string_to_array(name, '/'))[1:greatest(array_length(string_to_array(name, '/'), 1) - 1, 0)] $$;
CREATE FUNCTION storage.filename(name text) RETURNS text LANGUAGE sql IMMUTABLE
    AS $$ SELECT (string_to_array(name, '/'))[array_length(string_to_array(name, '/'), 1)] $$;
CREATE FUNCTION storage.extension(name text) RETURNS text LANGUAGE sql IMMUTABLE
    AS $$ SELECT reverse(split_part(reverse(storage.filename(name)), '.', 1)) $$;

GRANT USAGE ON SCHEMA storage TO anon, authenticated, service_role;
GRANT ALL ON storage.buckets, storage.objects TO anon, authenticated, service_role;
GRANT EXECUTE ON FUNCTION storage.foldername(text), storage.filename(text), storage.extension(text) TO anon, authenticated, service_role;
