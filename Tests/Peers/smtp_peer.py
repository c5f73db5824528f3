"""An SMTP server (aiosmtpd) for soar's mail: prints its port, then keeps each message as a JSON
line in OUT. With `refuse`, every recipient is refused (550); with `hang`, a message's data is
never answered.

Usage: smtp_peer.py OUT [accept|refuse|hang]
"""
import asyncio
import json
import signal
import socket
import sys

from aiosmtpd.controller import Controller

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
controller = Controller(Keeper(), hostname="127.0.0.1", port=port)
controller.start()
print(port, flush=True)
loop = asyncio.new_event_loop()
loop.add_signal_handler(signal.SIGTERM, loop.stop)
try:
    loop.run_forever()
finally:
    controller.stop()
