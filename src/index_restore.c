/*-------------------------------------------------------------------------
 *
 * index_restore.c
 *	  Registry rows that arrive from outside adjlist: pg_restore.
 *
 * pg_dump keeps an inverted index in four places: the registry's row
 * (extension configuration, dumped as data), the index and counter tables
 * (data), and the triggers (post-data).  Every way of restoring must end
 * with exact indexes, and the order in which a data-only restore copies
 * tables is the order of their names, so the registry's rows may come
 * before or after the tables they describe:
 *
 *	- A full restore (plain, -Fc, -j, --section in order) copies all data
 *	  before it creates the triggers.  A registry row that arrives before
 *	  its base table's triggers marks its index not ready: between the
 *	  sections anyone may write the base table (plain DML, the write API),
 *	  which nothing indexes yet, and reads must not trust the index.  The
 *	  CREATE TRIGGER that completes the base table's triggers makes the
 *	  index what the table says (index_rebuild(): the rows that drifted,
 *	  none when nobody wrote) and ready again.
 *
 *	- A data-only restore into a database whose schema (with its triggers)
 *	  is already there: a base table copied after its registry row is
 *	  indexed by its triggers, and the guard of the index and counter
 *	  tables refuses their dumped copies (index_sync_check.c), harmlessly.  A
 *	  base table copied before its registry row has triggers that find no
 *	  index yet and leave its rows alone; when the registry row arrives,
 *	  adjlist_registry_restored() rebuilds the index and its counters from
 *	  the base table (index_check.c), whatever was copied into them before.
 *	  Rows written between a schema-only restore and the data are indexed
 *	  the same way.
 *
 * A row inserted by anyone but adjlist must describe tables the inserting
 * role owns, consistently (registry.c's checks at use), and must not make
 * a table serve twice or serve itself: the registry accepts INSERT from
 * any role so that an owner can restore its own tables, and this check is
 * what makes that as safe as create_inverted_index(existing => true).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "index_admin.h"
#include "index_check.h"
#include "index_predicate.h"
#include "index_restore.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_registry_restored);

static void make_exact(const IndexDef *ix);

/*
 * Order this session's look at a partition tree's triggers and registry
 * rows with another's (pg_restore -j restores a registry row and the
 * triggers of each partition in parallel workers): both take a lock of
 * adjlist's own on the root of the tree of relid (a base table or a member
 * of one), which conflicts with itself, and look after it, with fresh
 * snapshots: of two sessions each adding what the other lacks (the last
 * triggers of two partitions, a registry row and a trigger), the second
 * sees the first's.  Not a lock of the root table itself: the CREATE
 * TRIGGER of a partition holds the partition's lock, and one of the root
 * (cloning its row triggers) takes the partitions' after the root's, so
 * waiting for the root's here would deadlock with it.
 */
static void
lock_tree(Oid relid)
{
	List	   *ancestors = get_rel_relispartition(relid) ?
		get_partition_ancestors(relid) : NIL;

	LockDatabaseObject(adjlist_catalog()->registry,
					   ancestors != NIL ? llast_oid(ancestors) : relid, 0, ExclusiveLock);
}

static Oid
oid_column(HeapTuple tup, TupleDesc desc, const char *name)
{
	int			attno = SPI_fnumber(desc, name);
	bool		isnull;
	Datum		v;

	if (attno <= 0)
		elog(ERROR, "the registry of extension adjlist lacks column \"%s\"", name);
	v = heap_getattr(tup, attno, desc, &isnull);
	return isnull ? InvalidOid : DatumGetObjectId(v);
}

/* Is relid's trigger name one on adjlist_sync_trigger(), adjlist's? */
static bool
is_sync_trigger(Oid relid, const char *name)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TriggerDesc *td = rel->trigdesc;
	bool		found = false;

	for (int i = 0; td != NULL && i < td->numtriggers && !found; i++)
		if (strcmp(td->triggers[i].tgname, name) == 0)
		{
			Oid			f = td->triggers[i].tgfoid;
			char	   *fname = get_func_name(f);

			found = fname != NULL && strcmp(fname, "adjlist_sync_trigger") == 0 &&
				get_func_namespace(f) == adjlist_catalog()->namespace;
		}
	table_close(rel, AccessShareLock);
	return found;
}

