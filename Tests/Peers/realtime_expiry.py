"""A channel joined with a user's access token is closed, saying why, when the token runs out.
Run against `soar serve` with GOTRUE_JWT_EXP=2.

Usage: realtime_expiry.py URL ANON_KEY
Prints "ok", or the failed step and exits 1.
"""
import asyncio
import json
import sys
import uuid

import httpx
import websockets
from peer import expect

url, anon = sys.argv[1], sys.argv[2]


async def main():
    session = httpx.post(f"{url}/auth/v1/signup", headers={"apikey": anon},
                         json={"email": f"exp-{uuid.uuid4().hex[:8]}@example.com", "password": "a-password"}).json()
    ws = await websockets.connect(url.replace("http", "ws", 1) + f"/realtime/v1/websocket?apikey={anon}&vsn=1.0.0")
    await ws.send(json.dumps({"topic": "realtime:mine", "event": "phx_join", "ref": "1", "join_ref": "1",
                              "payload": {"config": {}, "access_token": session["access_token"]}}))
    joined = json.loads(await asyncio.wait_for(ws.recv(), 5))
    expect(joined["payload"]["status"] == "ok", f"join: {joined}")
    # No message from the client meanwhile: the server closes the channel on its own at expiry.
    system = json.loads(await asyncio.wait_for(ws.recv(), 6))
    expect(system["event"] == "system" and system["payload"]["status"] == "error" and "expired" in system["payload"]["message"], f"system: {system}")
    closed = json.loads(await asyncio.wait_for(ws.recv(), 5))
    expect(closed["event"] == "phx_close" and closed["topic"] == "realtime:mine", f"close: {closed}")
    await ws.send(json.dumps({"topic": "phoenix", "event": "heartbeat", "payload": {}, "ref": "2"}))
    expect(json.loads(await asyncio.wait_for(ws.recv(), 5))["payload"]["status"] == "ok", "the socket stays")
    print("ok")


asyncio.run(main())
