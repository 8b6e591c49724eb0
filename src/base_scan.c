/*-------------------------------------------------------------------------
 *
 * base_scan.c
 *	  Reading every row of a base table, for the backfill of a new index,
 *	  verify and rebuild, and the partition DDL the event triggers follow.
 *
 * The rows are read with SQL (a cursor, fetched in batches), so that a
 * partitioned or foreign base table, or a partition of one, is read like a
 * plain one.  Maintenance reads with the latest snapshot: it has locked
 * the table against writers after its statement's snapshot was taken, and
 * must see what they committed in between.  The caller acts as the table's owner with row-level security
 * not forced (adjlist_become()): an index covers every row, whatever the
 * policies, as a btree index does.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_predicate.h"
#include "index_rule.h"

#define BASE_SCAN_BATCH 1000

void
base_scan(Oid relid, const IndexDef *ix, bool latest, BaseRowCallback cb, void *arg)
{
	StringInfoData sql;
	Portal		portal;
	Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
	bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist base row",
												 ALLOCSET_DEFAULT_SIZES);

	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&sql, "%s%s", i ? ", " : "", quote_identifier(ix->colnames[i]));
	/* a sparse index's rows only (the caller pinned search_path) */
	appendStringInfo(&sql, ", true FROM %s", adjlist_qualified_name(relid));
	if (ix->predicate != NULL)
		appendStringInfo(&sql, " WHERE %s", index_predicate_sql(ix->predicate));
	/* a read-only cursor reads with the active snapshot */
	if (latest)
		PushActiveSnapshot(GetLatestSnapshot());
	portal = SPI_cursor_open_with_args(NULL, sql.data, 0, NULL, NULL, NULL, true,
									   CURSOR_OPT_NO_SCROLL);
	if (latest)
		PopActiveSnapshot();
	for (;;)
	{
		SPITupleTable *tt;
		uint64		n;

		SPI_cursor_fetch(portal, true, BASE_SCAN_BATCH);
		/* the callback may run SQL, which replaces SPI_tuptable */
		tt = SPI_tuptable;
		n = SPI_processed;
		if (n == 0)
			break;
		for (uint64 r = 0; r < n; r++)
		{
			HeapTuple	tup = tt->vals[r];
			MemoryContext old = MemoryContextSwitchTo(rowcxt);

			CHECK_FOR_INTERRUPTS();
			for (int i = 0; i < INDEX_BASE_LEN(ix); i++)
				base[i] = SPI_getbinval(tup, tt->tupdesc, i + 1, &basenull[i]);
			cb(arg, base, basenull);
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
		}
		SPI_freetuptable(tt);
	}
	SPI_cursor_close(portal);
	MemoryContextDelete(rowcxt);
}
