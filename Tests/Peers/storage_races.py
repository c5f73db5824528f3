"""Storage under concurrency and interruption: upserts of one path from many clients at once end
with one complete object (URL may list several servers, comma-separated, sharing one database and
storage directory: the upserts alternate between them); with `partial`, an upload is left half
sent for the caller to kill the server under it."""
import socket
import time
import sys
from concurrent.futures import ThreadPoolExecutor

import httpx
from peer import expect

urls, service, mode = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
url = urls[0]
keyed = {"apikey": service, "Authorization": f"Bearer {service}"}
host, port = url.split("//")[1].split(":")

if mode == "upserts":
    payloads = [bytes([65 + i]) * 200_000 for i in range(16)]

    def put(payload):
        server = urls[payload[0] % len(urls)]
        answer = httpx.post(f"{server}/storage/v1/object/avatars/shared/one.png", content=payload,
                            headers={**keyed, "content-type": "image/png", "x-upsert": "true"}, timeout=30)
        expect(answer.status_code == 200, f"an upsert: {answer.status_code} {answer.text}")

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(put, payloads))
    finals = [httpx.get(f"{server}/storage/v1/object/avatars/shared/one.png", headers=keyed).content for server in urls]
    expect(finals[0] in payloads and all(final == finals[0] for final in finals), f"one whole object remains, the same on every server")
    print("ok")
elif mode == "partial":
    # Headers and half of a 1 MB body, then wait: the caller kills the server now.
    connection = socket.create_connection((host, int(port)))
    head = (f"POST /storage/v1/object/avatars/crash/half.png HTTP/1.1\r\nHost: {host}\r\napikey: {service}\r\n"
            f"Authorization: Bearer {service}\r\nContent-Type: image/png\r\nContent-Length: 1000000\r\n\r\n")
    connection.sendall(head.encode() + b"x" * 500_000)
    print("sent", flush=True)
    time.sleep(60)
elif mode == "truncated":
    # A client that gives up half way: nothing of it is stored or listed.
    connection = socket.create_connection((host, int(port)))
    head = (f"POST /storage/v1/object/avatars/cut/half.png HTTP/1.1\r\nHost: {host}\r\napikey: {service}\r\n"
            f"Authorization: Bearer {service}\r\nContent-Type: image/png\r\nContent-Length: 1000000\r\n\r\n")
    connection.sendall(head.encode() + b"x" * 400_000)
    connection.close()
    answer = httpx.get(f"{url}/storage/v1/object/avatars/cut/half.png", headers=keyed)
    expect(answer.json().get("error") == "not_found", f"no truncated object: {answer.text}")
    print("ok")
elif mode == "after":
    answer = httpx.get(f"{url}/storage/v1/object/avatars/crash/half.png", headers=keyed)
    expect(answer.json().get("error") == "not_found", f"no partial object: {answer.status_code} {answer.text}")
    listed = httpx.post(f"{url}/storage/v1/object/list/avatars", json={"prefix": "crash"}, headers=keyed).json()
    expect(listed == [], f"nothing listed: {listed}")
    print("ok")
