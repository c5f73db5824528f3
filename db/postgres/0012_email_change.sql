-- An email change waiting for its confirmations (GoTrue's email_change columns), a mail's HTML
-- part (from a template file).
ALTER TABLE auth.users ADD COLUMN email_change text;
ALTER TABLE auth.users ADD COLUMN email_change_sent_at timestamptz;
ALTER TABLE auth.mailbox ADD COLUMN html text;
