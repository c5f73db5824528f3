"""Runs a command and prints one JSON line about it:
{"seconds": wall time, "cpu_seconds": its user + system CPU time, "max_rss_kb": its peak RSS,
 "status": exit code}.
  measure.py [--stdout FILE] COMMAND ARGS...   (the command's standard output goes to FILE, else nowhere)
"""
import json
import resource
import subprocess
import sys
import time

args = sys.argv[1:]
out = subprocess.DEVNULL
if args[:1] == ["--stdout"]:
    out = open(args[1], "wb")
    args = args[2:]
start = time.perf_counter()
status = subprocess.call(args, stdout=out)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": seconds, "cpu_seconds": usage.ru_utime + usage.ru_stime,
                  "max_rss_kb": usage.ru_maxrss, "status": status}))
