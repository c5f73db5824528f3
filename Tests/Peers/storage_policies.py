"""Storage policies written with storage.foldername, storage.filename and storage.extension (the
app's own migration), and the rest of Storage's API that storage_e2e.py leaves out: a bucket read
and changed, listing's sort, search, limit and offset, If-Modified-Since, a bare ?download, and
tokens that are not the server's."""
import email.utils
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
pdf = {"content-type": "application/pdf"}

# The migration's policies: PDFs only, each user under their folder; a README.pdf anyone signed in reads.
docs = alice.storage.from_("docs")
docs.upload(f"{alice_id}/report.pdf", b"%PDF report", pdf)
docs.upload(f"{alice_id}/README.pdf", b"%PDF readme", pdf)
refused("another extension", lambda: docs.upload(f"{alice_id}/report.txt", b"text", pdf), "403", "Unauthorized")
refused("no extension", lambda: docs.upload(f"{alice_id}/report", b"text", pdf), "403", "Unauthorized")
refused("another user's folder", lambda: docs.upload(f"{bob_id}/x.pdf", b"%PDF", pdf), "403", "Unauthorized")
refused("a folder deeper than one's own", lambda: docs.upload(f"x/{alice_id}/y.pdf", b"%PDF", pdf), "403", "Unauthorized")
expect(bob.storage.from_("docs").download(f"{alice_id}/README.pdf") == b"%PDF readme", "storage.filename lets bob read the README")
refused("bob reads alice's report", lambda: bob.storage.from_("docs").download(f"{alice_id}/report.pdf"), "404", "not_found")
expect([f["name"] for f in bob.storage.from_("docs").list(alice_id)] == ["README.pdf"], "bob lists only what he may read")

# A bucket read and changed.
bucket = admin.storage.get_bucket("docs")
expect(bucket.id == "docs" and bucket.public is False, f"get_bucket: {bucket}")
admin.storage.update_bucket("docs", {"public": True, "file_size_limit": 1000, "allowed_mime_types": ["application/pdf"]})
changed = admin.storage.get_bucket("docs")
expect(changed.public is True and changed.file_size_limit == 1000 and changed.allowed_mime_types == ["application/pdf"], f"update_bucket: {changed}")
expect(httpx.get(docs.get_public_url(f"{alice_id}/report.pdf")).content == b"%PDF report", "a bucket made public serves without a key")
refused("over the new size limit", lambda: docs.upload(f"{alice_id}/big.pdf", b"0" * 2000, pdf), "413", "Payload too large")
admin.storage.update_bucket("docs", {"public": False})
expect(httpx.get(docs.get_public_url(f"{alice_id}/report.pdf")).json()["error"] == "Bucket not found", "made private again, no public route")
refused("a user changes a bucket (one they cannot see, as far as they know)", lambda: alice.storage.update_bucket("docs", {"public": True}), "404", "Bucket not found")
refused("an unknown bucket", lambda: admin.storage.get_bucket("nope"), "404", "Bucket not found")

# Listing: sort, search, limit, offset.
files = admin.storage.from_("docs")
for name in ["b.pdf", "a.pdf", "c.pdf", "notes-a.pdf"]:
    files.upload(f"{bob_id}/{name}", b"%PDF " + name.encode(), pdf)
names = lambda options: [f["name"] for f in files.list(bob_id, options)]
expect(names({"sortBy": {"column": "name", "order": "asc"}}) == ["a.pdf", "b.pdf", "c.pdf", "notes-a.pdf"], "by name")
expect(names({"sortBy": {"column": "name", "order": "desc"}}) == ["notes-a.pdf", "c.pdf", "b.pdf", "a.pdf"], "by name, descending")
expect(names({"limit": 2, "offset": 1, "sortBy": {"column": "name", "order": "asc"}}) == ["b.pdf", "c.pdf"], "limit and offset")
expect(names({"search": "notes"}) == ["notes-a.pdf"], "search is a prefix of the name in the folder")
refused("an unknown sort column", lambda: files.list(bob_id, {"sortBy": {"column": "size", "order": "asc"}}), "400", "Error")

# HTTP: If-Modified-Since, a bare ?download.
object_url = f"{url}/storage/v1/object/docs/{bob_id}/a.pdf"
whole = httpx.get(object_url, headers=keyed)
modified = whole.headers["last-modified"]
expect(httpx.get(object_url, headers={**keyed, "If-Modified-Since": modified}).status_code == 304, "If-Modified-Since its own time")
earlier = email.utils.format_datetime(email.utils.parsedate_to_datetime(modified).replace(year=2000), usegmt=True)
expect(httpx.get(object_url, headers={**keyed, "If-Modified-Since": earlier}).status_code == 200, "modified since 2000")
files.upload(f"{bob_id}/cached.pdf", b"%PDF cached", {"content-type": "application/pdf", "cache-control": "120"})
cached = httpx.get(f"{url}/storage/v1/object/docs/{bob_id}/cached.pdf", headers=keyed)
expect(cached.headers.get("cache-control") == "max-age=120", f"the upload's cache-control is served: {cached.headers.get('cache-control')}")
bare = httpx.get(object_url + "?download", headers=keyed)
expect(bare.headers.get("content-disposition", "").startswith("attachment"), f"a bare ?download is an attachment: {bare.headers}")

# Tokens that are not the server's: refused, never taken for anon.
forged = alice.auth.get_session().access_token[:-4] + "AAAA"
for path in [f"/storage/v1/object/docs/{alice_id}/README.pdf", f"/storage/v1/object/authenticated/docs/{alice_id}/README.pdf",
             f"/storage/v1/object/info/docs/{alice_id}/README.pdf"]:
    answer = httpx.get(url + path, headers={"apikey": anon, "Authorization": f"Bearer {forged}"})
    expect(answer.status_code == 400 and answer.json().get("statusCode") == "403" and "signature" in answer.json().get("message", ""),
           f"a forged token on {path}: {answer.status_code} {answer.text}")
upload = httpx.post(f"{url}/storage/v1/object/docs/{alice_id}/forged.pdf", headers={"apikey": anon, "Authorization": f"Bearer {forged}", "content-type": "application/pdf"}, content=b"%PDF")
expect(upload.status_code in (400, 401, 403), f"an upload with a forged token: {upload.status_code} {upload.text}")
expect(not files.exists(f"{alice_id}/forged.pdf"), "nothing was written")
print("ok")
