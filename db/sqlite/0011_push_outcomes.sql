-- A job's outcome is a row of its own, appended as outcomes come in, instead of an update of the
-- job row and of an index of pending jobs (three times the work per device). A job is pending
-- while it has no outcome. Claims look for pending jobs from a point the store keeps in memory,
-- so the index of pending jobs, and the job's own outcome columns, go. So does the index of jobs
-- by send (a tenth of the cost of storing a send): sends are never deleted, and a chunk of a
-- send finds its own jobs by their ids.
CREATE TABLE push_outcomes (
    job_id INTEGER PRIMARY KEY,
    state TEXT NOT NULL CHECK (state IN ('delivered', 'failed')),
    reason TEXT,
    -- The environment the job was last sent to.
    environment TEXT,
    removed INTEGER NOT NULL DEFAULT 0,
    finished_at TEXT NOT NULL
);
INSERT INTO push_outcomes (job_id, state, reason, environment, removed, finished_at)
    SELECT id, state, reason, environment, removed, updated_at FROM push_jobs WHERE state <> 'pending';
DROP INDEX push_jobs_pending;
DROP INDEX push_jobs_send_id;
ALTER TABLE push_jobs DROP COLUMN state;
ALTER TABLE push_jobs DROP COLUMN reason;
ALTER TABLE push_jobs DROP COLUMN removed;
-- Leases an earlier version kept on the job rows themselves (claims are in push_claims now).
ALTER TABLE push_jobs DROP COLUMN lease_owner;
ALTER TABLE push_jobs DROP COLUMN lease_until;
