-- The console's administrators (soar admin add), apart from the app's users, and their sessions,
-- each kept by the hash of its cookie's token. In Soar's own schema: no client role reaches it.
create schema if not exists soar;
create table soar.admins (
  id uuid primary key,
  email text not null unique,
  password_hash text not null,
  created_at timestamptz not null,
  last_sign_in_at timestamptz
);
create table soar.admin_sessions (
  token_hash text primary key,
  admin_id uuid not null references soar.admins (id) on delete cascade,
  csrf text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null
);
create index admin_sessions_admin on soar.admin_sessions (admin_id);
