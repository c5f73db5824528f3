-- The inbox itself (`notifications`) is a table of the app's starter migration now.
-- Each job carries its user's inbox row (the payload's soar_id) and, for "badge": "unread", the badge.
ALTER TABLE push_jobs ADD COLUMN notification_id TEXT;
ALTER TABLE push_jobs ADD COLUMN badge INTEGER;
