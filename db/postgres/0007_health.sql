-- /health writes this one row (at most once a second): a database that cannot take a write fails it.
-- In Soar's own schema, which the data API does not serve.
CREATE SCHEMA IF NOT EXISTS soar;
CREATE TABLE soar.health (id integer PRIMARY KEY CHECK (id = 1), checked_at timestamptz);
INSERT INTO soar.health (id, checked_at) VALUES (1, NULL);
REVOKE ALL ON soar.health FROM PUBLIC;
