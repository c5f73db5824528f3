-- Durable sends (the server's own tables: RLS on and no policy, so clients reach nothing).
create table public.push_sends (
  id uuid primary key,
  request text not null,
  total bigint not null,
  stored bigint not null default 0,
  delivered bigint not null default 0,
  failed bigint not null default 0,
  removed bigint not null default 0,
  -- Outcomes of jobs claimed again after a worker died: each may have been sent twice.
  redelivered bigint not null default 0,
  created_at timestamptz not null,
  -- When the last chunk was stored: a send nothing was added to for a minute lost its process.
  stored_at timestamptz,
  finished_at timestamptz
);
alter table public.push_sends enable row level security;
grant all on public.push_sends to service_role;

create table public.push_send_reasons (
  send_id uuid not null references public.push_sends (id) on delete cascade,
  reason text not null,
  count bigint not null,
  primary key (send_id, reason)
);
alter table public.push_send_reasons enable row level security;
grant all on public.push_send_reasons to service_role;

-- One job per device; a job stays 'pending' until its outcome is committed, once. Workers of
-- every process claim pending jobs with FOR UPDATE SKIP LOCKED and a lease they renew; a worker
-- that dies loses its lease, and another process takes its jobs.
create table public.push_jobs (
  id bigserial primary key,
  send_id uuid not null references public.push_sends (id) on delete cascade,
  user_id uuid,
  token text not null,
  environment text,
  bundle_id text,
  apns_id uuid not null,
  state text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
  reason text,
  removed boolean not null default false,
  notification_id uuid,
  badge bigint,
  lease_owner text,
  lease_until timestamptz,
  attempts integer not null default 0,
  updated_at timestamptz not null
);
create index push_jobs_pending on public.push_jobs (id) where state = 'pending';
create index push_jobs_send_id on public.push_jobs (send_id);
alter table public.push_jobs enable row level security;
grant all on public.push_jobs to service_role;
grant usage on sequence public.push_jobs_id_seq to service_role;
