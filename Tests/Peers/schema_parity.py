"""The same requests, by several users through the PyPI supabase client, against a `soar serve`
whose schema is the starter plus Fixtures/20250601000000_teams_notes.sql.

Usage: schema_parity.py URL ANON_KEY SERVICE_ROLE_KEY
Prints one JSON line per request: what a user would see (rows with their ids named, or the
error's code). The test runs it against SQLite and Postgres and compares the two transcripts;
the expectations below also hold on each, so both cannot be wrong the same way.
"""
import json
import re
import sys
import uuid

from postgrest.exceptions import APIError
from postgrest.types import ReturnMethod
from supabase import create_client

url, anon, service_key = sys.argv[1], sys.argv[2], sys.argv[3]
run = uuid.uuid4().hex[:8]
names = {}


def named(value):
    """Ids and times vary between runs: each becomes a stable name (user:alice, id:1...)."""
    if isinstance(value, dict):
        return {key: named(item) for key, item in sorted(value.items()) if key not in ("created_at", "updated_at")}
    if isinstance(value, list):
        return [named(item) for item in value]
    if isinstance(value, str) and value in names:
        return names[value]
    if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", value):
        return "a uuid"
    return value


def step(label, call, expect=None):
    try:
        result = call().data
        line = {"step": label, "rows": named(result)}
    except APIError as error:
        line = {"step": label, "error": error.code}
    print(json.dumps(line, sort_keys=True), flush=True)
    if expect is not None and not expect(line):
        print(f"FAILED: {label}: {line}", file=sys.stderr)
        sys.exit(1)
    return line


def user(name):
    client = create_client(url, anon)
    session = client.auth.sign_up({"email": f"{name}-{run}@example.com", "password": f"{name}-password"})
    names[session.user.id] = f"user:{name}"
    return client, session.user.id


service = create_client(url, service_key)
alice, alice_id = user("alice")
bob, bob_id = user("bob")
carol, carol_id = user("carol")

red = service.table("teams").insert({"name": f"red-{run}"}).execute().data[0]["id"]
blue = service.table("teams").insert({"name": f"blue-{run}"}).execute().data[0]["id"]
names[red], names[blue] = "team:red", "team:blue"
names[f"red-{run}"], names[f"blue-{run}"] = "red", "blue"
service.table("team_members").insert([
    {"team_id": red, "user_id": alice_id, "role": "owner"},
    {"team_id": red, "user_id": bob_id, "role": "member"},
    {"team_id": blue, "user_id": carol_id, "role": "member"},
]).execute()
service.table("team_owners").insert({"team_id": red, "user_id": alice_id}).execute()


def rows(line):
    return line.get("rows")


def error(code):
    return lambda line: line.get("error") == code


first = step("alice writes a note in red", lambda: alice.table("notes").insert({"team_id": red, "body": "ship it"}).execute(),
             lambda line: rows(line) and rows(line)[0]["author_id"] == "user:alice" and rows(line)[0]["kind"] == "idea")
note = first["rows"][0]["id"]
step("alice writes a pinned task", lambda: alice.table("notes").insert({"team_id": red, "body": "keep", "kind": "task", "pinned": True}).execute())
step("bob, a member, reads red's notes", lambda: bob.table("notes").select("body,kind,author_id,pinned").order("id").execute(),
     lambda line: [row["body"] for row in rows(line)] == ["ship it", "keep"])
step("carol, not a member, reads none", lambda: carol.table("notes").select("*").execute(), lambda line: rows(line) == [])
step("anon reads none", lambda: create_client(url, anon).table("notes").select("*").execute(), lambda line: rows(line) == [])
step("carol cannot write into red", lambda: carol.table("notes").insert({"team_id": red, "body": "hi"}).execute(), error("42501"))
step("bob cannot write as alice", lambda: bob.table("notes").insert({"team_id": red, "body": "hi", "author_id": alice_id}).execute(), error("42501"))
step("bob cannot change alice's note", lambda: bob.table("notes").update({"body": "mine"}).eq("id", note).execute(), lambda line: rows(line) == [])
step("alice changes her note", lambda: alice.table("notes").update({"body": "shipped"}).eq("id", note).execute(),
     lambda line: rows(line)[0]["body"] == "shipped")
