#ifndef CSQLITEPAGECACHE_H
#define CSQLITEPAGECACHE_H

#include <sqlite3.h>

/* Soar's page cache: SQLite's default one, except that ending a transaction no longer walks the
   whole cache when no page is past the database's end. Installed once, before SQLite initializes;
   returns SQLITE_OK, or SQLite's error (SQLITE_MISUSE once SQLite is initialized), in which case
   SQLite's own cache stays in use. */
int CSQLitePageCache_install(void);

/* For tests, on the calling thread: the truncations passed on to SQLite's cache, and those that
   had nothing to drop and were not. */
long long CSQLitePageCache_truncationsPassed(void);
long long CSQLitePageCache_truncationsSkipped(void);

#endif
