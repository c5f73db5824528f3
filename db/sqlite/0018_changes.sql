-- Realtime's change log: one row per row changed in an app table (its primary key), written by the
-- capture triggers Soar puts on each table after the app's migrations, read by realtime, pruned
-- after a minute.
CREATE TABLE soar_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl TEXT NOT NULL,
    type TEXT NOT NULL,
    pk TEXT NOT NULL,
    at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX soar_changes_at ON soar_changes (at);
