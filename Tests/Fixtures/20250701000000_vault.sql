-- A table whose rows only a session past its second factor (aal2) reaches.
create table public.vault (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null default auth.uid() references auth.users (id) on delete cascade,
  secret text not null
);
alter table public.vault enable row level security;
create policy "own rows at aal2" on public.vault for all to authenticated
  using (auth.uid() = user_id and (auth.jwt() ->> 'aal') = 'aal2')
  with check (auth.uid() = user_id and (auth.jwt() ->> 'aal') = 'aal2');
grant select, insert, update, delete on public.vault to authenticated;
