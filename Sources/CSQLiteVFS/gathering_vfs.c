/* Soar's VFS: SQLite's default one, with the WAL's frames gathered into one write a transaction.
 *
 * A WAL frame is a 24-byte header (bytes 4-7: the database size after a commit, zero for other
 * frames) and a page; SQLite appends each with two writes, so a commit of 30 pages cost 60
 * system calls, each with the file system's per-write work. Here a WAL file keeps a frame's
 * header and page in a buffer when they continue what it holds, and writes the buffer at once
 * when a commit frame is complete (its error is the commit's), when another frame would not fit
 * in 128 KB (the most the default VFS writes in one call), and before anything else touches the
 * file (a read, a sync, a truncate, a write elsewhere, a close). So the
 * file reads as if every write had gone through, and every commit is in the file when SQLite's
 * commit returns, before its wal-index lets other connections see it. Any write that does not
 * follow that pattern (the WAL's own header, a frame rewritten in place, a checksum rewritten)
 * goes straight through, so a change in how SQLite writes could cost speed, not data. */
#include "CSQLiteVFS.h"

#include <stdlib.h>
#include <string.h>

const char *const CSQLiteVFS_name = "soar";

/* The default VFS writes at most 128 KB less a byte in one call (it masks larger counts to 17 bits). */
enum { frameHeaderSize = 24, gatherLimit = 0x1ffff };

typedef struct GatheringFile {
    sqlite3_file base;
    sqlite3_file *real;   /* the default VFS's file, in the memory right after this struct */
    int wal;              /* a WAL file: its frames are gathered */
    unsigned char *buffer;
    int used;
    sqlite3_int64 start;  /* the file offset of buffer[0] */
    sqlite3_int64 end;    /* where the last write ended (gathered or not); -1 when unknown */
    int headerWaiting;    /* the last write gathered a frame's header: its page comes next */
    int commitWaiting;    /* ... and that frame ends a transaction */
    long long fileWrites, gatheredFrames;
} GatheringFile;

static sqlite3_vfs *realVFS(sqlite3_vfs *vfs) { return (sqlite3_vfs *)vfs->pAppData; }
static sqlite3_file *realFile(sqlite3_file *file) { return ((GatheringFile *)file)->real; }

static int writeThrough(GatheringFile *file, const void *data, int amount, sqlite3_int64 offset) {
    file->fileWrites++;
    return file->real->pMethods->xWrite(file->real, data, amount, offset);
}

/* Writes what is gathered; after a failure nothing is kept (the transaction fails with it). */
static int flush(GatheringFile *file) {
    file->headerWaiting = file->commitWaiting = 0;
    if (file->used == 0) return SQLITE_OK;
    int used = file->used;
    file->used = 0;
    return writeThrough(file, file->buffer, used, file->start);
}

static int gather(GatheringFile *file, const void *data, int amount, sqlite3_int64 offset) {
    if (!file->buffer && !(file->buffer = malloc(gatherLimit))) return SQLITE_NOMEM;
    if (file->used == 0) file->start = offset;
    memcpy(file->buffer + file->used, data, (size_t)amount);
    file->used += amount;
    file->end = offset + amount;
    return SQLITE_OK;
}

static int xWrite(sqlite3_file *base, const void *data, int amount, sqlite3_int64 offset) {
    GatheringFile *file = (GatheringFile *)base;
    if (file->wal && offset == file->end && file->used + amount <= gatherLimit) {
        if (amount == frameHeaderSize && !file->headerWaiting) {
            const unsigned char *header = data;
            int rc = gather(file, data, amount, offset);
            if (rc != SQLITE_OK) return rc;
            file->headerWaiting = 1;
            file->commitWaiting = (header[4] | header[5] | header[6] | header[7]) != 0;
            return SQLITE_OK;
        }
        if (file->headerWaiting) {
            int commit = file->commitWaiting;
            int rc = gather(file, data, amount, offset);
            if (rc != SQLITE_OK) return rc;
            file->headerWaiting = file->commitWaiting = 0;
            file->gatheredFrames++;
            /* Written when the transaction is complete, or when another frame like it would not fit. */
            return commit || file->used + frameHeaderSize + amount > gatherLimit ? flush(file) : SQLITE_OK;
        }
    }
    int rc = flush(file);
    if (rc != SQLITE_OK) return rc;
    rc = writeThrough(file, data, amount, offset);
    file->end = rc == SQLITE_OK ? offset + amount : -1;
    return rc;
}

