"""The PyPI supabase client (2.x) against a running `soar serve`, as an app would use it.

Usage: supabase_e2e.py URL ANON_KEY [EMULATOR_CONTROL_URL]
With the control URL (soar serve --with-emulator), send-test-push is invoked as the seed's app
does and the emulator's deliveries are checked. Exits 0 and prints "ok" when every step behaves as on Supabase; otherwise prints the failed step.
"""
import sys
import uuid

import json

import httpx
from postgrest.exceptions import APIError
from supabase import create_client
from supabase_auth.errors import AuthApiError
from supabase_functions.errors import FunctionsHttpError
from peer import expect

url, anon = sys.argv[1], sys.argv[2]
control = sys.argv[3] if len(sys.argv) > 3 else None


def client():
    return create_client(url, anon)


def api_error(call):
    try:
        call()
    except APIError as error:
        return error
    return None


# Two users sign up (auto-confirmed, signed in at once) and sign in again.
a, b = client(), client()
run = uuid.uuid4().hex[:8]
ea, eb = f"alice-{run}@example.com", f"bob-{run}@example.com"
ra = a.auth.sign_up({"email": ea, "password": "alice-password"})
rb = b.auth.sign_up({"email": eb, "password": "bob-password"})
expect(ra.session is not None and ra.user.email == ea, "sign_up returns a session")
a.auth.sign_out()
ra = a.auth.sign_in_with_password({"email": ea, "password": "alice-password"})
alice, bob = ra.user.id, rb.user.id
expect(ra.session.access_token and ra.session.refresh_token, "sign_in_with_password returns tokens")
try:
    client().auth.sign_in_with_password({"email": ea, "password": "wrong-password"})
    expect(False, "a wrong password is refused")
except AuthApiError as error:
    expect(error.code == "invalid_credentials", f"wrong password code: {error.code}")

# Alice upserts the same device token twice (seed 000's registrar): one row.
token = "a1" * 32
for _ in range(2):
    a.table("device_tokens").upsert({"user_id": alice, "token": token, "platform": "ios"}, on_conflict="user_id,token").execute()
rows = a.table("device_tokens").select("*").execute().data
expect(len(rows) == 1 and rows[0]["token"] == token, f"one device row after two upserts: {rows}")

# Bob can neither read, change, delete nor insert Alice's rows, by any endpoint or filter trick.
expect(b.table("device_tokens").select("*").execute().data == [], "bob reads none of alice's tokens")
expect(b.table("device_tokens").select("*").eq("user_id", alice).execute().data == [], "eq user_id trick")
expect(b.table("device_tokens").select("*").or_(f"user_id.eq.{alice},token.eq.{token}").execute().data == [], "or trick")
expect(b.table("device_tokens").select("*").range(0, 1000).execute().data == [], "range trick")
expect(b.table("device_tokens").update({"platform": "android"}).eq("token", token).execute().data == [], "bob updates nothing")
expect(b.table("device_tokens").delete().eq("token", token).execute().data == [], "bob deletes nothing")
error = api_error(lambda: b.table("device_tokens").insert({"user_id": alice, "token": "b2" * 32}).execute())
expect(error is not None and error.code == "42501", f"bob cannot insert a row for alice: {error}")
error = api_error(lambda: b.table("device_tokens").upsert({"user_id": alice, "token": token}, on_conflict="user_id,token").execute())
expect(error is not None and error.code == "42501", f"bob cannot upsert over alice's row: {error}")
rows = a.table("device_tokens").select("*").execute().data
expect(len(rows) == 1 and rows[0]["platform"] == "ios", "alice's row is untouched")

# send-test-push, invoked as the seed's PushTestSender does: each user reaches only their own devices.
if control:
    bob_token = "b3" * 32
    b.table("device_tokens").upsert({"user_id": bob, "token": bob_token, "platform": "ios"}, on_conflict="user_id,token").execute()
    request = {"title": "Test", "body": "From supabase-py", "deeplink": "soar:///notifications", "environment": "sandbox"}
    for user, mine in ((a, token), (b, bob_token)):
        httpx.delete(f"{control}/deliveries")
        answer = json.loads(user.functions.invoke("send-test-push", invoke_options={"body": request}))
        expect(answer["sent"] == 1 and answer["delivered"] == 1, f"send-test-push answer: {answer}")
        delivered = [d["token"] for d in httpx.get(f"{control}/deliveries").json()]
        expect(delivered == [mine], f"only the caller's device got it: {delivered}")
    try:
        client().functions.invoke("send-test-push", invoke_options={"body": request})
        expect(False, "send-test-push refuses the anon key")
    except FunctionsHttpError:
        pass

# Todos: insert, order, exact count, update, delete.
inserted = a.table("todos").insert([{"user_id": alice, "title": t, "sort_order": i} for i, t in enumerate(["milk", "eggs", "bread"])]).execute().data
expect(len(inserted) == 3, "bulk insert returns the rows")
ordered = a.table("todos").select("*", count="exact").order("sort_order", desc=True).execute()
expect([r["title"] for r in ordered.data] == ["bread", "eggs", "milk"] and ordered.count == 3, f"order and count: {ordered}")
first = inserted[0]["id"]
updated = a.table("todos").update({"completed": True}).eq("id", first).execute().data
expect(updated and updated[0]["completed"] is True, "update returns the row")
expect(a.table("todos").select("id").eq("completed", True).execute().data == [{"id": first}], "filter on a boolean")
expect(b.table("todos").select("*").execute().data == [], "bob sees no todos")
a.table("todos").delete().eq("id", first).execute()
expect(a.table("todos").select("*", count="exact").execute().count == 2, "delete removed one")
unfiltered = api_error(lambda: a.table("todos").delete().execute())
expect(unfiltered is not None and unfiltered.code == "21000", f"a delete without a filter is refused: {unfiltered}")
single = a.table("todos").select("title").eq("title", "eggs").single().execute().data
expect(single == {"title": "eggs"}, f"single: {single}")
expect(a.table("todos").select("*").eq("title", "none").maybe_single().execute() is None, "maybe_single of nothing is None")

# A profile written one field at a time keeps the other fields (seed 002's ProfileRepository).
a.table("profiles").upsert({"id": alice, "full_name": "Alice"}).execute()
a.table("profiles").upsert({"id": alice, "bio": "hello", "updated_at": "2026-01-01T00:00:00Z"}).execute()
profile = a.table("profiles").select("*").eq("id", alice).single().execute().data
expect(profile["full_name"] == "Alice" and profile["bio"] == "hello", f"profile keeps its fields: {profile}")

# Refresh, sign out, and the signed-out token refused at once.
old = a.auth.get_session()
refreshed = a.auth.refresh_session()
expect(refreshed.session.refresh_token != old.refresh_token, "refresh rotates the refresh token")
access = refreshed.session.access_token
expect(a.auth.get_user().user.id == alice, "get_user after refresh")
a.auth.sign_out()
answer = httpx.get(f"{url}/rest/v1/todos", headers={"apikey": anon, "Authorization": f"Bearer {access}"})
expect(answer.status_code == 401, f"a signed-out token is refused on the data API: {answer.status_code}")
answer = httpx.get(f"{url}/auth/v1/user", headers={"apikey": anon, "Authorization": f"Bearer {access}"})
expect(answer.status_code == 403, f"a signed-out token is refused on auth: {answer.status_code}")

# Anonymous sign-in.
anonymous = client().auth.sign_in_anonymously()
expect(anonymous.user.is_anonymous, "sign_in_anonymously")

print("ok")
