/* Soar's page cache: SQLite's default one (pcache1), wrapped.
 *
 * At the end of every transaction the pager truncates its cache to the database's size. The
 * default cache keeps the largest key it ever held (until a truncation lowers it) and, when that
 * key is far past the limit, walks every page it holds to find those to drop. A B-tree split
 * that renumbers pages moves one through a spare number, that of the lock page (the page holding
 * the byte at 1 GB, never a real page); so in a database under 1 GB, a commit after such a split
 * walked the whole cache (for a writer inserting into random indexes: nearly every commit, for a
 * time that grows with the cache).
 *
 * Here each cache keeps its own bound: one past the largest key fetched (found or created) or
 * moved to, lowered by truncations; a move to the spare number sets a flag instead, which a move
 * away from it clears (one page at most holds a number). A truncation goes on to the default
 * cache only when a page may lie at or past its limit. The bound and the flag may overstate what
 * the cache holds (a page dropped or evicted), never understate it: that costs a walk, not a page.
 * The lock page's number assumes SQLite's default PENDING_BYTE (only its test builds move it);
 * another would cost speed, not correctness. */
#include "CSQLitePageCache.h"

#include <stdlib.h>

typedef struct Cache {
    sqlite3_pcache *real;
    unsigned spare;          /* the number a split moves pages through: the lock page's */
    sqlite3_int64 bound;     /* no key at or past this, the spare number's page aside */
    int atSpare;             /* a page may have been moved to the spare number */
} Cache;

static sqlite3_pcache_methods2 real;
static _Thread_local long long passed, skipped;  /* truncations, for tests: a connection runs on one thread at a time */

enum { lockByte = 0x40000000 };  /* SQLite's PENDING_BYTE, in the lock page */

static void grow(Cache *cache, unsigned key) {
    if ((sqlite3_int64)key + 1 > cache->bound) cache->bound = (sqlite3_int64)key + 1;
}

static sqlite3_pcache *xCreate(int pageSize, int extraSize, int purgeable) {
    Cache *cache = sqlite3_malloc(sizeof *cache);
    if (!cache) return NULL;
    cache->real = real.xCreate(pageSize, extraSize, purgeable);
    if (!cache->real) {
        sqlite3_free(cache);
        return NULL;
    }
    cache->spare = (unsigned)(lockByte / pageSize) + 1;
    cache->bound = 0;
    cache->atSpare = 0;
    return (sqlite3_pcache *)cache;
}

static sqlite3_pcache_page *xFetch(sqlite3_pcache *p, unsigned key, int create) {
    Cache *cache = (Cache *)p;
    sqlite3_pcache_page *page = real.xFetch(cache->real, key, create);
    if (page) grow(cache, key);
    return page;
}

static void xRekey(sqlite3_pcache *p, sqlite3_pcache_page *page, unsigned from, unsigned to) {
    Cache *cache = (Cache *)p;
    real.xRekey(cache->real, page, from, to);
    if (from == cache->spare) cache->atSpare = 0;
    if (to == cache->spare) cache->atSpare = 1;
    else grow(cache, to);
}

static void xTruncate(sqlite3_pcache *p, unsigned limit) {
    Cache *cache = (Cache *)p;
    int spareDropped = cache->atSpare && cache->spare >= limit;
    if (!spareDropped && cache->bound <= limit) {
        skipped++;
        return;
    }
    passed++;
    real.xTruncate(cache->real, limit);
    if (cache->spare >= limit) cache->atSpare = 0;
    if (cache->bound > limit) cache->bound = limit;
}

static void xDestroy(sqlite3_pcache *p) {
    Cache *cache = (Cache *)p;
    real.xDestroy(cache->real);
    sqlite3_free(cache);
}

static void xCachesize(sqlite3_pcache *p, int pages) { real.xCachesize(((Cache *)p)->real, pages); }
static int xPagecount(sqlite3_pcache *p) { return real.xPagecount(((Cache *)p)->real); }
static void xUnpin(sqlite3_pcache *p, sqlite3_pcache_page *page, int discard) { real.xUnpin(((Cache *)p)->real, page, discard); }
static void xShrink(sqlite3_pcache *p) { real.xShrink(((Cache *)p)->real); }

int CSQLitePageCache_install(void) {
    sqlite3_pcache_methods2 methods;
    int rc = sqlite3_config(SQLITE_CONFIG_GETPCACHE2, &methods);
    if (rc != SQLITE_OK) return rc;
    if (methods.xCreate == xCreate) return SQLITE_OK;
    real = methods;
    methods.xCreate = xCreate;
    methods.xCachesize = xCachesize;
    methods.xPagecount = xPagecount;
    methods.xFetch = xFetch;
    methods.xUnpin = xUnpin;
    methods.xRekey = xRekey;
    methods.xTruncate = xTruncate;
    methods.xDestroy = xDestroy;
    methods.xShrink = xShrink;
    return sqlite3_config(SQLITE_CONFIG_PCACHE2, &methods);
}

long long CSQLitePageCache_truncationsPassed(void) { return passed; }
long long CSQLitePageCache_truncationsSkipped(void) { return skipped; }
