-- Device tokens are stored in lowercase hex (the server now folds them on every write and filter).
-- Rows written before in another case are folded in: of one user's rows for one device, the newest
-- stays; of different users' rows for one device, the latest user's stays (the one-owner rule);
-- then the rest are lowercased.
delete from public.device_tokens as old using public.device_tokens as newer
where lower(newer.token) = lower(old.token) and newer.token <> old.token and newer.user_id = old.user_id
  and (newer.updated_at > old.updated_at or (newer.updated_at = old.updated_at and newer.token > old.token));
delete from public.device_tokens as old using public.device_tokens as newer
where lower(newer.token) = lower(old.token) and newer.user_id <> old.user_id
  and (newer.updated_at > old.updated_at or (newer.updated_at = old.updated_at and newer.user_id > old.user_id));
update public.device_tokens set token = lower(token) where token <> lower(token);
