-- Whether a send was stored whole: a scheduled send a stopped process stored part of is resumed
-- after the last user stored, instead of being taken for sent. Earlier sends count as whole.
alter table public.push_sends add column stored_all boolean not null default true;