step("alice cannot give her note away", lambda: alice.table("notes").update({"author_id": bob_id}).eq("id", note).execute(), error("42501"))
step("a body too long breaks the check", lambda: alice.table("notes").insert({"team_id": red, "body": "x" * 201}).execute(), error("23514"))
step("an unknown kind is refused", lambda: alice.table("notes").insert({"team_id": red, "body": "x", "kind": "poem"}).execute(), error("22P02"))
step("bob cannot delete alice's note", lambda: bob.table("notes").delete().eq("id", note).execute(), lambda line: rows(line) == [])
step("a pinned note stays, even for its author", lambda: alice.table("notes").delete().eq("pinned", True).execute(), lambda line: rows(line) == [])
step("bob sees red only", lambda: bob.table("teams").select("name").execute(), lambda line: rows(line) == [{"name": "red"}])
step("carol sees blue only", lambda: carol.table("teams").select("name").execute(), lambda line: rows(line) == [{"name": "blue"}])
step("memberships are one's own", lambda: bob.table("team_members").select("team_id,role").execute(),
     lambda line: rows(line) == [{"role": "member", "team_id": "team:red"}])
step("filters and order on the app's columns", lambda: bob.table("notes").select("body").eq("kind", "task").order("body", desc=True).execute(),
     lambda line: rows(line) == [{"body": "keep"}])
step("the view", lambda: service.table("team_note_counts").select("*").in_("team", [f"red-{run}", f"blue-{run}"]).order("team").execute(),
     lambda line: rows(line) == [{"notes": 0, "team": "blue"}, {"notes": 2, "team": "red"}])
step("an invoker view, as bob", lambda: bob.table("my_team_notes").select("body,team").order("id").execute(),
     lambda line: rows(line) == [{"body": "shipped", "team": "red"}, {"body": "keep", "team": "red"}])
step("an invoker view, as carol", lambda: carol.table("my_team_notes").select("*").execute(), lambda line: rows(line) == [])
step("embedding: one-to-many, the related rows under bob's policies",
     lambda: bob.table("teams").select("name,notes(body,kind)").order("id", foreign_table="notes").execute(),
     lambda line: rows(line) == [{"name": "red", "notes": [{"body": "shipped", "kind": "idea"}, {"body": "keep", "kind": "task"}]}])
step("embedding: many-to-one with an alias", lambda: bob.table("notes").select("body,squad:teams(name)").order("id").execute(),
     lambda line: [row["squad"] for row in rows(line)] == [{"name": "red"}, {"name": "red"}])
step("embedding: !inner with a filter on the embedded column",
     lambda: bob.table("teams").select("name,notes!inner(body)").eq("notes.kind", "task").execute(),
     lambda line: rows(line) == [{"name": "red", "notes": [{"body": "keep"}]}])
step("embedding: !inner leaves out rows without related ones", lambda: carol.table("teams").select("name,notes!inner(body)").execute(),
     lambda line: rows(line) == [])
step("embedding: carol's team has no notes she may read", lambda: carol.table("teams").select("name,notes(body)").execute(),
     lambda line: rows(line) == [{"name": "blue", "notes": []}])
step("embedding: nested, through the members", lambda: bob.table("teams").select("name,team_members(role,teams(name))").execute(),
     lambda line: rows(line) == [{"name": "red", "team_members": [{"role": "member", "teams": {"name": "red"}}]}])
