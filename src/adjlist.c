/*-------------------------------------------------------------------------
 *
 * adjlist.c
 *	  Module entry point of the adjlist extension.
 *
 * adjlist makes the DynamoDB adjacency-list pattern native to PostgreSQL.
 * The code is split by concern:
 *
 *	adjkey_io.c			text/binary input and output of the adjkey type, casts
 *	adjkey_cmp.c		ordering, btree sort support, hashing
 *	adjkey_funcs.c		begins_with, prefix-range bounds, key components
 *	adjkey_support.c	planner support: index conditions and selectivity
 *	index_sync.c		the trigger that keeps inverted indexes in sync
 *
 * The SQL objects are created by adjlist--<version>.sql in this directory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include "adjlist.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	adjlist_sync_init();
}
