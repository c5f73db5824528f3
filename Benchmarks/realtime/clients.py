"""The realtime benchmark's clients: N sockets on one `soar serve`, a broadcast from the server
to all of them (latency of each delivery), then inserts at a fixed rate, each delivered to its
owner's postgres_changes subscription (latency of each). Prints JSON.

Usage: clients.py broadcast|inserts|follow URL ANON SERVICE SOCKETS USERS INSERTS_PER_SECOND SECONDS
(`follow`: USERS users each following their own todos, the first one's token printed, until a
line arrives on standard input.)
Each phase runs in a process of its own, so that the inserts' figures are not the broadcast
sockets' load on this side.
"""
import asyncio
import json
import os
import statistics
import sys
import time
import uuid

import httpx
import websockets

phase = sys.argv[1]
url, anon, service = sys.argv[2:5]
sockets, users, rate, seconds = (int(x) for x in sys.argv[5:9])
ws_url = url.replace("http", "ws", 1) + f"/realtime/v1/websocket?apikey={anon}&vsn=1.0.0"


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * p))] if ordered else None


async def listener(ready, latencies, topic, token=None, config=None):
    ws = await websockets.connect(ws_url, max_queue=None, ping_interval=None)
    payload = {"config": config or {}}
    if token:
        payload["access_token"] = token
    await ws.send(json.dumps({"topic": topic, "event": "phx_join", "payload": payload, "ref": "1", "join_ref": "1"}))
    reply = json.loads(await ws.recv())
    assert reply["payload"]["status"] == "ok", reply
    ready.release()

    async def heartbeat():
        while True:
            await asyncio.sleep(25)
            await ws.send(json.dumps({"topic": "phoenix", "event": "heartbeat", "payload": {}, "ref": "h"}))

    beats = asyncio.create_task(heartbeat())
    try:
        async for raw in ws:
            message = json.loads(raw)
            now = time.time()
            if message["event"] == "broadcast":
                latencies.append(now - message["payload"]["payload"]["sent"])
            elif message["event"] == "postgres_changes":
                latencies.append(now - float(message["payload"]["data"]["record"]["title"]))
    except websockets.ConnectionClosed:
        pass
    finally:
        beats.cancel()


async def broadcast_phase():
    result = {}
    http = httpx.AsyncClient(timeout=30)
    ready = asyncio.Semaphore(0)
    broadcast_latencies = []
    started = time.time()
    tasks = []
    for index in range(sockets):
        tasks.append(asyncio.create_task(listener(ready, broadcast_latencies, "realtime:bench")))
        if index % 200 == 199:
            for _ in range(200):
                await ready.acquire()
    for _ in range(sockets % 200):
        await ready.acquire()
    result["connect_seconds"] = round(time.time() - started, 1)
    print(json.dumps({"sockets_open": sockets}), flush=True)
    sys.stdin.readline()  # the runner reads the server's memory now

    rounds = []
    for _ in range(5):
        broadcast_latencies.clear()
        answer = await http.post(f"{url}/realtime/v1/api/broadcast", headers={"apikey": service, "authorization": f"Bearer {service}"},
                                 json={"messages": [{"topic": "bench", "event": "tick", "payload": {"sent": time.time()}}]})
        assert answer.status_code == 202, answer.text
        for _ in range(600):
            if len(broadcast_latencies) >= sockets:
                break
            await asyncio.sleep(0.02)
        rounds.append({"delivered": len(broadcast_latencies), "p50_ms": round(1000 * statistics.median(broadcast_latencies), 1),
                       "p99_ms": round(1000 * percentile(broadcast_latencies, 0.99), 1), "max_ms": round(1000 * max(broadcast_latencies), 1)})
    result["broadcast"] = rounds
    print(json.dumps(result), flush=True)
    os._exit(0)  # the sockets close with the process


async def inserts_phase():
    result = {}
    http = httpx.AsyncClient(timeout=30)
    tasks = []
    # Inserts: USERS users, each with a socket following its own todos.
    change_latencies = []
    tokens, ids = [], []
    for index in range(users):
        session = (await http.post(f"{url}/auth/v1/signup", headers={"apikey": anon},
                                   json={"email": f"bench-{uuid.uuid4().hex[:10]}@example.com", "password": "bench-password"})).json()
        tokens.append(session["access_token"])
        ids.append(session["user"]["id"])
    ready = asyncio.Semaphore(0)
    for index, token in enumerate(tokens):
        # Each follows its own rows, with the filter an app would use.
        config = {"postgres_changes": [{"event": "INSERT", "schema": "public", "table": "todos", "filter": f"user_id=eq.{ids[index]}"}]}
        tasks.append(asyncio.create_task(listener(ready, change_latencies, f"realtime:todos-{index}", token, config)))
    for _ in tokens:
        await ready.acquire()
    sent = 0
    begun = time.time()

    # The inserts go over plain keep-alive HTTP/1.1 connections (httpx cannot keep 1,000 a second).
    host, port = url.split("//")[1].split(":")
    queue: asyncio.Queue = asyncio.Queue()
    statuses = []

    async def connection():
        reader, writer = await asyncio.open_connection(host, int(port))
        while True:
            token = await queue.get()
            if token is None:
                writer.close()
                return
            body = json.dumps({"title": repr(time.time())}).encode()
            writer.write((f"POST /rest/v1/todos HTTP/1.1\r\nHost: x\r\napikey: {anon}\r\nAuthorization: Bearer {token}\r\n"
                          f"Prefer: return=minimal\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
            head = await reader.readuntil(b"\r\n\r\n")
            statuses.append(int(head.split(b" ")[1]))
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")), 0)
            if length:
                await reader.readexactly(length)

    workers = [asyncio.create_task(connection()) for _ in range(32)]
    while time.time() - begun < seconds:
        due = int((time.time() - begun) * rate)
        while sent < due:
            queue.put_nowait(tokens[sent % users])
            sent += 1
        await asyncio.sleep(0.002)
    for _ in workers:
        queue.put_nowait(None)
    await asyncio.gather(*workers)
    for _ in range(500):
        if len(change_latencies) >= sent:
            break
        await asyncio.sleep(0.02)
    result["inserts"] = {"sent": sent, "created": sum(1 for status in statuses if status == 201), "rate_per_second": round(sent / seconds),
                         "delivered": len(change_latencies), "p50_ms": round(1000 * statistics.median(change_latencies), 1),
                         "p99_ms": round(1000 * percentile(change_latencies, 0.99), 1)}
    print(json.dumps(result), flush=True)
    os._exit(0)


async def follow_phase():
    http = httpx.AsyncClient(timeout=30)
    tokens = []
    ready = asyncio.Semaphore(0)
    received = []
    for index in range(users):
        session = (await http.post(f"{url}/auth/v1/signup", headers={"apikey": anon},
                                   json={"email": f"follow-{uuid.uuid4().hex[:10]}@example.com", "password": "bench-password"})).json()
        tokens.append(session["access_token"])
        config = {"postgres_changes": [{"event": "INSERT", "schema": "public", "table": "todos", "filter": f"user_id=eq.{session['user']['id']}"}]}
        asyncio.create_task(listener(ready, received, f"realtime:follow-{index}", session["access_token"], config))
    for _ in tokens:
        await ready.acquire()
    print(tokens[0], flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    print(len(received), flush=True)
    os._exit(0)


asyncio.run({"broadcast": broadcast_phase, "inserts": inserts_phase, "follow": follow_phase}[phase]())
