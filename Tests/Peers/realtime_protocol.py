"""Realtime's protocol edges against a running `soar serve`, with PyPI's websockets: both
serializers, heartbeats, refused joins, bad frames, limits, and that a bad socket never disturbs
a good one.

Usage: realtime_protocol.py URL ANON_KEY
Prints "ok" when each case is answered as the protocol says; otherwise the failed case, and exits 1.
"""
import asyncio
import json
import socket
import sys

import httpx
import websockets
from peer import expect

url, anon = sys.argv[1], sys.argv[2]
ws_url = url.replace("http", "ws", 1) + "/realtime/v1/websocket"


async def connect(vsn="1.0.0"):
    return await websockets.connect(f"{ws_url}?apikey={anon}&vsn={vsn}", max_size=4 << 20)


async def next_message(ws):
    return json.loads(await asyncio.wait_for(ws.recv(), 5))


async def main():
    # The HTTP doors: no upgrade, no key, an unknown serializer.
    expect(httpx.get(f"{ws_url}?apikey={anon}").status_code == 426, "a plain GET is told to upgrade")
    try:
        await websockets.connect(f"{ws_url}?vsn=1.0.0")
        expect(False, "no API key is refused")
    except websockets.InvalidStatus as error:
        expect(error.response.status_code == 401, f"no key: {error.response.status_code}")
    try:
        await websockets.connect(f"{ws_url}?apikey={anon}&vsn=9.9.9")
        expect(False, "an unknown vsn is refused")
    except websockets.InvalidStatus as error:
        expect(error.response.status_code == 400, f"vsn: {error.response.status_code}")

    # vsn 1.0.0: heartbeat, join, a second join of the same topic, an unknown event.
    good = await connect()
    await good.send(json.dumps({"topic": "phoenix", "event": "heartbeat", "payload": {}, "ref": "7"}))
    beat = await next_message(good)
    expect(beat["event"] == "phx_reply" and beat["ref"] == "7" and beat["payload"]["status"] == "ok", f"heartbeat: {beat}")
    await good.send(json.dumps({"topic": "realtime:a", "event": "phx_join", "payload": {"config": {}}, "ref": "1", "join_ref": "1"}))
    joined = await next_message(good)
    expect(joined["payload"]["status"] == "ok" and joined["ref"] == "1", f"join: {joined}")
    await good.send(json.dumps({"topic": "realtime:a", "event": "phx_join", "payload": {"config": {}}, "ref": "2", "join_ref": "2"}))
    twice = await next_message(good)
    expect(twice["payload"]["status"] == "error" and twice["ref"] == "2", f"joined twice: {twice}")
    await good.send(json.dumps({"topic": "realtime:a", "event": "dance", "payload": {}, "ref": "3"}))
    unknown = await next_message(good)
    expect(unknown["payload"]["status"] == "error" and "dance" in unknown["payload"]["response"]["reason"], f"unknown event: {unknown}")
    # Topics are realtime: and a printable name: others are refused, saying so.
    for ref, topic in enumerate(["team", "realtime:", "realtime:team\u0000zzz", "realtime:" + "x" * 300]):
        await good.send(json.dumps({"topic": topic, "event": "phx_join", "payload": {"config": {}}, "ref": f"t{ref}", "join_ref": f"t{ref}"}))
        answer = await next_message(good)
        expect(answer["payload"]["status"] == "error" and "unmatched topic" in answer["payload"]["response"]["reason"], f"topic {topic[:20]!r}: {answer}")
    # A token that is not valid: the join is refused, saying why.
    await good.send(json.dumps({"topic": "realtime:b", "event": "phx_join", "payload": {"config": {}, "access_token": "not.a.jwt"}, "ref": "4", "join_ref": "4"}))
    bad_token = await next_message(good)
    expect(bad_token["payload"]["status"] == "error" and "JWT" in bad_token["payload"]["response"]["reason"], f"bad token: {bad_token}")

    # vsn 2.0.0: arrays both ways, refs as strings.
    v2 = await connect("2.0.0")
    await v2.send(json.dumps(["1", "1", "realtime:a", "phx_join", {"config": {"broadcast": {"self": True}}}]))
    reply = await next_message(v2)
    expect(reply[:4] == ["1", "1", "realtime:a", "phx_reply"] and reply[4]["status"] == "ok", f"v2 join: {reply}")
    await v2.send(json.dumps(["1", "2", "realtime:a", "broadcast", {"type": "broadcast", "event": "e", "payload": {"n": 1}}]))
    echoed = await next_message(v2)
    expect(echoed[3] == "broadcast" and echoed[4]["payload"] == {"n": 1}, f"v2 broadcast to self: {echoed}")
    heard = await next_message(good)
    expect(heard["event"] == "broadcast" and heard["payload"]["event"] == "e", f"v1 hears v2: {heard}")

    # vsn 2.0.0 binary broadcasts (kind 3 in, kind 4 out), as supabase-swift and supabase-js send
    # them: JSON (encoding 1) and bytes (encoding 0); a vsn 1.0.0 member hears them as text.
    def push(event, payload, encoding, ref="9"):
        fields = [b"1", ref.encode(), b"realtime:a", event.encode(), b""]
        return bytes([3] + [len(f) for f in fields] + [encoding]) + b"".join(fields) + payload
    await v2.send(push("j", b'{"n": 2}', 1))
    frame = await asyncio.wait_for(v2.recv(), 5)
    expect(isinstance(frame, bytes) and frame[0] == 4 and frame[4] == 1, f"kind 4, JSON: {frame!r}")
    topic_len, event_len, meta_len = frame[1], frame[2], frame[3]
    body = frame[5 + topic_len + event_len + meta_len:]
    expect(frame[5:5 + topic_len] == b"realtime:a" and frame[5 + topic_len:5 + topic_len + event_len] == b"j" and json.loads(body) == {"n": 2}, f"delivery: {frame!r}")
    heard = await next_message(good)
    expect(heard["payload"] == {"type": "broadcast", "event": "j", "payload": {"n": 2}}, f"v1 hears a binary JSON broadcast: {heard}")
    await v2.send(push("b", bytes([0, 255, 7]), 0))
    frame = await asyncio.wait_for(v2.recv(), 5)
    expect(frame[0] == 4 and frame[4] == 0 and frame.endswith(bytes([0, 255, 7])), f"kind 4, bytes: {frame!r}")
    heard = await next_message(good)
    expect(heard["payload"]["payload"] == {"binary": "AP8H"}, f"v1 hears bytes as base64: {heard}")
    await good.send(b"\x03binary on vsn 1")
    told = await next_message(good)
    expect(told["event"] == "phx_error" and "vsn=2.0.0" in told["payload"]["reason"], f"binary on v1: {told}")
    broken = await connect("2.0.0")
    await broken.send(bytes([3, 9, 9, 9, 9, 9, 1]) + b"short")
    try:
        await asyncio.wait_for(broken.recv(), 5)
        expect(False, "a short binary frame closes its socket")
    except websockets.ConnectionClosed as closed:
        expect(closed.rcvd and closed.rcvd.code == 1007, f"short binary frame: {closed.rcvd}")

    # Channels per socket: the 101st join is refused.
    many = await connect()
    for batch in range(2):  # 50 joins a second at most
        for index in range(batch * 50, batch * 50 + 50):
            await many.send(json.dumps({"topic": f"realtime:c{index}", "event": "phx_join", "payload": {"config": {}}, "ref": str(index), "join_ref": str(index)}))
        for _ in range(50):
            expect((await next_message(many))["payload"]["status"] == "ok", "100 joins")
        await asyncio.sleep(1.05)
    await many.send(json.dumps({"topic": "realtime:c100", "event": "phx_join", "payload": {"config": {}}, "ref": "x", "join_ref": "x"}))
    refused = await next_message(many)
    expect(refused["payload"]["status"] == "error" and "Too many channels" in refused["payload"]["response"]["reason"], f"101st: {refused}")

    # A flood: past 100 messages a second the socket is told so, and served again the next second.
    flood = await connect()
    for index in range(150):
        await flood.send(json.dumps({"topic": "phoenix", "event": "heartbeat", "payload": {}, "ref": str(index)}))
    answers = [await next_message(flood) for _ in range(150)]
    limited = [a for a in answers if a["payload"]["status"] == "error"]
    expect(limited and "Too many messages per second" in limited[0]["payload"]["response"]["reason"], f"flood: {answers[-1]}")
    await asyncio.sleep(1.05)
    await flood.send(json.dumps({"topic": "phoenix", "event": "heartbeat", "payload": {}, "ref": "after"}))
    expect((await next_message(flood))["payload"]["status"] == "ok", "served again after the flood")

    # Bad frames close only their own socket: not JSON (1007), over 1 MB (1009), unmasked (1002).
    garbage = await connect()
    await garbage.send("this is not json")
    try:
        await asyncio.wait_for(garbage.recv(), 5)
    except websockets.ConnectionClosed as closed:
        expect(closed.rcvd and closed.rcvd.code == 1007, f"garbage: {closed.rcvd}")
    big = await connect()
    await big.send("x" * ((1 << 20) + 1))
    try:
        await asyncio.wait_for(big.recv(), 5)
    except websockets.ConnectionClosed as closed:
        expect(closed.rcvd and closed.rcvd.code == 1009, f"oversized: {closed.rcvd}")
    host, port = url.split("//")[1].split(":")
    raw = socket.create_connection((host, int(port)))
    raw.sendall((f"GET /realtime/v1/websocket?apikey={anon}&vsn=1.0.0 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = raw.recv(4096)
    expect(head.startswith(b"HTTP/1.1 101") and b"s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" in head, f"the handshake: {head[:200]}")
    raw.sendall(bytes([0x81, 0x02]) + b"{}")  # a client frame without a mask
    raw.settimeout(5)
    answer = b""
    while len(answer) < 4:
        part = raw.recv(64)
        if not part:
            break
        answer += part
    expect(answer[:1] == b"\x88" and int.from_bytes(answer[2:4], "big") == 1002, f"unmasked: {answer}")
    raw.close()

    # The good socket is still served.
    await good.send(json.dumps({"topic": "phoenix", "event": "heartbeat", "payload": {}, "ref": "8"}))
    expect((await next_message(good))["ref"] == "8", "the good socket still answers")
    print("ok")


asyncio.run(main())
