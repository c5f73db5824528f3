-- A job's outcome is a row of its own, appended as outcomes come in, instead of an update of the
-- job row and of an index of pending jobs (three times the work per device). A job is pending
-- while it has no outcome. Claims look for pending jobs from the first job of the sends not
-- finished (push_sends.first_job_id), so the index of pending jobs and the job's own outcome
-- columns go. So does the index of jobs by send (a tenth of the cost of storing a send): sends are
-- never deleted, and a chunk of a send finds its own jobs by their ids.
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

ALTER TABLE push_sends ADD COLUMN first_job_id INTEGER;
UPDATE push_sends SET first_job_id = (SELECT min(id) FROM push_jobs WHERE send_id = push_sends.id);
-- A send with a pending job is not finished (a send's total could be passed while it was stored).
UPDATE push_sends SET finished_at = NULL WHERE id IN (SELECT send_id FROM push_jobs WHERE state = 'pending');

-- The jobs rebuilt once without the outcome columns and the leases an earlier version kept on
-- them (claims are in push_claims), and without their indexes.
CREATE TABLE push_jobs_rebuilt (
    id INTEGER PRIMARY KEY,
    send_id TEXT NOT NULL REFERENCES push_sends (id) ON DELETE CASCADE,
    user_id TEXT,
    token TEXT NOT NULL,
    environment TEXT,
    bundle_id TEXT,
    apns_id TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    notification_id TEXT,
    badge INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0
);
INSERT INTO push_jobs_rebuilt (id, send_id, user_id, token, environment, bundle_id, apns_id, updated_at, notification_id, badge, attempts)
    SELECT id, send_id, user_id, token, environment, bundle_id, apns_id, updated_at, notification_id, badge, attempts FROM push_jobs;
DROP TABLE push_jobs;
ALTER TABLE push_jobs_rebuilt RENAME TO push_jobs;
