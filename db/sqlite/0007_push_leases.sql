-- Jobs are claimed with a lease: a worker holds its jobs until it renews or finishes them, and a
-- job claimed again after a worker stopped counts as possibly sent twice.
ALTER TABLE push_jobs ADD COLUMN lease_owner TEXT;
ALTER TABLE push_jobs ADD COLUMN lease_until TEXT;
ALTER TABLE push_jobs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE push_sends ADD COLUMN redelivered INTEGER NOT NULL DEFAULT 0;
