"""The storage's own rate: soar's device-token upsert run straight through SQLite.

Same file settings as soar serve (WAL, its synchronous setting, foreign keys, the functions the
table's checks call), one transaction per upsert, the same statement text.
Usage: sqlite_direct.py DB USER_ID SECONDS [full|normal]
"""
import datetime
import os
import re
import sqlite3
import sys
import time

path, user, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
synchronous = sys.argv[4] if len(sys.argv) > 4 else "full"
db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
db.create_function("regexp", 2, lambda pattern, text: None if pattern is None or text is None else int(re.search(pattern, text) is not None), deterministic=True)


def stored(moment):
    """A time in the form soar stores it."""
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


# The one-owner trigger's functions (SQLite prepares a trigger's whole body, run or not).
db.create_function("now", 0, lambda: stored(datetime.datetime.now(datetime.timezone.utc)))
db.create_function("soar_ago", 1, lambda seconds: stored(datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=seconds)))
db.create_function("auth_uid", 0, lambda: None)
db.execute("PRAGMA journal_mode = WAL")
db.execute(f"PRAGMA synchronous = {synchronous.upper()}")
db.execute("PRAGMA foreign_keys = ON")
sql = (
    'INSERT INTO "device_tokens" ("user_id", "token", "platform", "updated_at", "created_at") VALUES (?, ?, ?, ?, ?) '
    'ON CONFLICT ("user_id", "token") DO UPDATE SET "platform" = excluded."platform", "updated_at" = excluded."updated_at" '
    'WHERE "device_tokens"."user_id" = ? RETURNING "user_id", "token", "platform", "environment", "bundle_id", "updated_at", "created_at"'
)
done = 0
start = time.perf_counter()
deadline = start + seconds
while time.perf_counter() < deadline:
    for _ in range(100):
        stamp = "2026-12-03T00:00:00.000000+00:00"
        db.execute("BEGIN IMMEDIATE")
        db.execute(sql, (user, os.urandom(16).hex(), "ios", stamp, stamp, user)).fetchall()
        db.execute("COMMIT")
    done += 100
print(f"{done / (time.perf_counter() - start):.0f}")
