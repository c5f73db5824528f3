-- An email change waiting for its confirmations (GoTrue's email_change columns), a mail's HTML
-- part (from a template file).
ALTER TABLE auth_users ADD COLUMN email_change TEXT;
ALTER TABLE auth_users ADD COLUMN email_change_sent_at TEXT;
ALTER TABLE auth_mailbox ADD COLUMN html TEXT;
