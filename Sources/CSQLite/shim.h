#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer. */
static inline sqlite3_destructor_type CSQLite_transient(void) { return SQLITE_TRANSIENT; }
