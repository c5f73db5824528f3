-- A device token that moves from one user to another (the one-owner rule): kept a day, so that a
-- move can be rate-limited and a caller cannot choose what a device just taken over is sent.
CREATE TABLE soar_device_moves (
    token TEXT NOT NULL,
    from_user TEXT NOT NULL,
    to_user TEXT NOT NULL,
    moved_at TEXT NOT NULL
);
CREATE INDEX soar_device_moves_to_user ON soar_device_moves (to_user, moved_at);
CREATE INDEX soar_device_moves_moved_at ON soar_device_moves (moved_at);
