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
 *	graph_source.c		reading one node's edges: direct btree scan or SPI
 *	graph_query.c		one-hop functions: neighbors, reverse_neighbors, ...
 *	graph_traverse.c	multi-hop functions: traverse, shortest_path, ...
 *
 * The SQL objects are created by adjlist--<version>.sql in this directory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"

#include <limits.h>

#include "utils/guc.h"

#include "adjlist.h"
#include "catalog.h"
#include "graph.h"
#include "registry.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomIntVariable("adjlist.max_visited",
							"Most nodes one graph function call may visit.",
							"A traversal that would visit more stops with an error "
							"instead of using ever more memory.",
							&adjlist_max_visited,
							1000000, 1, INT_MAX,
							PGC_USERSET, 0,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("adjlist");

	adjlist_catalog_init();
	registry_init();
	graph_meta_init();
}
