"""An SMTP server (aiosmtpd) for soar's mail: prints its port, then keeps each message as a JSON
line in OUT. With `refuse`, every recipient is refused (550); with `hang`, a message's data is
never answered; with `tls-auth CERT KEY USER PASS`, STARTTLS is offered and AUTH with that user
required (over TLS only).

Usage: smtp_peer.py OUT [accept|refuse|hang|tls-auth CERT KEY USER PASS]
"""
import asyncio
import json
import signal
import socket
import ssl
import sys

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult

out, mode = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "accept")


class Keeper:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if mode == "refuse":
            return "550 5.1.1 mailbox unavailable"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if mode == "hang":
            await asyncio.sleep(3600)
        with open(out, "a") as file:
            file.write(json.dumps({"from": envelope.mail_from, "to": envelope.rcpt_tos, "data": envelope.content.decode("utf-8", "replace")}) + "\n")
        return "250 Message accepted for delivery"


probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
options = {}
if mode == "tls-auth":
    cert, key, user, password = sys.argv[3:7]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)

    def check(server, session, envelope, mechanism, auth_data):
        return AuthResult(success=auth_data.login.decode() == user and auth_data.password.decode() == password)

    options = {"tls_context": context, "require_starttls": True, "authenticator": check, "auth_required": True, "auth_require_tls": True}
controller = Controller(Keeper(), hostname="127.0.0.1", port=port, server_kwargs=options) if options else Controller(Keeper(), hostname="127.0.0.1", port=port)
controller.start()
print(port, flush=True)
loop = asyncio.new_event_loop()
loop.add_signal_handler(signal.SIGTERM, loop.stop)
try:
    loop.run_forever()
finally:
    controller.stop()
