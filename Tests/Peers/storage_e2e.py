"""Supabase Storage through PyPI's supabase client (storage3): the starter's avatars bucket and its
policies, public and private buckets, signed URLs, HTTP's ranges and caching, and bad input."""
import sys

import httpx
from peer import expect
from storage_peer import refused, user as new_user
from supabase import create_client

url, anon, service = sys.argv[1], sys.argv[2], sys.argv[3]
admin = create_client(url, service)
keyed = {"apikey": service, "Authorization": f"Bearer {service}"}

alice, alice_id = new_user(url, anon)
bob, bob_id = new_user(url, anon)

# The starter's avatars bucket: public reads, writes only under one's own folder.
expect([b.id for b in admin.storage.list_buckets()] == ["avatars"], "the starter makes one bucket")
avatars = alice.storage.from_("avatars")
path = f"{alice_id}/avatar.png"
uploaded = avatars.upload(path, b"\x89PNG first", {"content-type": "image/png"})
expect(uploaded.full_path == f"avatars/{path}", f"upload answers its key: {uploaded.full_path}")
expect(avatars.download(path) == b"\x89PNG first", "alice reads back her avatar")
expect(httpx.get(avatars.get_public_url(path)).content == b"\x89PNG first", "anyone reads a public bucket's object without a key")
refused("bob writes in alice's folder", lambda: bob.storage.from_("avatars").upload(f"{alice_id}/x.png", b"x", {"content-type": "image/png"}), "403", "Unauthorized")
refused("bob overwrites alice's avatar", lambda: bob.storage.from_("avatars").update(path, b"x", {"content-type": "image/png"}), "403", "Unauthorized")
expect(bob.storage.from_("avatars").remove([path]) == [], "bob's remove of alice's avatar removes nothing")
refused("a key in no folder", lambda: avatars.upload("loose.png", b"x", {"content-type": "image/png"}), "403", "Unauthorized")
refused("an existing key without upsert", lambda: avatars.upload(path, b"again", {"content-type": "image/png"}), "409", "Duplicate")
avatars.upload(path, b"\x89PNG second", {"content-type": "image/png", "upsert": "true"})
expect(avatars.download(path) == b"\x89PNG second", "upsert replaces the bytes")
refused("a type the bucket refuses", lambda: avatars.upload(f"{alice_id}/notes.txt", b"t", {"content-type": "text/plain"}), "415", "invalid_mime_type")
refused("over the bucket's 5 MB", lambda: avatars.upload(f"{alice_id}/big.png", b"0" * 5_300_000, {"content-type": "image/png"}), "413", "Payload too large")
expect(avatars.info(path)["size"] == len(b"\x89PNG second"), "info gives the size")
expect(avatars.exists(path) and not avatars.exists(f"{alice_id}/none.png"), "exists")
expect([(f["name"], f["id"] is None) for f in avatars.list()] == [(alice_id, True)], "the top level lists alice's folder")
expect([f["name"] for f in avatars.list(alice_id)] == ["avatar.png"], "the folder lists its object")

# Copy, move, remove several, signed URLs.
avatars.copy(path, f"{alice_id}/copy.png")
avatars.move(f"{alice_id}/copy.png", f"{alice_id}/moved.png")
expect(sorted(f["name"] for f in avatars.list(alice_id)) == ["avatar.png", "moved.png"], "copy then move")
expect(avatars.download(f"{alice_id}/moved.png") == b"\x89PNG second", "the copy has the bytes")
refused("a move out of one's folder", lambda: avatars.move(f"{alice_id}/moved.png", f"{bob_id}/stolen.png"), "403", "Unauthorized")
signed = avatars.create_signed_url(path, 60)
expect(httpx.get(signed["signedURL"]).content == b"\x89PNG second", "a signed URL downloads without a key")
tampered = signed["signedURL"].replace("avatar.png", "moved.png")
expect(httpx.get(tampered).json()["error"] == "InvalidSignature", "a signed URL is for its object only")
many = avatars.create_signed_urls([path, f"{alice_id}/none.png"], 60)
expect(many[0]["error"] is None and many[1]["error"] is not None, f"signed URLs, one each: {many}")
expect([r["name"] for r in avatars.remove([f"{alice_id}/moved.png", f"{alice_id}/none.png"])] == [f"{alice_id}/moved.png"], "remove skips the missing")