step("embedding: no relationship", lambda: bob.table("teams").select("name,todos(*)").execute(), error("PGRST200"))
step("embedding: a filter on what is not embedded", lambda: bob.table("teams").select("name").eq("notes.kind", "task").execute(), error("PGRST108"))
step("rpc: a count under bob's policies", lambda: bob.rpc("team_note_count", {"team": red}).execute(), lambda line: rows(line) == 2)
step("rpc: the same count for carol", lambda: carol.rpc("team_note_count", {"team": red}).execute(), lambda line: rows(line) == 0)
step("rpc: rows of a table", lambda: bob.rpc("notes_of_kind", {"wanted": "task"}).execute(), lambda line: [row["body"] for row in rows(line)] == ["keep"])
step("rpc: a default argument given", lambda: alice.rpc("notes_of_kind", {"wanted": "idea", "newest_first": True}).execute(),
     lambda line: [row["body"] for row in rows(line)] == ["shipped"])
step("rpc: no arguments, a negative literal", lambda: carol.rpc("answer", {}).execute(), lambda line: rows(line) == -42)
step("rpc: security definer reads past carol's policies", lambda: carol.rpc("all_note_count", {}).execute(), lambda line: rows(line) == 2)
step("rpc: execute revoked from anon", lambda: create_client(url, anon).rpc("all_note_count", {}).execute(), error("42501"))
step("rpc: its rows filtered, ordered and limited", lambda: alice.rpc("notes_of_kind", {"wanted": "idea", "newest_first": False}).eq("team_id", red).order("id", desc=True).limit(1).execute(),
     lambda line: [row["body"] for row in rows(line)] == ["shipped"])
step("rpc: a filter on an unknown column", lambda: alice.rpc("notes_of_kind", {"wanted": "idea"}).eq("nope", 1).execute(), error("42703"))
service.table("team_links").insert({"id": 1, "team_id": red, "url": "https://example.com/red"}).execute()
step("a policy calling the app's helper, as bob", lambda: bob.table("team_links").select("url").execute(),
     lambda line: rows(line) == [{"url": "https://example.com/red"}])
step("the same, as carol", lambda: carol.table("team_links").select("url").execute(), lambda line: rows(line) == [])
step("the helper called alone", lambda: carol.rpc("is_team_member", {"team": blue}).execute(), lambda line: rows(line) is True)
step("rpc: an unknown function", lambda: alice.rpc("nope", {}).execute(), error("PGRST202"))
step("rpc: an unknown argument", lambda: alice.rpc("team_note_count", {"squad": red}).execute(), error("PGRST202"))
service.table("directory").insert({"id": 1, "name": "Ada", "secret": "s1"}).execute()
step("column grants: the granted columns", lambda: alice.table("directory").select("id,name").execute(), lambda line: rows(line) == [{"id": 1, "name": "Ada"}])
step("column grants: every column is refused", lambda: alice.table("directory").select("*").execute(), error("42501"))
step("column grants: a filter on a hidden column is refused", lambda: alice.table("directory").select("id").eq("secret", "s1").execute(), error("42501"))
step("a table nobody is granted", lambda: alice.table("audit").select("*").execute(), error("42501"))
step("service_role is granted it", lambda: service.table("audit").insert({"what": "ran"}).execute(), lambda line: rows(line)[0]["what"] == "ran")
step("an unknown table", lambda: alice.table("nope").select("*").execute(), error("PGRST205"))
step("alice deletes her note", lambda: alice.table("notes").delete().eq("id", note).execute(), lambda line: len(rows(line)) == 1)
step("the seed's todos still work", lambda: alice.table("todos").insert({"title": "milk"}).execute(), lambda line: rows(line)[0]["title"] == "milk")
# Last, as they change who belongs where: a row written is shown only when the caller may read it.
step("an owner adds a member, not asking for the row", lambda: alice.table("team_members").insert(
    {"team_id": red, "user_id": carol_id, "role": "member"}, returning=ReturnMethod.minimal).execute(), lambda line: rows(line) == [])
