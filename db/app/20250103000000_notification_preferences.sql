-- Push preferences by kind (seed 001 tags every push with one, `early_viral_alert`): a row with
-- `enabled = false` mutes that kind for the user. The server honors it before anything is sent
-- (send-push and send-test-push with a `kind`), except for the kinds it holds critical
-- (SOAR_PUSH_CRITICAL_KINDS, `security` by default), and counts what it held back.
create table public.notification_preferences (
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  kind text not null check (kind ~ '^[a-z0-9_.-]+$' and length(kind) <= 64),
  enabled boolean not null default true,
  updated_at timestamptz not null default now(),
  primary key (user_id, kind)
);
alter table public.notification_preferences enable row level security;
create policy "Users can read their own preferences" on public.notification_preferences
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users can set their own preferences" on public.notification_preferences
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "Users can change their own preferences" on public.notification_preferences
  for update to authenticated using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);
create policy "Users can clear their own preferences" on public.notification_preferences
  for delete to authenticated using ((select auth.uid()) = user_id);
