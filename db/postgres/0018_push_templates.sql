-- Named notifications with variables and per-locale variants (PUT /functions/v1/templates/<name>),
-- and the variant each job of a templated send carries (its device's locale, as matched).
-- The server's own table: RLS on and no policy, so clients reach nothing.
create table public.push_templates (
  name text primary key,
  definition text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
alter table public.push_templates enable row level security;
grant all on public.push_templates to service_role;
alter table public.push_jobs add column variant text;
