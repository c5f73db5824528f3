/* Soar's VFS: SQLite's default one, with a transaction's WAL frames written in one system call.
 *
 * SQLite appends each WAL frame with two writes: its 24-byte header (bytes 4-7: the database's
 * size when the frame ends a transaction, zero otherwise), then its page. Here a WAL file gathers
 * writes that continue one another and writes them at once:
 *   - when a frame that ends a transaction is complete: the commit's error is that write's, and
 *     the commit is in the file before SQLite publishes it in the wal-index;
 *   - before anything else touches the file (a read, a sync, a truncate, a size, a write
 *     elsewhere, a close) and before 128 KB (the most the default VFS writes in one call).
 * Frames are told by their place, from the page size in the WAL's header; a frame completed
 * whose header was not gathered counts as a commit. Only appends are gathered: a write over what
 * the transaction wrote before (a page written again in place, a checksum rewritten at commit)
 * goes straight to the file, so that SQLite sees its error. A memory barrier on the database's
 * shared memory, which comes before every publication, writes anything still gathered (counted
 * as a late write: none is expected).
 *
 * Gathering happens only while the connection holds the WAL's write lock, which SQLite takes on
 * the database's handle (hence each WAL is linked to its database's file). A transaction that
 * ends without a commit (a rollback after SQLite spilled pages into the WAL) leaves its gathered
 * frames behind: they are dropped when the lock is released, before any other writer can append
 * where they were. A failed write of gathered frames fails every later write to the WAL until
 * then, so the transaction that lost them cannot commit. In locking_mode = EXCLUSIVE, SQLite takes
 * no lock through the VFS, and nothing is gathered. */
#include "CSQLiteVFS.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

const char *const CSQLiteVFS_name = "soar";

enum {
    walHeaderSize = 32,
    frameHeaderSize = 24,
    gatherLimit = 0x1ffff,  /* the default VFS masks a write's size to 17 bits */
    writeLock = 0,          /* the WAL write lock's offset among the shared-memory locks */
};

typedef struct GatheringFile GatheringFile;
struct GatheringFile {
    sqlite3_file base;
    sqlite3_file *real;          /* the default VFS's file, in the memory right after this struct */
    const char *name;            /* a database: the name SQLite opened it by, which its WAL's name leads to */
    GatheringFile *next;         /* a database: the next open database */
    GatheringFile *wal;          /* a database: its WAL, while open */
    int writeLocked;             /* a database: it holds the WAL's write lock */
    GatheringFile *database;     /* a WAL: its database's file; NULL when not found */
    int pageSize;                /* a WAL: from its header; 0 until known */
    int pageSizeRead;            /* a WAL: the header was looked for */
    int failed;                  /* a WAL: gathered frames were lost */
    int failNextFlushes;         /* a WAL: for tests */
    unsigned char *buffer;
    int used;
    sqlite3_int64 start;         /* the file offset of buffer[0] */
    sqlite3_int64 appended;      /* where the writes under this write lock end */
    long long fileWrites, lateWrites;
};

static GatheringFile *openDatabases;
static pthread_mutex_t openDatabasesLock = PTHREAD_MUTEX_INITIALIZER;

static sqlite3_vfs *realVFS(sqlite3_vfs *vfs) { return (sqlite3_vfs *)vfs->pAppData; }
static sqlite3_file *realFile(sqlite3_file *file) { return ((GatheringFile *)file)->real; }

static int writeThrough(GatheringFile *file, const void *data, int amount, sqlite3_int64 offset) {
    file->fileWrites++;
    return file->real->pMethods->xWrite(file->real, data, amount, offset);
}

/* Writes what is gathered. A failure loses it, and every later write fails until forget(). */
static int flush(GatheringFile *file) {
    if (file->used == 0) return SQLITE_OK;
    int used = file->used;
    file->used = 0;
    int rc = SQLITE_IOERR_WRITE;
    if (file->failNextFlushes > 0) file->failNextFlushes--;
    else rc = writeThrough(file, file->buffer, used, file->start);
    if (rc != SQLITE_OK) file->failed = 1;
    return rc;
}

