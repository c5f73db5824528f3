-- A send's kind, for per-user frequency caps by kind (SOAR_PUSH_FREQUENCY_CAPS).
alter table public.push_sends add column kind text;
create index push_sends_kind on public.push_sends (kind, created_at);
