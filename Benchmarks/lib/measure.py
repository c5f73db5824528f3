"""Runs a command and prints one JSON line about it:
{"seconds": wall time, "cpu_seconds": its user + system CPU time, "max_rss_kb": its peak RSS (or an earlier child's, if larger),
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
# What ran before the command (a version manager's python3 shim, for one) is not the command's.
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
status = subprocess.call(args, stdout=out)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = usage.ru_utime + usage.ru_stime - before.ru_utime - before.ru_stime
print(json.dumps({"seconds": seconds, "cpu_seconds": cpu,
                  "max_rss_kb": usage.ru_maxrss, "status": status}))
