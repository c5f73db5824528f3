-- Quiet hours: each user's local window (`22:00` to `07:00` in their time zone) in which pushes
-- wait until it ends, unless they would expire first (then they are dropped) or are of a kind
-- the server holds critical. Each user writes only their own row.
create table public.quiet_hours (
  user_id uuid primary key default auth.uid() references auth.users (id) on delete cascade,
  starts_at text not null check (starts_at ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  ends_at text not null check (ends_at ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  time_zone text not null check (length(time_zone) between 1 and 64),
  updated_at timestamptz not null default now()
);
alter table public.quiet_hours enable row level security;
create policy "Users can read their own quiet hours" on public.quiet_hours
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users can set their own quiet hours" on public.quiet_hours
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "Users can change their own quiet hours" on public.quiet_hours
  for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "Users can clear their own quiet hours" on public.quiet_hours
  for delete to authenticated using ((select auth.uid()) = user_id);
