-- Push: which APNs environment a device's token works in (NULL: not known yet) and the app it
-- belongs to. The server checks `token` (hex) and `environment` before writing.
ALTER TABLE device_tokens ADD COLUMN environment TEXT CHECK (environment IN ('sandbox', 'production'));
ALTER TABLE device_tokens ADD COLUMN bundle_id TEXT;
