"""A TLS server on 127.0.0.1 that offers only HTTP/1.1 over ALPN, for clients that must insist on h2.

Prints its port, then answers every connection with an HTTP/1.1 400 until killed.
  python3 tls_http1_server.py CERT KEY
"""
import os
import signal
import socket
import ssl
import sys
import threading

# The test runner may hand SIGTERM down ignored or blocked; stop when told to.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])


def exit_with_parent(parent=os.getppid()):
    """Ends this peer once the test process is gone, even if it crashed before it could stop it."""
    while os.getppid() == parent:
        threading.Event().wait(0.5)
    os._exit(0)


threading.Thread(target=exit_with_parent, daemon=True).start()

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
context.set_alpn_protocols(["http/1.1"])
listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)


def serve(connection):
    try:
        with context.wrap_socket(connection, server_side=True) as tls:
            tls.recv(4096)
            tls.sendall(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
    except (ssl.SSLError, OSError):
        pass


while True:
    client, _ = listener.accept()
    threading.Thread(target=serve, args=(client,), daemon=True).start()
