-- What a device tells about itself, for send-push's segments (`"segment":
-- "app_version=gte.2.0&locale=like.fr*"`): the app's version, the user's locale and time zone,
-- and when the app was last active. The app writes them with its token; all may stay empty.
alter table public.device_tokens add column app_version text check (length(app_version) <= 64);
alter table public.device_tokens add column locale text check (length(locale) <= 35);
alter table public.device_tokens add column time_zone text check (length(time_zone) <= 64);
alter table public.device_tokens add column last_active_at timestamptz;
