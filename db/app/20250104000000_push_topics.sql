-- Push topics: a user follows named topics (`news`, `brand:abc123`); send-push's
-- `{"topic": "news"}` reaches the devices of every user who follows it. Each user writes only
-- their own rows.
create table public.push_topic_subscriptions (
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  topic text not null check (topic ~ '^[A-Za-z0-9_.:-]+$' and length(topic) <= 128),
  created_at timestamptz not null default now(),
  primary key (user_id, topic)
);
create index push_topic_subscriptions_topic on public.push_topic_subscriptions (topic, user_id);
alter table public.push_topic_subscriptions enable row level security;
create policy "Users can read their own topics" on public.push_topic_subscriptions
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users can follow topics" on public.push_topic_subscriptions
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "Users can unfollow topics" on public.push_topic_subscriptions
  for delete to authenticated using ((select auth.uid()) = user_id);
