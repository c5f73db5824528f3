"""The console's live channel against a running server, with PyPI's websockets: only a signed-in
administrator's page, from the console's own origin, opens it; it joins `console:sends` and
nothing of the app's; a send composed in the console arrives there as it is delivered; an app
user cannot join the console's topic on the API's socket.

Usage: console_live.py CONSOLE_ORIGIN COOKIE CSRF API_URL ANON_KEY USER_TOKEN
Prints "ok" when every step holds; otherwise the failed step, and exits 1.
"""
import asyncio
import json
import sys

import httpx
import websockets
from peer import expect

console, cookie, csrf, api, anon, user_token = sys.argv[1:7]
live_url = console.replace("http", "ws", 1) + "/console/api/realtime?vsn=1.0.0"


async def refused(status, **options):
    try:
        async with websockets.connect(live_url, **options):
            expect(False, f"opened with {options}")
    except websockets.exceptions.InvalidStatus as error:
        expect(error.response.status_code == status, f"{options}: {error.response.status_code}, not {status}")


async def reply(socket, ref):
    """The reply to `ref`, skipping what else arrives meanwhile."""
    while True:
        message = json.loads(await asyncio.wait_for(socket.recv(), 10))
        if message["event"] == "phx_reply" and message["ref"] == ref:
            return message["payload"]


async def join(socket, topic, ref, config, token=None):
    payload = {"config": config}
    if token:
        payload["access_token"] = token
    await socket.send(json.dumps({"topic": "realtime:" + topic, "event": "phx_join", "payload": payload, "ref": ref, "join_ref": ref}))
    return await reply(socket, ref)


async def main():
    await refused(401, origin=console)
    await refused(403, origin="http://elsewhere.example", additional_headers={"cookie": cookie})
    await refused(403, additional_headers={"cookie": cookie})

    async with websockets.connect(live_url, origin=console, additional_headers={"cookie": cookie}) as socket:
        joined = await join(socket, "console:sends", "1", {"broadcast": {"self": False}, "private": True})
        expect(joined["status"] == "ok", f"the console joins its topic: {joined}")
        other = await join(socket, "room-of-the-app", "2", {"private": True})
        expect(other["status"] == "error" and "joins only console:sends" in json.dumps(other), f"nothing of the app's: {other}")
        unknown = await join(socket, "console:users", "4", {"private": True})
        expect(unknown["status"] == "error" and "no topic" in json.dumps(unknown), f"no other console topic: {unknown}")
        changes = await join(socket, "todos-feed", "3", {"postgres_changes": [{"event": "*", "schema": "public", "table": "todos"}]})
        expect(changes["status"] == "error" and "follows no table" in json.dumps(changes), f"no table: {changes}")

        sent = httpx.post(console + "/console/api/compose", headers={"cookie": cookie, "x-csrf-token": csrf, "origin": console},
                          json={"audience": "all", "title": "Live", "body": "As it happens"})
        expect(sent.status_code == 202, f"composed: {sent.text}")
        send_id = sent.json()["send_id"]
        # Each change of the send's progress arrives; a loaded test machine may take its time to
        # deliver, so the wait is long and a failure says what was seen last.
        delivered, seen, deadline = None, None, asyncio.get_running_loop().time() + 45
        while delivered is None:
            left = deadline - asyncio.get_running_loop().time()
            expect(left > 0, f"the send's delivery never arrived on the channel; last seen: {seen}")
            try:
                message = json.loads(await asyncio.wait_for(socket.recv(), left))
            except asyncio.TimeoutError:
                expect(False, f"the send's delivery never arrived on the channel; last seen: {seen}")
            if message["event"] == "broadcast" and message["payload"]["event"] == "sends":
                row = next((s for s in message["payload"]["payload"] if s["send_id"] == send_id), None)
                seen = row or seen
                if row and row["pending"] == 0 and row["delivered"] == 1:
                    delivered = row
        expect(delivered["total"] == 1, f"the send's progress: {delivered}")

    async with websockets.connect(f"{api.replace('http', 'ws', 1)}/realtime/v1/websocket?apikey={anon}&vsn=1.0.0") as socket:
        app = await join(socket, "console:sends", "1", {"private": True}, token=user_token)
        expect(app["status"] == "error" and "console's" in json.dumps(app), f"an app user may not join: {app}")
    print("ok")


asyncio.run(main())
