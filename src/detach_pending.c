/*-------------------------------------------------------------------------
 *
 * detach_pending.c
 *	  A partition whose ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY
 *	  was interrupted (cancelled, timed out, its session gone) stays
 *	  "detach pending" (pg_inherits.inhdetachpending) until DETACH
 *	  PARTITION ... FINALIZE completes it.  Meanwhile queries of its parent
 *	  leave it out, and so does everything adjlist reads through the base
 *	  table: a new index would not hold its rows, it would get no triggers,
 *	  and FINALIZE (whose end takes the detached partition's rows out of the
 *	  index, as DETACH's start does) would then take out rows the index
 *	  never had, driving the degree counters below zero.
 *
 *	  So an index is not created, rebuilt, or given a new partition (ATTACH
 *	  of a partitioned table) while such a partition is under its table:
 *	  FINALIZE comes first.  Once a table has an index, DETACH ...
 *	  CONCURRENTLY of its partitions is refused (index_guard.c), so no
 *	  partition becomes pending under it later.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "detach_pending.h"

/* The first partition of parent (one level) whose detach is pending. */
static Oid
pending_child(Oid parent)
{
	Relation	inh = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			found = InvalidOid;

	ScanKeyInit(&key, Anum_pg_inherits_inhparent, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(parent));
	scan = systable_beginscan(inh, InheritsParentIndexId, true, NULL, 1, &key);
	while ((tup = systable_getnext(scan)) != NULL)
	{
		Form_pg_inherits f = (Form_pg_inherits) GETSTRUCT(tup);

		if (f->inhdetachpending)
		{
			found = f->inhrelid;
			break;
		}
	}
	systable_endscan(scan);
	table_close(inh, AccessShareLock);
	return found;
}

void
detach_pending_refuse(Oid relid, const char *action)
{
	ListCell   *lc;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return;
	/*
	 * (find_all_inheritors() leaves pending partitions out, with their own
	 * partitions; the parent of a pending one is among those it returns)
	 */
	foreach(lc, find_all_inheritors(relid, NoLock, NULL))
	{
		Oid			parent = lfirst_oid(lc);
		Oid			part;

		if (get_rel_relkind(parent) != RELKIND_PARTITIONED_TABLE ||
			!OidIsValid(part = pending_child(parent)))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot %s while partition \"%s\" of \"%s\" is pending detach",
						action, get_rel_name(part), get_rel_name(parent)),
				 errdetail("Its ALTER TABLE ... DETACH PARTITION ... CONCURRENTLY did not complete; queries leave it out, and an inverted index could not be kept exact over it."),
				 errhint("Complete the detach first: ALTER TABLE %s DETACH PARTITION %s FINALIZE.",
						 adjlist_qualified_name(parent), adjlist_qualified_name(part))));
	}
}
