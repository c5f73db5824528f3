-- Whether a send was stored whole: a scheduled send a stopped process stored part of is resumed
-- after the last user stored, instead of being taken for sent. Earlier sends count as whole.
ALTER TABLE push_sends ADD COLUMN stored_all INTEGER NOT NULL DEFAULT 1;
