-- The seed app's tables (seed 002), with row-level security as Supabase's documentation writes it:
-- each signed-in user reaches only their own rows (`auth.uid() = user_id`, `= id` for profiles).
-- This file is the app's: edit it before its first `soar migrate`, and add new files after it
-- (`soar migration new NAME`). It runs unchanged in a Supabase project's SQL editor.
--
-- As in a Supabase project, new tables are granted to anon, authenticated and service_role by
-- default; policies decide which rows each user reaches, and the revokes below take away what
-- clients may never do (service_role bypasses policies, as on Supabase).

-- Push: one row per (user, device token); the server sends to a user's own devices.
create table public.device_tokens (
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  token text not null check (token ~ '^([0-9a-fA-F][0-9a-fA-F])+$' and length(token) between 16 and 512),
  platform text not null default 'ios',
  environment text check (environment in ('sandbox', 'production')),
  bundle_id text check (bundle_id ~ '^[A-Za-z0-9.-]+$' and length(bundle_id) <= 155),
  updated_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  primary key (user_id, token)
);
create index device_tokens_token on public.device_tokens (token);
alter table public.device_tokens enable row level security;
create policy "Users can read their own device tokens" on public.device_tokens
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users can register their own device tokens" on public.device_tokens
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "Users can update their own device tokens" on public.device_tokens
  for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "Users can delete their own device tokens" on public.device_tokens
  for delete to authenticated using ((select auth.uid()) = user_id);

create table public.todos (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  title text not null,
  completed boolean not null default false,
  sort_order bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index todos_user_id_sort_order on public.todos (user_id, sort_order);
alter table public.todos enable row level security;
create policy "Users can read their own todos" on public.todos
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users can create their own todos" on public.todos
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "Users can update their own todos" on public.todos
  for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "Users can delete their own todos" on public.todos
  for delete to authenticated using ((select auth.uid()) = user_id);

create table public.profiles (
  id uuid primary key default auth.uid() references auth.users (id) on delete cascade,
  full_name text,
  bio text,
  phone text,
  location text,
  avatar_url text,
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);
alter table public.profiles enable row level security;
create policy "Users can read their own profile" on public.profiles
  for select to authenticated using ((select auth.uid()) = id);
create policy "Users can create their own profile" on public.profiles
  for insert to authenticated with check ((select auth.uid()) = id);
create policy "Users can update their own profile" on public.profiles
  for update to authenticated using ((select auth.uid()) = id) with check ((select auth.uid()) = id);
create policy "Users can delete their own profile" on public.profiles
  for delete to authenticated using ((select auth.uid()) = id);

-- Written by the server (a payment provider's webhook, with the service role); clients read.
create table public.subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  product_id text not null,
  status text not null,
  current_period_end timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index subscriptions_user_id on public.subscriptions (user_id);
alter table public.subscriptions enable row level security;
create policy "Users can read their own subscriptions" on public.subscriptions
  for select to authenticated using ((select auth.uid()) = user_id);
revoke insert, update, delete on public.subscriptions from anon, authenticated;

create table public.payments (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  amount_cents bigint not null,
  currency text not null,
  status text not null,
  created_at timestamptz not null default now()
);
create index payments_user_id on public.payments (user_id);
alter table public.payments enable row level security;
create policy "Users can read their own payments" on public.payments
  for select to authenticated using ((select auth.uid()) = user_id);
revoke insert, update, delete on public.payments from anon, authenticated;

-- The server-side inbox: written by the push functions, read, marked and deleted by its owner.
create table public.notifications (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  title text,
  body text,
  payload jsonb not null default '{}',
  send_id uuid,
  created_at timestamptz not null default now(),
  read_at timestamptz,
  opened_at timestamptz
);
create index notifications_user_id_created_at on public.notifications (user_id, created_at);
create index notifications_opened_send_id on public.notifications (send_id) where opened_at is not null;
alter table public.notifications enable row level security;
create policy "Users can read their own notifications" on public.notifications
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users can mark their own notifications" on public.notifications
  for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "Users can delete their own notifications" on public.notifications
  for delete to authenticated using ((select auth.uid()) = user_id);
revoke insert, update on public.notifications from anon, authenticated;
grant update (read_at, opened_at) on public.notifications to anon, authenticated;