/* A write transaction began or ended: what it gathered and did not commit is not wanted. */
static void forget(GatheringFile *file) {
    file->used = 0;
    file->failed = 0;
    file->appended = 0;
}

static unsigned readBigEndian(const unsigned char *bytes) {
    return (unsigned)bytes[0] << 24 | (unsigned)bytes[1] << 16 | (unsigned)bytes[2] << 8 | bytes[3];
}

/* The page size a WAL header names; 0 when it is not one. */
static int headerPageSize(const unsigned char *header) {
    unsigned magic = readBigEndian(header), size = readBigEndian(header + 8);
    if ((magic & ~1u) != 0x377f0682u || size < 512 || size > 65536 || (size & (size - 1)) != 0) return 0;
    return (int)size;
}

/* Called for a WAL linked to its database. */
static int canGather(GatheringFile *file) {
    if (!file->database->writeLocked) return 0;
    if (file->pageSize == 0 && !file->pageSizeRead) {
        unsigned char header[walHeaderSize];
        file->pageSizeRead = 1;
        if (file->real->pMethods->xRead(file->real, header, walHeaderSize, 0) == SQLITE_OK) {
            file->pageSize = headerPageSize(header);
        }
    }
    return file->pageSize > 0;
}

/* Whether the write that ended at `end` completed a frame ending a transaction, or one whose
   header was not gathered (so might). */
static int completesCommit(GatheringFile *file, sqlite3_int64 end) {
    sqlite3_int64 frameSize = file->pageSize + frameHeaderSize;
    if (end < walHeaderSize + frameSize || (end - walHeaderSize) % frameSize != 0) return 0;
    sqlite3_int64 header = end - frameSize;
    if (header < file->start) return 1;
    const unsigned char *size = file->buffer + (header - file->start) + 4;
    return (size[0] | size[1] | size[2] | size[3]) != 0;
}

static int walWrite(GatheringFile *file, const void *data, int amount, sqlite3_int64 offset) {
    if (file->failed) return SQLITE_IOERR_WRITE;
    if (offset == 0 && amount >= walHeaderSize) file->pageSize = headerPageSize(data);
    int gathering = canGather(file) && amount <= gatherLimit && offset >= file->appended;
    if (offset + amount > file->appended) file->appended = offset + amount;
    /* A frame's header comes with room for its page: frames are not split between two writes. */
    int frameSize = file->pageSize + frameHeaderSize;
    int needed = amount == frameHeaderSize && (offset - walHeaderSize) % frameSize == 0 ? frameSize : amount;
    int continues = offset == file->start + file->used && file->used + needed <= gatherLimit;
    if (!gathering || !continues) {
        int rc = flush(file);
        if (rc != SQLITE_OK) return rc;
    }
    if (!gathering) return writeThrough(file, data, amount, offset);
    if (!file->buffer && !(file->buffer = malloc(gatherLimit))) return SQLITE_NOMEM;
    if (file->used == 0) file->start = offset;
    memcpy(file->buffer + file->used, data, (size_t)amount);
    file->used += amount;
    return completesCommit(file, offset + amount) ? flush(file) : SQLITE_OK;
}

static int xWrite(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    GatheringFile *file = (GatheringFile *)base;
    if (file->database) return walWrite(file, data, amount, offset);
    return writeThrough(file, data, amount, offset);
}

static void unlinkFile(GatheringFile *file) {
    pthread_mutex_lock(&openDatabasesLock);
    if (file->database) {
        file->database->wal = NULL;
    } else {
        for (GatheringFile **link = &openDatabases; *link; link = &(*link)->next) {
            if (*link == file) { *link = file->next; break; }
        }
        if (file->wal) file->wal->database = NULL;
    }
    pthread_mutex_unlock(&openDatabasesLock);
}

static int xClose(sqlite3_file *base) {
    GatheringFile *file = (GatheringFile *)base;
    unlinkFile(file);  /* what is gathered, uncommitted by construction, goes with the file */
    free(file->buffer);
    file->buffer = NULL;
    return file->real->pMethods->xClose(file->real);
}

/* Everything but a write on a WAL: what is gathered is written first. */
#define FLUSHED(file) do { int flushed = flush((GatheringFile *)(file)); if (flushed != SQLITE_OK) return flushed; } while (0)

