-- Seed 002's profile avatars (`profiles.avatar_url`): a public bucket, read by anyone, where each
-- user writes only under a folder named by their id (`<user id>/avatar.png`), as Supabase's
-- storage guide writes it. Images only, 5 MB at most.
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('avatars', 'avatars', true, 5242880, '{image/png,image/jpeg,image/webp,image/heic,image/gif}');

create policy "Avatars are readable by anyone" on storage.objects
  for select using (bucket_id = 'avatars');

create policy "Users add avatars to their own folder" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);

create policy "Users replace their own avatars" on storage.objects
  for update to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text)
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);

create policy "Users remove their own avatars" on storage.objects
  for delete to authenticated
  using (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid())::text);
