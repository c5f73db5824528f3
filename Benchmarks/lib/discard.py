"""An HTTP/1.1 keep-alive GET load generator that drops response bodies in the kernel: recv with
MSG_TRUNC makes TCP discard the bytes without copying them, so reading costs little per byte and
the server, not the generator, sets the rate of large downloads. A connection the server closes
is opened again (nginx closes one after keepalive_requests).
  discard.py HOST PORT PATH CONNECTIONS SECONDS
Prints {"requests", "seconds", "rate", "errors" (answers not 200), "reconnects"}."""
import json
import selectors
import socket
import sys
import time

host, port, path, connections, seconds = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
selector = selectors.EpollSelector()
scratch = memoryview(bytearray(1 << 20))  # never written: MSG_TRUNC only counts
left = {}  # socket -> body bytes still to come, -1 while its head is awaited


def connect():
    sock = socket.create_connection((host, port))
    sock.setblocking(False)
    left[sock] = -1
    selector.register(sock, selectors.EVENT_READ)
    sock.send(request)


def reconnect(sock):
    selector.unregister(sock)
    del left[sock]
    sock.close()
    connect()


for _ in range(connections):
    connect()
done = errors = reconnects = 0
start = time.perf_counter()
end = start + seconds
while time.perf_counter() < end:
    for key, _ in selector.select(0.1):
        sock = key.fileobj
        while sock in left:
            try:
                if left[sock] < 0:
                    peek = sock.recv(65536, socket.MSG_PEEK)
                    if not peek:
                        reconnects += 1
                        reconnect(sock)
                        break
                    head_end = peek.find(b"\r\n\r\n")
                    if head_end < 0:
                        break  # the rest of the head is on its way
                    head = sock.recv(head_end + 4)
                    if not head.startswith(b"HTTP/1.1 200 "):
                        errors += 1
                    lengths = [line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")]
                    left[sock] = int(lengths[0].split(b":")[1]) if lengths else 0
                if left[sock] > 0:
                    count = sock.recv_into(scratch, min(left[sock], len(scratch)), socket.MSG_TRUNC)
                    if count == 0:
                        raise SystemExit("the server closed a connection in the middle of a body")
                    left[sock] -= count
                if left[sock] == 0:
                    done += 1
                    left[sock] = -1
                    sock.send(request)
            except BlockingIOError:
                break
            except (BrokenPipeError, ConnectionResetError):
                if left[sock] > 0:
                    raise SystemExit("the server closed a connection in the middle of a body")
                reconnects += 1  # closed between answers
                reconnect(sock)
                break
seconds = time.perf_counter() - start
print(json.dumps({"requests": done, "seconds": seconds, "rate": done / seconds, "errors": errors, "reconnects": reconnects}))
