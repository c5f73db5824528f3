"""Misbehaving HTTP/2 clients, to check the emulator answers each with the proper error.

Usage: h2_abuse.py SCENARIO HOST PORT CA_FILE. Prints one JSON line: the frames (type, stream,
error code) or TLS alert the server sent back.
"""
import json
import os
import socket
import ssl
import struct
import sys

from hpack import Encoder

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
TYPES = {0: "DATA", 1: "HEADERS", 3: "RST_STREAM", 4: "SETTINGS", 6: "PING", 7: "GOAWAY", 8: "WINDOW_UPDATE"}


def frame(kind, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def connect(host, port, ca, alpn=("h2",)):
    raw = socket.create_connection((host, port), timeout=3)
    context = ssl.create_default_context(cafile=ca)
    context.set_alpn_protocols(list(alpn))
    return context.wrap_socket(raw, server_hostname=host)


def read_frames(sock, until=None):
    """Frames until the server closes, times out, or `until(frames)` says stop."""
    buffer, frames = b"", []
    while True:
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ssl.SSLError, ConnectionError):
            break
        if not chunk:
            break
        buffer += chunk
        while len(buffer) >= 9:
            length = int.from_bytes(buffer[:3], "big")
            if len(buffer) < 9 + length:
                break
            kind, flags, stream = buffer[3], buffer[4], int.from_bytes(buffer[5:9], "big") & 0x7FFFFFFF
            payload = buffer[9:9 + length]
            buffer = buffer[9 + length:]
            item = {"type": TYPES.get(kind, kind), "stream": stream, "flags": flags}
            if kind == 7:
                item["error"] = int.from_bytes(payload[4:8], "big")
            if kind == 3:
                item["error"] = int.from_bytes(payload[:4], "big")
            if kind == 4 and not flags & 1:
                item["settings"] = {str(int.from_bytes(payload[i:i + 2], "big")): int.from_bytes(payload[i + 2:i + 6], "big")
                                    for i in range(0, len(payload), 6)}
            frames.append(item)
        if until and until(frames):
            break
    return frames


def request_headers(encoder, path="/3/device/abcd", extra=()):
    return encoder.encode([(":method", "POST"), (":scheme", "https"), (":path", path),
                           (":authority", "localhost")] + list(extra))


def scenario(name, host, port, ca):
    if name == "garbage":
        sock = socket.create_connection((host, port), timeout=3)
        sock.sendall(os.urandom(4096))
        try:
            data = sock.recv(65536)
        except (socket.timeout, ConnectionError):
            data = b""
        return {"closed": True, "bytes": len(data)}
    if name == "no-h2":
        try:
            connect(host, port, ca, alpn=("http/1.1",))
            return {"handshake": "completed"}
        except ssl.SSLError as error:
            return {"alert": error.reason or str(error)}
    sock = connect(host, port, ca)
    encoder = Encoder()
    if name == "bad-preface":
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    elif name == "bad-frame":
        sock.sendall(PREFACE + frame(4, 0, 0, b"\x00\x03\x00\x00\x00"))  # SETTINGS of 5 bytes
    elif name == "big-headers":
        block = request_headers(encoder, extra=[("x-big", "v" * 20000)])
        sock.sendall(PREFACE + frame(4, 0, 0, b"") + frame(1, 0x1, 1, block[:16000]) + frame(9, 0x4, 1, block[16000:]))
    elif name == "too-many-streams":
        sock.sendall(PREFACE + frame(4, 0, 0, b""))
        read_frames(sock, until=lambda frames: any(f["type"] == "SETTINGS" and "settings" in f for f in frames))
        sock.sendall(frame(4, 1, 0, b""))  # ACK: the limit of 1 now binds
        for stream in (1, 3, 5):
            sock.sendall(frame(1, 0x4, stream, request_headers(encoder)))
    frames = read_frames(sock, until=lambda frames: any(f["type"] in ("GOAWAY", "RST_STREAM") for f in frames))
    return {"frames": [f for f in frames if f["type"] in ("GOAWAY", "RST_STREAM")]}


if __name__ == "__main__":
    print(json.dumps(scenario(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4])))