step("asking for a row the policies then hide is refused", lambda: alice.table("team_members").insert(
    {"team_id": red, "user_id": bob_id, "role": "owner"}, upsert=True).execute(), error("42501"))
step("a member cannot add members", lambda: bob.table("team_members").insert(
    {"team_id": blue, "user_id": bob_id, "role": "member"}, returning=ReturnMethod.minimal).execute(), error("42501"))
step("the new member reads red's notes", lambda: carol.table("notes").select("body").eq("team_id", red).order("id").execute(),
     lambda line: rows(line) == [{"body": "keep"}])
step("a device token with a newline after its hex breaks its check",
     lambda: alice.table("device_tokens").insert({"token": "00112233445566778899aabbccddeeff\n"}).execute(), error("23514"))
for subject, pattern, answer in [("two\nlines", "^two.lines$", True), ("abc\n", "^[a-z]+$", False), ("b\n", "b\\Z", False),
                                 ("two lines", "\\mlines\\y", True), ("a]b", "a[]]b", True), ("x9$", "[[:digit:]]$", False)]:
    step(f"a regular expression as Postgres reads it: {pattern!r} on {subject!r}",
         lambda subject=subject, pattern=pattern: alice.rpc("matches", {"subject": subject, "pattern": pattern}).execute(),
         lambda line, answer=answer: rows(line) is answer)
for doc, answer in [('{"a": true}', "true"), ('{"a": false}', "false"), ('{"a": 1.50}', "1.50"), ('{"a": -7}', "-7"),
                    ('{"a": "x"}', "x"), ('{"a": null}', None), ('{"b": 1}', None)]:
    step(f"->> is text: {doc}", lambda doc=doc: alice.rpc("json_member", {"doc": doc, "member": "a"}).execute(),
         lambda line, answer=answer: rows(line) == answer)
service.table("moments").insert([
    {"id": 1, "at": "2026-01-01T00:00:00Z", "shared": True, "mood": "happy"},
    {"id": 2, "at": "2026-01-02T00:00:00Z", "shared": True, "mood": "ok"},
    {"id": 3, "at": "2026-01-03T00:00:00Z", "shared": False, "mood": "happy"},
]).execute()
step("a policy's timestamp and boolean constants, as the columns' types", lambda: alice.table("moments").select("id").order("id").execute(),
     lambda line: rows(line) == [{"id": 2}])
step("a CHECK's enum order: sad is before ok", lambda: service.table("moments").insert(
    {"id": 4, "at": "2026-02-01T00:00:00Z", "mood": "sad"}, returning=ReturnMethod.minimal).execute(), error("23514"))
step("a CHECK's timestamp constant: an hour before is refused", lambda: service.table("moments").insert(
    {"id": 5, "at": "2025-12-31T23:00:00Z"}, returning=ReturnMethod.minimal).execute(), error("23514"))
step("an enum sorts by its labels' order", lambda: service.table("moments").select("id,mood").order("mood", desc=True).order("id").execute(),
     lambda line: [row["mood"] for row in rows(line)] == ["happy", "happy", "ok"])
step("an enum compares by its labels' order", lambda: service.table("moments").select("id").gt("mood", "ok").order("id").execute(),
     lambda line: rows(line) == [{"id": 1}, {"id": 3}])
step("ORDER BY an enum in SQL", lambda: alice.rpc("moods_in_order", {}).execute(), lambda line: rows(line) == ["ok", "happy", "happy"])
step("a function's timestamp constant in another zone", lambda: alice.rpc("moments_at_new_year", {}).execute(), lambda line: rows(line) == 1)
service.table("ranks").insert([{"id": 1, "n": None}, {"id": 2, "n": 5}, {"id": 3, "n": 7}]).execute()
service.table("rank_uses").insert({"id": 1, "rank_id": 2}).execute()
step("RETURNS TABLE names the body's columns by their place", lambda: service.rpc("doubled_ranks", {}).execute(),
     lambda line: rows(line) == [{"rank_id": 2, "twice": 10}, {"rank_id": 3, "twice": 14}])
