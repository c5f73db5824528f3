-- One process owns a SQLite file, so its workers' leases on jobs live in that process's memory,
-- not on each job's row (which cost a write of every job per claim). What must outlive the
-- process is which jobs were claimed, and so may have gone out: one row per claim, its range of
-- job ids. At the next start, each pending job in a recorded range counts one more attempt.
CREATE TABLE push_claims (
    first_id INTEGER NOT NULL,
    last_id INTEGER NOT NULL
);
