"""What every peer script shares: a failed expectation ends the run with its reason on stderr."""
import asyncio
import sys


def expect(condition, what):
    if not condition:
        print(f"FAILED: {what}", file=sys.stderr)
        sys.exit(1)


async def until(condition, what, seconds=5):
    """Waits for `condition`, looking every 20 ms, up to `seconds`."""
    for _ in range(int(seconds * 50)):
        if condition():
            return
        await asyncio.sleep(0.02)
    expect(False, what)