static int xRead(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    FLUSHED(file);
    return realFile(file)->pMethods->xRead(realFile(file), data, amount, offset);
}
static int xTruncate(sqlite3_file *file, sqlite3_int64 size) {
    FLUSHED(file);
    return realFile(file)->pMethods->xTruncate(realFile(file), size);
}
static int xSync(sqlite3_file *file, int flags) {
    FLUSHED(file);
    return realFile(file)->pMethods->xSync(realFile(file), flags);
}
static int xFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    FLUSHED(file);
    return realFile(file)->pMethods->xFileSize(realFile(file), size);
}
static int xFileControl(sqlite3_file *file, int op, void *argument) {
    FLUSHED(file);
    return realFile(file)->pMethods->xFileControl(realFile(file), op, argument);
}
static int xFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    FLUSHED(file);
    return realFile(file)->pMethods->xFetch(realFile(file), offset, amount, out);
}
static int xLock(sqlite3_file *file, int level) { return realFile(file)->pMethods->xLock(realFile(file), level); }
static int xUnlock(sqlite3_file *file, int level) { return realFile(file)->pMethods->xUnlock(realFile(file), level); }
static int xCheckReservedLock(sqlite3_file *file, int *out) {
    return realFile(file)->pMethods->xCheckReservedLock(realFile(file), out);
}
static int xSectorSize(sqlite3_file *file) { return realFile(file)->pMethods->xSectorSize(realFile(file)); }
static int xDeviceCharacteristics(sqlite3_file *file) {
    return realFile(file)->pMethods->xDeviceCharacteristics(realFile(file));
}
static int xShmMap(sqlite3_file *file, int region, int size, int extend, void volatile **out) {
    return realFile(file)->pMethods->xShmMap(realFile(file), region, size, extend, out);
}
static int xShmLock(sqlite3_file *base, int offset, int n, int flags) {
    GatheringFile *file = (GatheringFile *)base;
    int writeLockChange = offset == writeLock && (flags & SQLITE_SHM_EXCLUSIVE);
    if (file->wal && writeLockChange) forget(file->wal);
    int rc = file->real->pMethods->xShmLock(file->real, offset, n, flags);
    if (writeLockChange) file->writeLocked = !(flags & SQLITE_SHM_UNLOCK) && rc == SQLITE_OK;
    return rc;
}
static void xShmBarrier(sqlite3_file *base) {
    GatheringFile *file = (GatheringFile *)base;
    if (file->wal && file->wal->used > 0) {
        file->wal->lateWrites++;
        flush(file->wal);
    }
    file->real->pMethods->xShmBarrier(file->real);
}
static int xShmUnmap(sqlite3_file *base, int deleteFlag) {
    GatheringFile *file = (GatheringFile *)base;
    file->writeLocked = 0;
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}
static int xUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    return realFile(file)->pMethods->xUnfetch(realFile(file), offset, page);
}

static const sqlite3_io_methods methods = {
    3, xClose, xRead, xWrite, xTruncate, xSync, xFileSize, xLock, xUnlock, xCheckReservedLock, xFileControl,
    xSectorSize, xDeviceCharacteristics, xShmMap, xShmLock, xShmBarrier, xShmUnmap, xFetch, xUnfetch,
};

/* A database joins the open ones; a WAL finds its database by the name SQLite opened it by
   (the WAL's name is stored right after it, and sqlite3_filename_database leads back to it). */
static void linkFile(GatheringFile *file, const char *name, int flags) {
    if (!name || !(flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_WAL))) return;
    pthread_mutex_lock(&openDatabasesLock);
    if (flags & SQLITE_OPEN_MAIN_DB) {
        file->name = name;
        file->next = openDatabases;
        openDatabases = file;
    } else {
        const char *databaseName = sqlite3_filename_database(name);
        for (GatheringFile *database = openDatabases; database; database = database->next) {
            if (database->name == databaseName && !database->wal) {
                database->wal = file;
                file->database = database;
                break;
            }
        }
    }
    pthread_mutex_unlock(&openDatabasesLock);
}

