"""Sends notifications with the PyPI aioapns client: a real APNs provider the project did not write.

Used by the emulator's tests and by Benchmarks/apns. Prints one JSON summary line.
"""
import argparse
import asyncio
import json
import logging
import ssl
import sys
import time

from aioapns import APNs, NotificationRequest
from aioapns.connection import APNsProductionClientProtocol


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--ca", required=True)
    p.add_argument("--key-file", required=True)
    p.add_argument("--key-id", required=True)
    p.add_argument("--team-id", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--token", action="append", required=True)
    p.add_argument("--count", type=int, default=10)
    p.add_argument("--connections", type=int, default=4)
    p.add_argument("--in-flight", type=int, default=1000)
    return p.parse_args()


async def main(args):
    logging.getLogger("aioapns").setLevel(logging.CRITICAL)
    APNsProductionClientProtocol.APNS_SERVER = args.host
    APNsProductionClientProtocol.APNS_PORT = args.port
    context = ssl.create_default_context(cafile=args.ca)
    context.set_alpn_protocols(["h2"])  # aioapns leaves ALPN unset; servers other than APNs need it
    with open(args.key_file) as f:
        key = f.read()
    apns = APNs(key=key, key_id=args.key_id, team_id=args.team_id, topic=args.topic,
                use_sandbox=False, ssl_context=context, max_connections=args.connections)
    gate = asyncio.Semaphore(args.in_flight)
    reasons = {}

    async def one(i):
        token = args.token[i % len(args.token)]
        async with gate:
            try:
                result = await apns.send_notification(
                    NotificationRequest(device_token=token, message={"aps": {"alert": f"hello {i}"}}))
                key = "ok" if result.is_successful else f"{result.status} {result.description}"
            except Exception as error:  # aioapns gives up with MaxAttemptsExceeded and the like
                key = type(error).__name__
        reasons[key] = reasons.get(key, 0) + 1

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(args.count)))
    seconds = time.perf_counter() - start
    print(json.dumps({"sent": args.count, "ok": reasons.get("ok", 0), "results": reasons,
                      "seconds": seconds, "per_second": args.count / seconds}))


if __name__ == "__main__":
    asyncio.run(main(parse()))
    sys.exit(0)