# A private bucket: nothing without a policy; the service role, signed URLs.
admin.storage.create_bucket("private", options={"public": False, "file_size_limit": "1MB"})
refused("a second bucket of the same id", lambda: admin.storage.create_bucket("private"), "409", "Duplicate")
refused("a bucket made by a user", lambda: alice.storage.create_bucket("mine"), "403", "Unauthorized")
private = admin.storage.from_("private")
private.upload("reports/q1.txt", b"0123456789", {"content-type": "text/plain"})
refused("alice reads a private object", lambda: alice.storage.from_("private").download("reports/q1.txt"), "404", "not_found")
expect(httpx.get(private.get_public_url("reports/q1.txt")).json()["error"] == "Bucket not found", "no public route to a private bucket")
expect(alice.storage.from_("private").list("reports") == [], "alice lists nothing")
ticket = private.create_signed_upload_url("inbox/a.txt")
private.upload_to_signed_url("inbox/a.txt", ticket["token"], b"through a signed upload")
expect(private.download("inbox/a.txt") == b"through a signed upload", "a signed upload URL takes the bytes")
as_bearer = httpx.get(f"{url}/rest/v1/todos", headers={"apikey": anon, "Authorization": f"Bearer {ticket['token']}"})
expect(as_bearer.status_code == 401, f"a signed URL's token is no access token: {as_bearer.status_code}")
crlf = httpx.post(f"{url}/storage/v1/object/private/crlf.txt", headers=keyed,
                  files={"file": ("crlf.txt", b"x", "text/plain")}, data={"contentType": "text/plain\r\nx-evil: 1"})
expect(crlf.status_code == 400 and crlf.json()["statusCode"] == "415", f"a type with a line break: {crlf.text}")

# HTTP: ranges, ETag, Last-Modified, downloads.
object_url = f"{url}/storage/v1/object/private/reports/q1.txt"
partial = httpx.get(object_url, headers={**keyed, "Range": "bytes=2-5"})
expect(partial.status_code == 206 and partial.content == b"2345" and partial.headers["content-range"] == "bytes 2-5/10", "a range")
expect(httpx.get(object_url, headers={**keyed, "Range": "bytes=-3"}).content == b"789", "a suffix range")
past = httpx.get(object_url, headers={**keyed, "Range": "bytes=10-"})
expect(past.status_code == 416 and past.headers.get("content-range") == "bytes */10", "a range past the end is 416, with the size")
expect(httpx.get(object_url, headers={**keyed, "Range": "bytes=abc"}).status_code == 200, "a range that does not parse is ignored")
whole = httpx.get(object_url, headers=keyed)
expect(whole.headers["etag"].startswith('"') and "last-modified" in whole.headers, "ETag and Last-Modified")
expect(httpx.get(object_url, headers={**keyed, "If-None-Match": whole.headers["etag"]}).status_code == 304, "If-None-Match")
expect(httpx.get(object_url, headers={**keyed, "If-None-Match": "W/" + whole.headers["etag"]}).status_code == 304, "a weak tag matches")
stale = httpx.get(object_url, headers={**keyed, "Range": "bytes=0-1", "If-Range": '"older"'})
expect(stale.status_code == 200 and stale.content == b"0123456789", "If-Range naming another version: the whole object")
refused("a render of a text file", lambda: private.create_signed_url("reports/q1.txt", 60, {"transform": {"width": 10}}), "400", "Error")
named = httpx.get(object_url + "?download=report.txt", headers=keyed)
expect(named.headers["content-disposition"].startswith("attachment; filename=report.txt"), "download= names the file")

# Bad input: names, keys, an unknown bucket.
bad = httpx.post(f"{url}/storage/v1/object/private/a%0Ab.txt", headers={**keyed, "content-type": "text/plain"}, content=b"x")
expect(bad.status_code == 400 and bad.json()["error"] == "InvalidKey", f"a control character in a key: {bad.text}")
for key in ["a//b.txt", "trailing/", "%2Flead.txt"]:
    slashes = httpx.post(f"{url}/storage/v1/object/private/{key}", headers={**keyed, "content-type": "text/plain"}, content=b"x")
    expect(slashes.status_code == 400 and slashes.json()["error"] == "InvalidKey", f"an empty part in {key}: {slashes.text}")
hidden = httpx.delete(f"{url}/storage/v1/bucket/private", headers={"apikey": anon, "Authorization": f"Bearer {alice.auth.get_session().access_token}"})
expect(hidden.json().get("error") == "Bucket not found", f"a user learns nothing of a bucket they cannot see: {hidden.text}")
dots = httpx.post(f"{url}/storage/v1/object/private/a/%2E%2E/b.txt", headers={**keyed, "content-type": "text/plain"}, content=b"x")
expect(dots.status_code == 400 and dots.json()["error"] == "InvalidKey", f"a .. part: {dots.text}")
refused("an unknown bucket", lambda: admin.storage.from_("nope").upload("a.txt", b"x"), "404", "Bucket not found")
no_key = httpx.get(f"{url}/storage/v1/object/authenticated/private/reports/q1.txt")
expect(no_key.status_code == 401, "no API key")
refused("a non-empty bucket's delete", lambda: admin.storage.delete_bucket("private"), "409", "ResourceNotEmpty")
admin.storage.empty_bucket("private")
admin.storage.delete_bucket("private")
expect([b.id for b in admin.storage.list_buckets()] == ["avatars"], "emptied and deleted")
print("ok")
