"""Runs a command and prints {"seconds": wall time, "max_rss_kb": its peak RSS, "status": exit code}."""
import json
import resource
import subprocess
import sys
import time

start = time.perf_counter()
status = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "max_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "status": status}))
