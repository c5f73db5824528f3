#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer. */
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }

/* sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's memory statistics,
   which take a process-wide mutex around every allocation; only valid before the first use. */
static inline int CSQLite_disableMemoryStatistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

/* sqlite3_db_config is variadic too. Turns off SQLite's reading of a double-quoted name that
   matches no column as a string: "sharedwith" must be an error, as in Postgres, not a constant. */
static inline int CSQLite_refuseDoubleQuotedStrings(sqlite3 *db) {
    int dml = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)0);
    int ddl = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)0);
    return dml != SQLITE_OK ? dml : ddl;
}