/* Does the base table have adjlist's sync triggers (is its schema whole)? */
static bool
has_sync_triggers(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TriggerDesc *td = rel->trigdesc;
	bool		found = false;

	for (int i = 0; td != NULL && i < td->numtriggers && !found; i++)
	{
		const char *name = td->triggers[i].tgname;

		found = (strcmp(name, "adjlist_sync_ins") == 0 || strcmp(name, "adjlist_sync") == 0);
	}
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * AFTER INSERT ON adjlist_inverted_indexes FOR EACH ROW: a registration
 * that adjlist did not write itself.
 */
Datum
adjlist_registry_restored(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TupleDesc	desc;
	Oid			indexrel;
	Oid			baserel;
	Oid			counterrel;
	char	   *conflict;
	IndexDef   *ix;

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_BY_INSERT(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event) || !TRIGGER_FIRED_AFTER(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function adjlist_registry_restored must fire AFTER INSERT FOR EACH ROW")));
	if (registry_written_by_adjlist())
		return PointerGetDatum(NULL);

	desc = RelationGetDescr(td->tg_relation);
	indexrel = oid_column(td->tg_trigtuple, desc, "indexrel");
	baserel = oid_column(td->tg_trigtuple, desc, "baserel");
	counterrel = oid_column(td->tg_trigtuple, desc, "counterrel");

	/* the caller registers its own tables only */
	if (get_rel_name(baserel) == NULL || get_rel_name(indexrel) == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("a registered inverted index must name existing tables")));
	if (!adjlist_rel_ownercheck(baserel, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(baserel));

	/*
	 * A predicate is checked as create_inverted_index() checks one, and
	 * bound to what its text names here and now (a dump has no OIDs),
	 * before anything reads it: this row's, and those of the other rows of
	 * the same table that the same COPY brought (their triggers fire
	 * later, and the checks below read every index of the table).
	 */
	registry_invalidate(baserel);
	CommandCounterIncrement();
	index_predicate_bind_missing(baserel);

	/* this session and every other must see the new row at once */
	registry_invalidate(baserel);
	CommandCounterIncrement();
	conflict = registry_row_conflict(indexrel, baserel, counterrel);
	if (conflict != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("cannot register inverted index \"%s\" of table \"%s\"",
						get_rel_name(indexrel), get_rel_name(baserel)),
				 errdetail("%s.", conflict)));
	ix = registry_index(indexrel, true);	/* checks owners, columns, types */
	if (ix == NULL)
		elog(ERROR, "inverted index \"%s\" was not registered", get_rel_name(indexrel));

	/*
	 * A base table whose triggers are all there may have rows they left
	 * alone (copied before this row) and an index holding copied rows: make
	 * the index what the table says.  Without them the schema is still being
	 * restored: nothing keeps the index until the post-data section has made
	 * the last of them, so it is not ready until then (reads refuse it;
	 * writes reach the base table only), and that CREATE TRIGGER makes it exact
	 * (index_restore_triggers_made).
	 */
	lock_tree(baserel);
	if (!admin_triggers_in_place(baserel))
		registry_set_ready(ix->indexrel, false);
	else if (has_sync_triggers(baserel))
		make_exact(ix);
	return PointerGetDatum(NULL);
}

/*
 * The index made what its base table says, and ready: after a restore
 * that copied rows the triggers did not see.
 */
static void
make_exact(const IndexDef *ix)
{
	/*
	 * Wait for whoever is still copying into the index or counter table
	 * (pg_restore -j): the rebuild must see their rows, and after it they
	 * find the table guarded.
	 */
	LockRelationOid(ix->indexrel, ExclusiveLock);
	if (OidIsValid(ix->counterrel))
		LockRelationOid(ix->counterrel, ExclusiveLock);
	(void) index_rebuild(ix);
	/* (a restore before its triggers, or a dump taken during a concurrent build) */
	if (!ix->ready)
		registry_set_ready(ix->indexrel, true);
}

/*
 * A CREATE TRIGGER that adjlist did not run made one of its sync triggers on
 * relid (a base table or a member of one): pg_restore's post-data section.
 * When that completes the triggers the base table's indexes need, an index
 * that is not ready is made exact: rows written between the data and
 * post-data sections reached the table without them.  Under a transaction
 * snapshot the rebuild could miss rows committed since it was taken; the
 * index is left not ready then (rebuild_inverted_index() completes it).
 * (A concurrent build's own triggers are made by adjlist, before its
 * backfill; a failed one keeps its triggers, so no CREATE TRIGGER of a sync
 * trigger can complete them.)
 */
void
index_restore_triggers_made(Oid relid, const char *name)
{
	Oid			base;
	TableIndexes *ti;

	if (IsolationUsesXactSnapshot() || !is_sync_trigger(relid, name))
		return;
	lock_tree(relid);
	base = registry_base_of(relid);
	if (!OidIsValid(base))
		return;
	ti = registry_lookup_unchecked(base);
	for (int i = 0; i < ti->nindexes; i++)
	{
		IndexDef   *ix;

		if (ti->indexes[i].ready)
			continue;
		if (!admin_triggers_in_place(base))
			return;
		ix = registry_index(ti->indexes[i].indexrel, true);
		if (ix != NULL && !ix->ready)
			make_exact(ix);
	}
}
