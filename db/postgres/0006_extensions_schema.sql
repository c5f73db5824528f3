-- Supabase's schema for extensions: `create extension ... schema extensions` in an app's migration
-- finds it, as in a Supabase project.
create schema if not exists extensions;
grant usage on schema extensions to anon, authenticated, service_role;
