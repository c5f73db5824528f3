-- Webhooks (POST /functions/v1/webhooks): the endpoints, and one message per event per endpoint,
-- written in the transaction that made the event (an outcome here, an open or a send's
-- suppressions elsewhere), then delivered at least once, signed as Standard Webhooks says, and
-- retried with back-off for about a day. The server's own tables: RLS on and no policy.
create table public.push_webhooks (
  id text primary key,
  url text not null,
  -- `whsec_` and the base64 of the signing key.
  secret text not null,
  -- A JSON array of the event types it gets; null: every type.
  events jsonb,
  created_at timestamptz not null
);
create table public.push_webhook_messages (
  seq bigserial primary key,
  -- The `webhook-id`: the same on every attempt, for the receiver to drop duplicates.
  id text not null unique,
  endpoint_id text not null references public.push_webhooks (id) on delete cascade,
  type text not null,
  send_id text,
  -- The JSON body as sent.
  payload text not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  -- null: due now.
  next_attempt_at timestamptz,
  lease_owner text,
  lease_until timestamptz,
  last_status integer,
  last_error text,
  finished_at timestamptz
);
create index push_webhook_messages_pending on public.push_webhook_messages (seq) where state = 'pending';
create index push_webhook_messages_send on public.push_webhook_messages (send_id) where send_id is not null;
create index push_webhook_messages_endpoint on public.push_webhook_messages (endpoint_id, seq);
alter table public.push_webhooks enable row level security;
alter table public.push_webhook_messages enable row level security;
grant all on public.push_webhooks, public.push_webhook_messages to service_role;
grant usage on sequence public.push_webhook_messages_seq_seq to service_role;

-- Queues one event for every endpoint that takes its type.
create schema if not exists soar;
create function soar.webhook_event(event_type text, send text, at timestamptz, body jsonb) returns void
  language sql security definer set search_path = '' as $$
  insert into public.push_webhook_messages (id, endpoint_id, type, send_id, payload)
  select 'msg_' || replace(gen_random_uuid()::text, '-', ''), w.id, event_type, send,
    jsonb_build_object('type', event_type, 'timestamp', to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', body)::text
  from public.push_webhooks w where w.events is null or w.events ? event_type;
$$;

-- Each outcome: push.sent or push.failed, and push.token_removed when Apple said the token is dead.
create function soar.webhook_outcome() returns trigger
  language plpgsql security definer set search_path = '' as $$
declare
  body jsonb;
begin
  if not exists (select 1 from public.push_webhooks) then return null; end if;
  body := jsonb_build_object('send_id', NEW.send_id, 'kind', (select kind from public.push_sends where id = NEW.send_id),
    'user_id', NEW.user_id, 'device_token', NEW.token, 'apns_id', NEW.apns_id, 'environment', NEW.environment,
    'reason', NEW.reason, 'notification_id', NEW.notification_id);
  perform soar.webhook_event(case NEW.state when 'delivered' then 'push.sent' else 'push.failed' end, NEW.send_id::text, NEW.updated_at, body);
  if NEW.removed then perform soar.webhook_event('push.token_removed', NEW.send_id::text, NEW.updated_at, body); end if;
  return null;
end;
$$;
create trigger push_webhook_outcome after update of state on public.push_jobs
  for each row when (OLD.state = 'pending' and NEW.state <> 'pending') execute function soar.webhook_outcome();
