-- The server-side inbox: every notification sent to a user, newest first, capped per user by the
-- server. Clients read their own rows, mark them read or opened, and delete them.
CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES auth_users (id) ON DELETE CASCADE,
    title TEXT,
    body TEXT,
    payload TEXT NOT NULL DEFAULT '{}',
    send_id TEXT,
    created_at TEXT NOT NULL,
    read_at TEXT,
    opened_at TEXT
);
CREATE INDEX notifications_user_id_created_at ON notifications (user_id, created_at);
-- Opens by send, for a send's statistics: only opened rows are indexed.
CREATE INDEX notifications_opened_send_id ON notifications (send_id) WHERE opened_at IS NOT NULL;

-- Each job carries its user's inbox row (the payload's soar_id) and, for "badge": "unread", the badge.
ALTER TABLE push_jobs ADD COLUMN notification_id TEXT;
ALTER TABLE push_jobs ADD COLUMN badge INTEGER;
