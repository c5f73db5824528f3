"""A webhook receiver for Soar's tests: checks each request with the `standardwebhooks` package (the
Standard Webhooks reference implementation) and writes what it took, one JSON line a request.

Usage: webhook_receiver.py SECRET LOG [--fail N] [--hang N]
Prints its port, then serves until stopped. Answers 204 to a request whose signature verifies,
400 to one that does not; --fail N answers 500 to the first N that verify (not logged as taken);
--hang N makes the N-th request wait 5 s before its answer (its sender should give up first).
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook

secret, log_path = sys.argv[1], sys.argv[2]
options = dict(zip(sys.argv[3::2], sys.argv[4::2]))
fail_first = int(options.get("--fail", "0"))
hang_at = int(options.get("--hang", "0"))
webhook = Webhook(secret)
lock = threading.Lock()
count = {"requests": 0, "failed": 0}


def log(entry):
    with lock, open(log_path, "a") as out:
        out.write(json.dumps(entry) + "\n")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        with lock:
            count["requests"] += 1
            number = count["requests"]
        if number == hang_at:
            time.sleep(5)
        try:
            event = webhook.verify(body, {k.lower(): v for k, v in self.headers.items()})
        except Exception as error:  # a signature that does not verify, or a stale timestamp
            log({"rejected": str(error)})
            return self.answer(400)
        with lock:
            failing = count["failed"] < fail_first
            if failing:
                count["failed"] += 1
        if failing:
            return self.answer(500)
        log({"id": self.headers["webhook-id"], "type": event["type"], "data": event["data"]})
        self.answer(204)

    def answer(self, status):
        self.send_response(status)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
