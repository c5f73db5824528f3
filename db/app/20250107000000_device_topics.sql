-- Topics one device follows (an install's own choice, as a tablet that wants only some alerts):
-- send-push's `{"topic": "news"}` reaches the devices of users who follow it
-- (`push_topic_subscriptions`) and each device that follows it here. A row names the device by
-- its token and counts only while that token is the same user's device, so no one subscribes
-- another user's phone. Each user writes only their own rows.
create table public.push_topic_device_subscriptions (
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  token text not null check (token ~ '^([0-9a-f][0-9a-f])+$' and length(token) between 16 and 512),
  topic text not null check (topic ~ '^[A-Za-z0-9_.:-]+$' and length(topic) <= 128),
  created_at timestamptz not null default now(),
  primary key (user_id, token, topic)
);
create index push_topic_device_subscriptions_topic on public.push_topic_device_subscriptions (topic, token, user_id);
alter table public.push_topic_device_subscriptions enable row level security;
create policy "Users can read their devices' topics" on public.push_topic_device_subscriptions
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users can make their devices follow topics" on public.push_topic_device_subscriptions
  for insert to authenticated with check ((select auth.uid()) = user_id);
create policy "Users can make their devices unfollow topics" on public.push_topic_device_subscriptions
  for delete to authenticated using ((select auth.uid()) = user_id);
