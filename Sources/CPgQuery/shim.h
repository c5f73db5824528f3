/* libpg_query: the Postgres server's own SQL parser as a library (Debian's libpg-query-dev). */
#include <pg_query.h>
