#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer. */
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics,
   which take a process-wide mutex around every allocation; only valid before the first use. */
static inline int CSQLite_disableMemoryStatistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
