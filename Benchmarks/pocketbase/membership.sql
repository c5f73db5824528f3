-- A team's notes, read by its members: the EXISTS membership policy the benchmark compares with
-- the starter's plain owner policy on todos.
create table public.teams (id uuid primary key default gen_random_uuid(), name text not null);
create table public.team_members (
  team_id uuid not null references public.teams (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  primary key (team_id, user_id)
);
create index team_members_user_id on public.team_members (user_id, team_id);
create table public.team_notes (
  id uuid primary key default gen_random_uuid(),
  team_id uuid not null references public.teams (id) on delete cascade,
  body text not null,
  sort_order bigint not null default 0
);
create index team_notes_team_id_sort_order on public.team_notes (team_id, sort_order);
alter table public.teams enable row level security;
alter table public.team_members enable row level security;
alter table public.team_notes enable row level security;
create policy "Members read their memberships" on public.team_members for select to authenticated
  using (user_id = (select auth.uid()));
create policy "Members read their team's notes" on public.team_notes for select to authenticated
  using (exists (select 1 from public.team_members m where m.team_id = team_notes.team_id and m.user_id = (select auth.uid())));
