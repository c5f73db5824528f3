-- Named notifications with variables and per-locale variants (PUT /functions/v1/templates/<name>),
-- and the variant each job of a templated send carries (its device's locale, as matched).
CREATE TABLE push_templates (
  name TEXT PRIMARY KEY,
  definition TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
ALTER TABLE push_jobs ADD COLUMN variant TEXT;
