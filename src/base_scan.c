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
 * A partition (at any depth) may have another owner than its base table:
 * a superuser created it, or the base table changed owners and its
 * partitions kept theirs.  Its rows must still leave the index when it is
 * dropped, detached or truncated by whoever may do that, and join it when
 * it is attached.  The base table's owner, who writes the index, may then
 * have no privilege on the partition, and the partition's row security
 * would apply to it.  So such a partition is read through the base table,
 * where, as in any query of a partitioned table, privileges and row
 * security are the base table's alone.  The query names the partition's
 * constraint (its bound and its ancestors'), from which the planner prunes
 * the other partitions where it can (range and list bounds, not hash or
 * default ones), and its tableoid, which keeps exactly its rows whatever
 * pruning did.  A partition the owner owns and may read is read directly:
 * pruning cannot single out a hash or default partition, and reading one
 * through the base table scans every partition.
 *
 * The DDL and TRUNCATE of a member, which whoever may do them must be able
 * to do (a superuser, the member's owner), and the TRUNCATE of the base
 * table, read with base_scan_direct() instead: each heap member is scanned
 * in C, as the sync trigger reads its transition tables (the same
 * index_row_extract(), predicate included), so that the read needs no
 * privilege of the owner's (USAGE on a schema, SELECT on a table it
 * revoked from itself) and no row-level security applies, forced or not:
 * a row left out there would leave its index row behind.  Only a foreign
 * member, which only its wrapper can read, is read with SQL, as above.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/snapmgr.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "index_predicate.h"
#include "index_rule.h"

#define BASE_SCAN_BATCH 1000

/*
 * Is relid a partition of base that the current role (the base table's
 * owner) is to read through base?  One it owns and may read is read
 * directly; one no longer in base (detached) can only be read directly.
 */
static bool
read_through_base(Oid relid, Oid base)
{
	Oid			owner = GetUserId();

	if (relid == base || !get_rel_relispartition(relid) ||
		!list_member_oid(get_partition_ancestors(relid), base))
		return false;
	return !(adjlist_rel_ownercheck(relid, owner) &&
			 pg_class_aclcheck(relid, owner, ACL_SELECT) == ACLCHECK_OK);
}

/*
 * The condition that keeps the rows of partition relid in a query of its
 * base table: its partition constraint, for pruning, and its tableoid (or
 * those of its own partitions).  The constraint is deparsed under the
 * search_path it is parsed with (the caller's pin); a partition's columns
 * have its base table's names.
 */
static char *
member_condition(Oid relid)
{
	StringInfoData buf;
	Expr	   *qual = get_partition_qual_relid(relid);
	List	   *members = find_all_inheritors(relid, AccessShareLock, NULL);
	ListCell   *lc;

	initStringInfo(&buf);
	if (qual != NULL)
		appendStringInfo(&buf, "(%s) AND ",
						 deparse_expression((Node *) qual,
											deparse_context_for(get_rel_name(relid), relid),
											false, false));
	appendStringInfoString(&buf, "tableoid OPERATOR(pg_catalog.=) ANY ('{");
	foreach(lc, members)
		appendStringInfo(&buf, "%s%u", foreach_current_index(lc) ? "," : "", lfirst_oid(lc));
	appendStringInfoString(&buf, "}'::pg_catalog.oid[])");
	return buf.data;
}

void
base_scan(Oid relid, const IndexDef *ix, bool latest, bool all_rows,
		  BaseRowCallback cb, void *arg)
{
	StringInfoData sql;
	Portal		portal;
	Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
	bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist base row",
												 ALLOCSET_DEFAULT_SIZES);
	bool		through = read_through_base(relid, ix->baserel);
	IndexPredicateState *pred = index_predicate_begin_sql(ix);
	AdjlistRoleSwitch pin = {.guc_nest = -1};

	/* a deparsed condition is parsed with the path it was deparsed with */
	if (through)
		adjlist_become_pin_path(&pin);
	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&sql, "%s%s", i ? ", " : "", quote_identifier(ix->colnames[i]));
	/* and the columns of a sparse index's predicate, evaluated here */
	appendStringInfo(&sql, "%s FROM %s", index_predicate_select(ix),
					 adjlist_qualified_name(through ? ix->baserel : relid));
	if (through)
		appendStringInfo(&sql, " WHERE %s", member_condition(relid));
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
			for (int i = 0; i < ix->ncols; i++)
				base[i] = SPI_getbinval(tup, tt->tupdesc, i + 1, &basenull[i]);
			/* a sparse index's rows only, or every row with its predicate's value */
			base[ix->ncols] = BoolGetDatum(index_predicate_check_row(pred, tup, tt->tupdesc,
																	 ix->ncols + 1));
			basenull[ix->ncols] = false;
			if (all_rows || DatumGetBool(base[ix->ncols]))
				cb(arg, base, basenull);
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
		}
		SPI_freetuptable(tt);
	}
	SPI_cursor_close(portal);
	index_predicate_end(pred);
	MemoryContextDelete(rowcxt);
	if (pin.guc_nest >= 0)
		AtEOXact_GUC(true, pin.guc_nest);
}

/* base_scan_direct(): the rows of one heap member, with snapshot snap. */
static void
scan_heap_member(Oid relid, const IndexDef *ix, Snapshot snap, bool all_rows,
				 BaseRowCallback cb, void *arg, MemoryContext rowcxt)
{
	Relation	rel = table_open(relid, AccessShareLock);
	AttrNumber *attnos = index_row_attnos(ix, RelationGetDescr(rel));
	IndexPredicateState *pred = ix->predicate != NULL ? index_predicate_begin(ix, rel) : NULL;
	TupleTableSlot *slot = table_slot_create(rel, NULL);
	TableScanDesc scan = table_beginscan(rel, snap, 0, NULL);
	Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
	bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		CHECK_FOR_INTERRUPTS();
		/* the values and the predicate's, as the sync trigger takes them */
		index_row_extract(ix, attnos, pred, slot, base, basenull);
		if (all_rows || DatumGetBool(base[ix->ncols]))
			cb(arg, base, basenull);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	index_predicate_end(pred);
	pfree(base);
	pfree(basenull);
	pfree(attnos);
	table_close(rel, AccessShareLock);
}

void
base_scan_direct(Oid relid, const IndexDef *ix, bool latest, bool all_rows,
				 BaseRowCallback cb, void *arg)
{
	List	   *members = find_all_inheritors(relid, AccessShareLock, NULL);
	ListCell   *lc;
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist base row",
												 ALLOCSET_DEFAULT_SIZES);
	/* registered: the callbacks write, and run code, meanwhile */
	Snapshot	snap = RegisterSnapshot(latest ? GetLatestSnapshot() : GetActiveSnapshot());

	foreach(lc, members)
	{
		Oid			member = lfirst_oid(lc);

		switch (get_rel_relkind(member))
		{
			case RELKIND_RELATION:
				scan_heap_member(member, ix, snap, all_rows, cb, arg, rowcxt);
				break;
			case RELKIND_FOREIGN_TABLE:
				/* (the caller is connected to SPI and acts as the owner) */
				base_scan(member, ix, latest, all_rows, cb, arg);
				break;
			default:
				break;			/* a partitioned table holds no rows */
		}
	}
	UnregisterSnapshot(snap);
	MemoryContextDelete(rowcxt);
	list_free(members);
}
