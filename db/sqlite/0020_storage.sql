-- Storage, as on Supabase: buckets, and objects as rows whose access the app's policies on
-- "storage.objects" decide (written in its migrations as `create policy ... on storage.objects`).
-- The bytes are files under the storage directory, one per version; a row names its version.
-- allowed_mime_types holds a Postgres array literal ({image/png,image/*}), as Postgres prints it.
CREATE TABLE "storage.buckets" (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    owner TEXT,
    owner_id TEXT,
    public INTEGER NOT NULL DEFAULT 0,
    file_size_limit INTEGER,
    allowed_mime_types TEXT,
    created_at TEXT NOT NULL DEFAULT (now()),
    updated_at TEXT NOT NULL DEFAULT (now())
);
CREATE UNIQUE INDEX "storage.bname" ON "storage.buckets" (name);
CREATE TABLE "storage.objects" (
    id TEXT PRIMARY KEY DEFAULT (gen_random_uuid()),
    bucket_id TEXT NOT NULL REFERENCES "storage.buckets" (id),
    name TEXT NOT NULL,
    owner TEXT,
    owner_id TEXT,
    version TEXT,
    metadata TEXT,
    user_metadata TEXT,
    created_at TEXT NOT NULL DEFAULT (now()),
    updated_at TEXT NOT NULL DEFAULT (now()),
    last_accessed_at TEXT NOT NULL DEFAULT (now())
);
CREATE UNIQUE INDEX "storage.bucketid_objname" ON "storage.objects" (bucket_id, name);
