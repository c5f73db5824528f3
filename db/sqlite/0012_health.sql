-- /health writes this one row (at most once a second): a disk that cannot take a write fails it.
CREATE TABLE soar_health (id INTEGER PRIMARY KEY CHECK (id = 1), checked_at TEXT NOT NULL);
INSERT INTO soar_health (id, checked_at) VALUES (1, '');
