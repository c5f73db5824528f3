-- Supabase's default privileges: tables, sequences and functions the app's migrations create in
-- public are granted to the API roles; row-level security policies then decide which rows each
-- user reaches, and a migration's REVOKE takes away what a role may never do.
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
