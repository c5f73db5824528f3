-- Each change's rowid beside its primary key: realtime reads the changed rows by rowid, where the
-- rows written last sit together at the end of the table, instead of through the key's index,
-- whose pages for random keys are spread out and were just written by another connection.
ALTER TABLE soar_changes ADD COLUMN rid INTEGER;
