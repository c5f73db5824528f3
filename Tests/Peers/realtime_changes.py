"""postgres_changes against a running `soar serve` whose migrations add `todos` to the
supabase_realtime publication, through supabase-py (auth, data) and its realtime client: a user's
own changes arrive, another user's never do (only a deleted row's key), filters hold, a table
outside the publication or one that does not exist is refused out loud, and a bad new token
closes the channel.

Usage: realtime_changes.py URL ANON_KEY [DATA_URL DATABASE_URL]
With DATA_URL (another process on the same Postgres database), sign-ups and writes go there while
the subscriptions stay on URL. With DATABASE_URL, a transaction held open in psql commits after a
later one: its change still arrives.
Prints "ok" when every step behaves as Supabase Realtime; otherwise the failed step, and exits 1.
"""
import asyncio
import subprocess
import sys
import uuid

import httpx
from realtime import AsyncRealtimeClient, RealtimeSubscribeStates
from supabase import create_client
from peer import expect, until

url, anon = sys.argv[1], sys.argv[2]
data_url = sys.argv[3] if len(sys.argv) > 3 else url
database_url = sys.argv[4] if len(sys.argv) > 4 else None


def user():
    client = create_client(data_url, anon)
    session = client.auth.sign_up({"email": f"rt-{uuid.uuid4().hex[:8]}@example.com", "password": "a-password"}).session
    return client, session.access_token


async def follow(token, topic, received, **binding):
    socket = AsyncRealtimeClient(f"{url}/realtime/v1", anon, auto_reconnect=False)
    await socket.connect()
    await socket.set_auth(token)
    channel = socket.channel(topic)
    channel.on_postgres_changes(binding.pop("event", "*"), schema="public", callback=lambda change: received.append(change["data"]), **binding)
    states = []
    await channel.subscribe(lambda state, error: states.append((state, error)))
    return socket, channel, states


async def main():
    ada, ada_token = user()
    bob, bob_token = user()
    ada_changes, bob_changes, special = [], [], []
    ada_socket, _, states = await follow(ada_token, "ada-todos", ada_changes, table="todos")
    expect(states[-1][0] == RealtimeSubscribeStates.SUBSCRIBED, f"ada subscribed: {states}")
    bob_socket, bob_channel, states = await follow(bob_token, "bob-todos", bob_changes, table="todos")
    expect(states[-1][0] == RealtimeSubscribeStates.SUBSCRIBED, f"bob subscribed: {states}")
    _, _, states = await follow(ada_token, "ada-special", special, table="todos", filter="title=eq.special")
    expect(states[-1][0] == RealtimeSubscribeStates.SUBSCRIBED, f"filtered subscribed: {states}")

    # Ada's insert, update and delete reach her, with the record as the data API reads it.
    row = ada.table("todos").insert({"title": "first"}).execute().data[0]
    await until(lambda: ada_changes, "ada's insert arrives")
    insert = ada_changes[0]
    expect(insert["type"] == "INSERT" and insert["table"] == "todos" and insert["record"]["title"] == "first" and insert["record"]["id"] == row["id"], f"insert: {insert}")
    expect(insert["record"]["completed"] is False and any(c["name"] == "title" for c in insert["columns"]) and insert["commit_timestamp"], f"shape: {insert}")
    ada.table("todos").update({"completed": True}).eq("id", row["id"]).execute()
    await until(lambda: len(ada_changes) >= 2, "ada's update arrives")
    expect(ada_changes[1]["type"] == "UPDATE" and ada_changes[1]["record"]["completed"] is True and ada_changes[1]["old_record"] == {"id": row["id"]}, f"update: {ada_changes[1]}")
    ada.table("todos").insert({"title": "special"}).execute()
    await until(lambda: special, "the filtered channel hears its row")
    expect(len(special) == 1 and special[0]["record"]["title"] == "special", f"filter: {special}")
    ada.table("todos").delete().eq("id", row["id"]).execute()
    await until(lambda: any(c["type"] == "DELETE" for c in ada_changes), "ada's delete arrives")
    deleted = next(c for c in ada_changes if c["type"] == "DELETE")
    expect(deleted["old_record"] == {"id": row["id"]} and not deleted.get("record"), f"delete: {deleted}")

    # Bob never sees Ada's rows: only the key of one deleted, as Supabase sends it.
    await asyncio.sleep(0.3)
    expect(all(c["type"] == "DELETE" and set(c["old_record"]) == {"id"} and not c.get("record") for c in bob_changes), f"bob: {bob_changes}")
    bob.table("todos").insert({"title": "bob's"}).execute()
    await until(lambda: any(c.get("record", {}).get("title") == "bob's" for c in bob_changes), "bob's own insert arrives")
    expect(not any(c.get("record", {}).get("title") == "bob's" for c in ada_changes), "ada does not see bob's")

    # Refused out loud: a table outside the publication, one that does not exist, a bad filter.
    for binding, reason in [({"table": "profiles"}, "supabase_realtime publication"), ({"table": "nothing"}, "does not exist"),
                            ({"table": "todos", "filter": "title=like.x"}, "filter must be")]:
        socket, _, states = await follow(ada_token, f"refused-{uuid.uuid4().hex[:6]}", [], **binding)
        expect(states[-1][0] == RealtimeSubscribeStates.CHANNEL_ERROR and reason in str(states[-1][1]), f"{binding}: {states}")
        await socket.close()

    if database_url:
        await late_commit(ada, ada_changes)

    # A bad new token closes the channel.
    await bob_socket.set_auth("not.a.token")
    await until(lambda: bob_channel.is_closed or bob_channel.is_errored, "a bad token closes the channel")
    await ada_socket.close()
    await bob_socket.close()
    print("ok")


async def late_commit(ada, changes):
    """A transaction takes its change's id first and commits last: the change still arrives."""
    ada_id = ada.auth.get_user().user.id
    held = subprocess.Popen(["psql", database_url, "-q", "-v", "ON_ERROR_STOP=1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    held.stdin.write(f"BEGIN;\nINSERT INTO todos (user_id, title) VALUES ('{ada_id}', 'held back');\n\\echo inserted\n")
    held.stdin.flush()
    expect(held.stdout.readline().strip() == "inserted", "psql inserted in its open transaction")
    ada.table("todos").insert({"title": "committed first"}).execute()
    await until(lambda: any(c.get("record", {}).get("title") == "committed first" for c in changes), "the later insert arrives")
    held.stdin.write("COMMIT;\n")
    held.stdin.close()
    expect(held.wait(timeout=10) == 0, "psql committed")
    await until(lambda: any(c.get("record", {}).get("title") == "held back" for c in changes), "the change committed last arrives too")


asyncio.run(main())