static int xOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    GatheringFile *file = (GatheringFile *)base;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    int rc = realVFS(vfs)->xOpen(realVFS(vfs), name, file->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (file->real->pMethods) file->real->pMethods->xClose(file->real);
        base->pMethods = NULL;
        return rc;
    }
    /* The default VFS's files are version 3; anything older would miss methods called here. */
    if (file->real->pMethods->iVersion < 3) {
        file->real->pMethods->xClose(file->real);
        base->pMethods = NULL;
        return SQLITE_CANTOPEN;
    }
    base->pMethods = &methods;
    linkFile(file, name, flags);
    return SQLITE_OK;
}

static int xDelete(sqlite3_vfs *vfs, const char *name, int syncDir) { return realVFS(vfs)->xDelete(realVFS(vfs), name, syncDir); }
static int xAccess(sqlite3_vfs *vfs, const char *name, int flags, int *out) {
    return realVFS(vfs)->xAccess(realVFS(vfs), name, flags, out);
}
static int xFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    return realVFS(vfs)->xFullPathname(realVFS(vfs), name, size, out);
}
static void *xDlOpen(sqlite3_vfs *vfs, const char *name) { return realVFS(vfs)->xDlOpen(realVFS(vfs), name); }
static void xDlError(sqlite3_vfs *vfs, int size, char *out) { realVFS(vfs)->xDlError(realVFS(vfs), size, out); }
static void (*xDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    return realVFS(vfs)->xDlSym(realVFS(vfs), library, symbol);
}
static void xDlClose(sqlite3_vfs *vfs, void *library) { realVFS(vfs)->xDlClose(realVFS(vfs), library); }
static int xRandomness(sqlite3_vfs *vfs, int size, char *out) { return realVFS(vfs)->xRandomness(realVFS(vfs), size, out); }
static int xSleep(sqlite3_vfs *vfs, int microseconds) { return realVFS(vfs)->xSleep(realVFS(vfs), microseconds); }
static int xCurrentTime(sqlite3_vfs *vfs, double *out) { return realVFS(vfs)->xCurrentTime(realVFS(vfs), out); }
static int xGetLastError(sqlite3_vfs *vfs, int size, char *out) { return realVFS(vfs)->xGetLastError(realVFS(vfs), size, out); }
static int xCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *out) { return realVFS(vfs)->xCurrentTimeInt64(realVFS(vfs), out); }

static sqlite3_vfs vfs;
static pthread_once_t registered = PTHREAD_ONCE_INIT;
static int registration = SQLITE_ERROR;

static void registerOnce(void) {
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (!real) return;
    vfs = (sqlite3_vfs){
        .iVersion = 2, .szOsFile = (int)sizeof(GatheringFile) + real->szOsFile, .mxPathname = real->mxPathname,
        .zName = CSQLiteVFS_name, .pAppData = real, .xOpen = xOpen, .xDelete = xDelete, .xAccess = xAccess,
        .xFullPathname = xFullPathname, .xDlOpen = xDlOpen, .xDlError = xDlError, .xDlSym = xDlSym,
        .xDlClose = xDlClose, .xRandomness = xRandomness, .xSleep = xSleep, .xCurrentTime = xCurrentTime,
        .xGetLastError = xGetLastError, .xCurrentTimeInt64 = xCurrentTimeInt64,
    };
    registration = sqlite3_vfs_register(&vfs, 0);
}

int CSQLiteVFS_register(void) {
    pthread_once(&registered, registerOnce);
    return registration;
}

static GatheringFile *walFile(sqlite3_file *file) {
    if (!file || file->pMethods != &methods || !((GatheringFile *)file)->database) return NULL;
    return (GatheringFile *)file;
}

long long CSQLiteVFS_fileWrites(sqlite3_file *file) { return walFile(file) ? walFile(file)->fileWrites : -1; }
long long CSQLiteVFS_gatheredBytes(sqlite3_file *file) { return walFile(file) ? walFile(file)->used : -1; }
long long CSQLiteVFS_lateWrites(sqlite3_file *file) { return walFile(file) ? walFile(file)->lateWrites : -1; }
void CSQLiteVFS_failNextFlushes(sqlite3_file *file, int count) {
    if (walFile(file)) walFile(file)->failNextFlushes = count;
}