step("ORDER BY puts NULLs last going up", lambda: service.rpc("lowest_rank", {}).execute(), lambda line: rows(line) == 5)
step("ORDER BY … DESC puts NULLs first", lambda: service.rpc("highest_rank", {}).execute(), lambda line: rows(line) is None)
step("a view's computed tests are booleans", lambda: service.table("rank_signs").select("*").order("id").execute(),
     lambda line: rows(line) == [{"id": 1, "missing": True, "positive": None}, {"id": 2, "missing": False, "positive": True},
                                 {"id": 3, "missing": False, "positive": True}])
step("and are filtered as booleans", lambda: service.table("rank_signs").select("id").eq("positive", True).order("id").execute(),
     lambda line: rows(line) == [{"id": 2}, {"id": 3}])
step("varchar(8) takes 8 characters", lambda: service.table("handles").insert({"id": 1, "handle": "ééééabcd"}, returning=ReturnMethod.minimal).execute(),
     lambda line: rows(line) == [])
step("and refuses 9", lambda: service.table("handles").insert({"id": 2, "handle": "abcdefghi"}, returning=ReturnMethod.minimal).execute(), error("22001"))
step("ON DELETE RESTRICT keeps a referenced row", lambda: service.table("ranks").delete().eq("id", 2).execute(), error("23503"))
for name, args, expect in [
    ("as_int", {"x": "42"}, lambda line: rows(line) == 42), ("as_int", {"x": "abc"}, error("22P02")),
    ("as_int", {"x": "3000000000"}, error("22003")), ("rounded", {"x": 2.5}, lambda line: rows(line) == 3),
    ("rounded", {"x": -2.5}, lambda line: rows(line) == -3), ("as_bool", {"x": "yes"}, lambda line: rows(line) is True),
    ("as_bool", {"x": "maybe"}, error("22P02")), ("ratio", {"a": -7, "b": 2}, lambda line: rows(line) == -3),
    ("ratio", {"a": 1, "b": 0}, error("22012")),
    ("part", {"x": "hello", "start": -1, "count": 3}, lambda line: rows(line) == "h"), ("part", {"x": "hello", "start": 2, "count": 3}, lambda line: rows(line) == "ell"),
    ("shift_date", {"d": "2026-02-27", "n": 2}, lambda line: rows(line) == "2026-03-01"),
    ("shift_date", {"d": "2026-03-01", "n": -1}, lambda line: rows(line) == "2026-02-28"),
    ("back_date", {"d": "2026-03-01", "n": 1}, lambda line: rows(line) == "2026-02-28"),
    ("days_between", {"a": "2026-03-01", "b": "2026-02-01"}, lambda line: rows(line) == 28),
    ("days_since_new_year", {}, lambda line: rows(line) == 0),
    ("recent_moments", {}, lambda line: rows(line) == 2), ("month_later_is_february", {}, lambda line: rows(line) is True),
    ("an_hour_ago_is_before_now", {}, lambda line: rows(line) is True),
    ("third", {}, lambda line: abs(rows(line) - 1 / 3) < 1e-12), ("moments_a_day_on", {}, lambda line: rows(line) == 2),
    ("middling_moments", {}, lambda line: rows(line) == 3), ("ranks_below", {"n": 100}, lambda line: rows(line) == 1),
    ("sign_text", {"x": 3}, lambda line: rows(line) == "true"), ("sign_text", {"x": -3}, lambda line: rows(line) == "false"),
    ("rest", {"x": "hello", "start": -1}, lambda line: rows(line) == "hello"), ("rest", {"x": "hello", "start": 4}, lambda line: rows(line) == "lo"),
]:
    step(f"{name}({args}) as on Postgres", lambda name=name, args=args: alice.rpc(name, args).execute(), expect)
print("ok")
