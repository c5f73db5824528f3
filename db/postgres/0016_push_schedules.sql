-- Sends to go out later (send-push's `send_at`): each runs once, as the send of the same id,
-- so a process that stopped half way runs it again without sending twice; processes claim them
-- with FOR UPDATE SKIP LOCKED (the server's own table: RLS on and no policy).
create table public.push_schedules (
  id uuid primary key,
  request text not null,
  due_at timestamptz not null,
  -- scheduled, sending (claimed by a process at updated_at), sent, cancelled
  status text not null default 'scheduled',
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index push_schedules_due on public.push_schedules (status, due_at);
alter table public.push_schedules enable row level security;
grant all on public.push_schedules to service_role;
