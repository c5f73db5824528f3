-- A device token that moves from one user to another (the one-owner rule): kept a day, so that a
-- move can be rate-limited and a caller cannot choose what a device just taken over is sent.
CREATE SCHEMA IF NOT EXISTS soar;
CREATE TABLE soar.device_moves (
    token text NOT NULL,
    from_user uuid NOT NULL,
    to_user uuid NOT NULL,
    moved_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX device_moves_to_user ON soar.device_moves (to_user, moved_at);
CREATE INDEX device_moves_moved_at ON soar.device_moves (moved_at);
REVOKE ALL ON soar.device_moves FROM PUBLIC;