static int xClose(sqlite3_file *base) {
    GatheringFile *file = (GatheringFile *)base;
    int flushed = flush(file);
    int rc = file->real->pMethods->xClose(file->real);
    free(file->buffer);
    file->buffer = NULL;
    return flushed != SQLITE_OK ? flushed : rc;
}

/* Everything but a write: what is gathered is written first. */
#define FLUSHED(file) do { int flushed = flush((GatheringFile *)(file)); if (flushed != SQLITE_OK) return flushed; } while (0)

static int xRead(sqlite3_file *file, void *data, int amount, sqlite3_int64 offset) {
    FLUSHED(file);
    return realFile(file)->pMethods->xRead(realFile(file), data, amount, offset);
}
static int xTruncate(sqlite3_file *file, sqlite3_int64 size) {
    FLUSHED(file);
    ((GatheringFile *)file)->end = -1;
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
static int xShmLock(sqlite3_file *file, int offset, int n, int flags) {
    return realFile(file)->pMethods->xShmLock(realFile(file), offset, n, flags);
}
static void xShmBarrier(sqlite3_file *file) { realFile(file)->pMethods->xShmBarrier(realFile(file)); }
static int xShmUnmap(sqlite3_file *file, int deleteFlag) { return realFile(file)->pMethods->xShmUnmap(realFile(file), deleteFlag); }
static int xFetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **out) {
    FLUSHED(file);
    return realFile(file)->pMethods->xFetch(realFile(file), offset, amount, out);
}
static int xUnfetch(sqlite3_file *file, sqlite3_int64 offset, void *page) {
    return realFile(file)->pMethods->xUnfetch(realFile(file), offset, page);
}

static const sqlite3_io_methods methods = {
    3, xClose, xRead, xWrite, xTruncate, xSync, xFileSize, xLock, xUnlock, xCheckReservedLock, xFileControl,
    xSectorSize, xDeviceCharacteristics, xShmMap, xShmLock, xShmBarrier, xShmUnmap, xFetch, xUnfetch,
};

static int xOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *base, int flags, int *outFlags) {
    GatheringFile *file = (GatheringFile *)base;
    memset(file, 0, sizeof *file);
    file->real = (sqlite3_file *)(file + 1);
    file->wal = (flags & SQLITE_OPEN_WAL) != 0;
    file->end = -1;
    int rc = realVFS(vfs)->xOpen(realVFS(vfs), name, file->real, flags, outFlags);
    if (rc != SQLITE_OK) {
        if (file->real->pMethods) file->real->pMethods->xClose(file->real);
        base->pMethods = NULL;
        return rc;
    }
    /* The default VFS's files are version 3; one of an older version keeps its own methods' set. */
    base->pMethods = file->real->pMethods->iVersion >= 3 ? &methods : NULL;
    if (!base->pMethods) {
        file->real->pMethods->xClose(file->real);
        return SQLITE_CANTOPEN;
    }
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

int CSQLiteVFS_register(void) {
    if (sqlite3_vfs_find(CSQLiteVFS_name)) return SQLITE_OK;
    sqlite3_vfs *real = sqlite3_vfs_find(NULL);
    if (!real) return SQLITE_ERROR;
    vfs = (sqlite3_vfs){
        .iVersion = 2, .szOsFile = (int)sizeof(GatheringFile) + real->szOsFile, .mxPathname = real->mxPathname,
        .zName = CSQLiteVFS_name, .pAppData = real, .xOpen = xOpen, .xDelete = xDelete, .xAccess = xAccess,
        .xFullPathname = xFullPathname, .xDlOpen = xDlOpen, .xDlError = xDlError, .xDlSym = xDlSym,
        .xDlClose = xDlClose, .xRandomness = xRandomness, .xSleep = xSleep, .xCurrentTime = xCurrentTime,
        .xGetLastError = xGetLastError, .xCurrentTimeInt64 = xCurrentTimeInt64,
    };
    return sqlite3_vfs_register(&vfs, 0);
}

static GatheringFile *walFile(sqlite3_file *file) {
    if (!file || file->pMethods != &methods || !((GatheringFile *)file)->wal) return NULL;
    return (GatheringFile *)file;
}

long long CSQLiteVFS_fileWrites(sqlite3_file *file) { return walFile(file) ? walFile(file)->fileWrites : -1; }
long long CSQLiteVFS_gatheredFrames(sqlite3_file *file) { return walFile(file) ? walFile(file)->gatheredFrames : -1; }
