"""Realtime broadcast and presence against a running `soar serve`, through PyPI's realtime client
(what supabase-py uses), with its default serializer (vsn 1.0.0).

Usage: realtime_e2e.py URL ANON_KEY SERVICE_ROLE_KEY
Prints "ok" when every step behaves as Supabase Realtime; otherwise the failed step, and exits 1.
"""
import asyncio
import sys

import httpx
from realtime import AsyncRealtimeClient, RealtimeSubscribeStates
from peer import expect, until

url, anon, service = sys.argv[1], sys.argv[2], sys.argv[3]


async def subscribed(channel):
    states = []
    await channel.subscribe(lambda state, error: states.append((state, error)))
    expect(states and states[-1][0] == RealtimeSubscribeStates.SUBSCRIBED, f"subscribed: {states}")
    return channel


async def main():
    ada = AsyncRealtimeClient(f"{url}/realtime/v1", anon, auto_reconnect=False)
    bob = AsyncRealtimeClient(f"{url}/realtime/v1", anon, auto_reconnect=False)
    await ada.connect()
    await bob.connect()
    metrics = httpx.get(f"{url}/metrics", headers={"apikey": service, "authorization": f"Bearer {service}"}).text
    expect("soar_realtime_sockets 2" in metrics, f"/metrics counts the sockets: {[l for l in metrics.splitlines() if 'realtime' in l]}")

    # Broadcast: client to client; the sender hears itself only with `self`; `ack` confirms.
    heard_by_ada, heard_by_bob = [], []
    ada_room = ada.channel("room-1", {"config": {"broadcast": {"self": True, "ack": True}, "presence": {"key": "ada"}}})
    ada_room.on_broadcast("greet", lambda message: heard_by_ada.append(message))
    bob_room = bob.channel("room-1", {"config": {"broadcast": {"self": False}, "presence": {"key": "bob"}}})
    bob_room.on_broadcast("greet", lambda message: heard_by_bob.append(message))
    await subscribed(ada_room)
    await subscribed(bob_room)
    await ada_room.send_broadcast("greet", {"text": "hi"})
    await until(lambda: heard_by_bob and heard_by_ada, f"broadcast heard: ada {heard_by_ada} bob {heard_by_bob}")
    expect(heard_by_bob[0]["payload"] == {"text": "hi"} and heard_by_bob[0]["event"] == "greet", f"payload: {heard_by_bob}")
    await bob_room.send_broadcast("greet", {"text": "hello"})
    await until(lambda: len(heard_by_ada) == 2, "ada hears bob")
    await asyncio.sleep(0.2)
    expect(len(heard_by_bob) == 1, f"bob does not hear himself: {heard_by_bob}")

    # Presence: tracked state reaches both, and leaves when a socket goes.
    await ada_room.track({"status": "online"})
    await bob_room.track({"status": "away"})
    await until(lambda: set(ada_room.presence_state()) == {"ada", "bob"} and set(bob_room.presence_state()) == {"ada", "bob"},
                f"presence: {ada_room.presence_state()} / {bob_room.presence_state()}")
    expect(ada_room.presence_state()["bob"][0]["status"] == "away", f"metas: {ada_room.presence_state()}")
    await bob.close()
    await until(lambda: set(ada_room.presence_state()) == {"ada"}, f"bob left: {ada_room.presence_state()}")

    # From the server side, with the service_role key.
    sent = httpx.post(f"{url}/realtime/v1/api/broadcast", headers={"apikey": service, "authorization": f"Bearer {service}"},
                      json={"messages": [{"topic": "room-1", "event": "greet", "payload": {"text": "from the server"}}]})
    expect(sent.status_code == 202, f"server broadcast: {sent.status_code} {sent.text}")
    await until(lambda: len(heard_by_ada) == 3 and heard_by_ada[-1]["payload"]["text"] == "from the server", f"server broadcast heard: {heard_by_ada}")
    anon_send = httpx.post(f"{url}/realtime/v1/api/broadcast", headers={"apikey": anon}, json={"messages": []})
    expect(anon_send.status_code == 403, f"the anon key may not broadcast from the server: {anon_send.status_code}")

    # postgres_changes on a table outside the supabase_realtime publication: refused out loud.
    changes = ada.channel("todos")
    changes.on_postgres_changes("*", schema="public", table="todos", callback=lambda change: None)
    states = []
    await changes.subscribe(lambda state, error: states.append((state, error)))
    expect(states and states[-1][0] == RealtimeSubscribeStates.CHANNEL_ERROR and "supabase_realtime publication" in str(states[-1][1]), f"refused: {states}")
    await ada.close()
    print("ok")


asyncio.run(main())
