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
 *	catalog.c			where adjlist's own objects are, names, role switches
 *	rel_cache.c			the bounded per-relation caches the others keep
 *	registry.c			the registry of inverted indexes: its per-session
 *						cache, the lookups and stamps answered from it
 *	registry_read.c		reading adjlist_inverted_indexes and the bound
 *						predicates (the only code that does)
 *	registry_check.c	a registered index checked against the catalogs
 *	registry_write.c	writing the registry as its owner (the only code
 *						that does)
 *	base_key.c			the base key of an index stays unique
 *	plan_cache.c		saved SPI plans, keyed by statement and role
 *	index_rule.c		what index rows and counter deltas a base row gives
 *	index_predicate.c	the predicate of a sparse index
 *	base_scan.c			reading a base table (or one member) as its owner
 *	writer_info.c		what the writer knows of a table, cached; its path
 *	index_write.c		writing index rows: executor path or SQL
 *	index_sync.c		the triggers that keep inverted indexes in sync
 *	sync_setup.c		what their calls set up on a relation, cached
 *	index_sync_truncate.c TRUNCATE of an indexed table or partition
 *	index_sync_leaving.c writes into a partition being detached or dropped
 *	index_sync_check.c	which triggers may, and the index tables' guard
 *	sync_guard.c		statements whose rows no trigger sees: refused
 *	api_guard.c			plain writes of tables no trigger keeps: refused
 *	index_admin.c		an index's triggers, partitions' rows, drop
 *	index_create.c		create_inverted_index() in one transaction
 *	index_build.c		create_inverted_index(..., concurrently => true)
 *	index_check.c		verify, rebuild, counters, index rows
 *	ddl_collected.c		the relations a DDL command changed, as collected
 *	index_guard.c		event triggers: DDL on indexed tables, at its start
 *	index_guard_drop.c	DROP of partitions, schemas, owned objects; sql_drop
 *	index_guard_end.c	DDL followed at its end (ATTACH, DETACH, OWNER TO)
 *	index_guard_names.c	what a DDL's names found at its start, and what it did
 *	index_guard_cascade.c partitions and columns a DROP takes by a dependency
 *	index_guard_foreign.c ALTER FOREIGN TABLE ... OPTIONS of an indexed table
 *	detach_pending.c	partitions left half-detached: refused until FINALIZE
 *	index_persistence.c	LOGGED / UNLOGGED follows the base table
 *	index_restore.c		registry rows and sync triggers pg_restore brings back
 *	index_update.c		what ALTER EXTENSION UPDATE needs from C
 *	write_api.c			put_edge, put_edges, delete_edge, delete_node
 *	write_api_table.c	the write API's view of a table (write_api_int.h)
 *	write_api_index.c	index rows from the rows a write API statement returned
 *	write_api_put.c		the statements of a put and a delete, tracked puts
 *	write_api_cond.c	the conditional writes
 *	write_api_owner.c	Citus tables sharing placements: a write as the owner
 *	dynamo_io.c			DynamoDB JSON import and export
 *	write_shard.c		write-sharded partition keys
 *	graph_meta.c		what a table's graph looks like to the readers
 *	graph_reader.c		reading the edges of a node or a level
 *	graph_scan_direct.c	the direct btree path of the reader
 *	graph_scan_prefix.c	a level's edges of one prefix by one pass over
 *						the inverted index, on the direct path
 *	heap_prefetch.c		the heap pages a direct scan reads next, prefetched
 *	graph_scan_spi.c	the SQL path of the reader
 *	graph_nodes.c		node sets and expansion for multi-hop calls
 *	graph_query.c		one-hop functions: neighbors, reverse_neighbors, ...
 *	graph_neighbor_scan.c a custom scan that streams neighbors() in FROM
 *	graph_dynamo_query.c query(), query_count(), query_count_page(),
 *						explain_query()
 *	query_table.c		what those read of a table, and their statements,
 *						cached per session
 *	graph_batch_get.c	batch_get()
 *	graph_traverse.c	traverse, reachable_count, shortest_path
 *	graph_rank.c		common_neighbors, walk_ranked
 *	graph_weighted.c	shortest_path_weighted (Dijkstra)
 *	graph_export.c		DOT and Mermaid export
 *	graph_estimate.c	the planner's row estimates of the graph functions
 *	graph_columns.c		keys-only twins of neighbors and reverse_neighbors,
 *						chosen by the planner when data is not read
 *	table_options.c		a table's payload and expiry columns, sweep_expired()
 *	uninstall.c			adjlist_uninstall()
 *	uninstall_plan.c	what depends on the extension, found and sorted
 *	uninstall_rewrite.c	expressions on keys rewritten to use text
 *
 * The includes form layers, each using only those above it:
 *
 *	1. the key type: adjlist.h (adjkey_*.c), write_shard.h, compat.h
 *	2. where adjlist's objects are: catalog.h; saved plans: plan_cache.h
 *	3. the registry of inverted indexes: registry.h
 *	4. index rules and the one writer: index_rule.h, index_predicate.h,
 *	   index_write.h, writer_info.h
 *	5. what keeps indexes exact: index_sync.c, sync_guard.c, api_guard.c (index_sync_check.h), index_admin.h (index_admin.c,
 *	   index_create.c, index_build.c), index_check.h, index_guard*.c,
 *	   index_restore.c, index_update.c, write_api*.c (write_api_int.h),
 *	   dynamo_io.h
 *	6. the read paths: graph.h (graph_meta.c, graph_reader.c), graph_scan.h
 *	   (graph_scan_*.c; graph_scan_direct_int.h)
 *	7. graph algorithms: graph_query.c, graph_dynamo_query.c (query_table.h),
 *	   graph_batch_get.c, graph_nodes.c, graph_traverse.c, graph_rank.c,
 *	   graph_weighted.c, graph_export.c, graph_estimate.c, graph_columns.c
 *
 * The SQL objects are created by adjlist--<version>.sql, which the
 * Makefile assembles from src/sql/.
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
#include "index_sync_check.h"
#include "registry.h"
#include "table_options.h"

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
	DefineCustomIntVariable("adjlist.max_memory",
							"Most memory one graph function call may hold for the "
							"nodes it visits.",
							"-1 means maintenance_work_mem.  A call that would "
							"hold more stops with an error instead of running the "
							"server out of memory.",
							&adjlist_max_memory,
							-1, -1, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);
	graph_neighbor_scan_init();
	sync_guard_init();
	MarkGUCPrefixReserved("adjlist");

	adjlist_catalog_init();
}
