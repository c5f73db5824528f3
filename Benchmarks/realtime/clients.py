"""The realtime benchmark's clients: N sockets on one `soar serve`, a broadcast from the server
to all of them (latency of each delivery), then inserts at a fixed rate, each delivered to its
owner's postgres_changes subscription (latency of each). Prints JSON.

Usage: clients.py URL ANON SERVICE SOCKETS USERS INSERTS_PER_SECOND SECONDS
"""
import asyncio
import json
import statistics
import sys
import time
import uuid

import httpx
import websockets

url, anon, service = sys.argv[1:4]
sockets, users, rate, seconds = (int(x) for x in sys.argv[4:8])
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


async def main():
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
    # The broadcast sockets go: the inserts' figures are the feed's, not this process's load.
    for task in tasks:
        task.cancel()
    tasks = []
    await asyncio.sleep(1)

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
    inserts = []

    async def insert(token):
        answer = await http.post(f"{url}/rest/v1/todos", headers={"apikey": anon, "authorization": f"Bearer {token}", "prefer": "return=minimal"},
                                 json={"title": repr(time.time())})
        return answer.status_code

    while time.time() - begun < seconds:
        due = int((time.time() - begun) * rate)
        while sent < due:
            inserts.append(asyncio.create_task(insert(tokens[sent % users])))
            sent += 1
        await asyncio.sleep(0.002)
    statuses = await asyncio.gather(*inserts)
    for _ in range(500):
        if len(change_latencies) >= sent:
            break
        await asyncio.sleep(0.02)
    result["inserts"] = {"sent": sent, "created": sum(1 for s in statuses if s == 201), "rate_per_second": round(sent / seconds),
                         "delivered": len(change_latencies), "p50_ms": round(1000 * statistics.median(change_latencies), 1),
                         "p99_ms": round(1000 * percentile(change_latencies, 0.99), 1)}
    print(json.dumps(result), flush=True)
    for task in tasks:
        task.cancel()
    await http.aclose()


asyncio.run(main())
