#ifndef CSQLITEVFS_H
#define CSQLITEVFS_H

#include <sqlite3.h>

/* Soar's VFS, "soar": SQLite's default one, except that a WAL file gathers the frames a
   transaction appends and writes them with one system call once its commit frame is complete
   (SQLite writes each frame in two: its 24-byte header, then its page). Registered once;
   returns SQLITE_OK, or SQLite's error when it cannot be. */
int CSQLiteVFS_register(void);

/* The name to open connections with. */
extern const char *const CSQLiteVFS_name;

/* For tests, on a WAL's handle (from SQLITE_FCNTL_JOURNAL_POINTER): the writes it made to the
   file system, the bytes it holds gathered, not yet written, and the writes a memory barrier had
   to make (none is expected) (-1 when `file` is not one of this VFS's WALs linked to its
   database); and a failure of the next `count` writes of what it gathered. */
long long CSQLiteVFS_fileWrites(sqlite3_file *file);
long long CSQLiteVFS_gatheredBytes(sqlite3_file *file);
long long CSQLiteVFS_lateWrites(sqlite3_file *file);
void CSQLiteVFS_failNextFlushes(sqlite3_file *file, int count);

#endif
