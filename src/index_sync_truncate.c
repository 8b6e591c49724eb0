/*-------------------------------------------------------------------------
 *
 * index_sync_truncate.c
 *	  TRUNCATE of a table with inverted indexes, and of its partitions.
 *
 * Truncating the base table truncates its index tables (and counter
 * tables) in its AFTER trigger.  Truncating one partition removes the
 * index rows of that partition's rows, read in its BEFORE trigger while
 * they still exist; when the whole base table is truncated its own BEFORE
 * trigger, which fires first, marks the statement so that the partitions'
 * triggers leave the work to the AFTER trigger.  A partition that is
 * itself partitioned leaves its rows to the BEFORE triggers of its own
 * partitions, which TRUNCATE fires too (but for foreign ones, which have no
 * TRUNCATE trigger: it reads those itself).  It must not read them for its
 * partitions: its writes advance the command counter that keys the mark,
 * so they would remove the same rows a second time, not find them, and put
 * them back from the table that still holds them (recheck_removed()).
 * Users' TRUNCATE triggers fire in name order around adjlist's: the AFTER
 * trigger therefore indexes what the base table holds once it has emptied
 * the index (rows an earlier AFTER trigger wrote), and a row written into a
 * partition between its BEFORE trigger and its emptying is refused
 * (sync_refuse_truncating_writes()).
 *
 * The triggers are adjlist_sync_before_trunc (on the base table and on
 * every partition) and adjlist_sync_trunc (the base table only), both
 * calling adjlist_sync_trigger() (index_sync.c), which hands TRUNCATE
 * here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "compat.h"
#include "index_sync_int.h"
#include "plan_cache.h"

/*
 * The base tables whose own BEFORE TRUNCATE trigger fired in the current
 * statement.  Keyed by the statement (transaction, subtransaction and
 * command), so what an aborted statement left here never matches a later
 * one.
 */
static struct
{
	LocalTransactionId lxid;
	SubTransactionId subxid;
	CommandId	cid;
	int			n;
	Oid			rels[16];
} truncating;

static bool
truncating_now(void)
{
	return truncating.lxid == adjlist_local_xid() &&
		truncating.subxid == GetCurrentSubTransactionId() &&
		truncating.cid == GetCurrentCommandId(false);
}

static void
mark_truncating(Oid relid)
{
	if (!truncating_now())
	{
		truncating.lxid = adjlist_local_xid();
		truncating.subxid = GetCurrentSubTransactionId();
		truncating.cid = GetCurrentCommandId(false);
		truncating.n = 0;
	}
	if (truncating.n < (int) lengthof(truncating.rels))
		truncating.rels[truncating.n++] = relid;
}

static bool
ancestor_truncating(Oid relid)
{
	List	   *ancestors;
	ListCell   *lc;

	if (!truncating_now() || !get_rel_relispartition(relid))
		return false;
	ancestors = get_partition_ancestors(relid);
	foreach(lc, ancestors)
	{
		for (int i = 0; i < truncating.n; i++)
			if (truncating.rels[i] == lfirst_oid(lc))
				return true;
	}
	return false;
}

/*
 * Partitions whose BEFORE TRUNCATE trigger has removed their rows' index
 * rows, and which the TRUNCATE has not emptied yet: a row written into one
 * now (by a user's BEFORE TRUNCATE trigger that fires after adjlist's, on
 * the partition or on another table the TRUNCATE names) would be indexed by
 * its statement's trigger and then truncated, leaving its index row behind.
 * Such a write is refused (sync_refuse_truncating_writes()).  A whole-table
 * TRUNCATE marks no partition: its AFTER trigger indexes the table afresh.
 *
 * The TRUNCATE gives the partition a new relfilenode, which ends the
 * window exactly: nothing else does (a GRANT on it meanwhile, which
 * invalidates its relcache entry, does not).  A partition created (or
 * given a new relfilenode) in the same transaction may be emptied in place
 * instead, keeping its relfilenode: for one such, the next relcache
 * invalidation for it ends the window (the emptying sends one, its
 * indexes being rebuilt), which another invalidation meanwhile ends early
 * too; only such a partition, made in the transaction itself, has that
 * gap.  A subtransaction that aborts takes its marks, and a transaction
 * all of them.
 */
typedef struct PendingTruncate
{
	Oid			relid;
	Oid			base;
	Oid			filenode;
	SubTransactionId subxid;
	bool		covered;		/* the whole base table is being truncated */
	bool		in_place;		/* may be emptied keeping its relfilenode */
	bool		done;
} PendingTruncate;

static List *pending_truncates = NIL;	/* in TopTransactionContext */
static LocalTransactionId pending_lxid = InvalidLocalTransactionId;

static List *
pending_list(void)
{
	if (pending_lxid != adjlist_local_xid())
		pending_truncates = NIL;	/* (freed with its transaction) */
	return pending_truncates;
}

static void
pending_relcache_callback(Datum arg, Oid relid)
{
	ListCell   *lc;

	/* InvalidOid (a cache reset) proves nothing: the filenode still does */
	if (!OidIsValid(relid) || pending_lxid != adjlist_local_xid())
		return;
	foreach(lc, pending_truncates)
	{
		PendingTruncate *p = (PendingTruncate *) lfirst(lc);

		if (p->relid == relid && p->in_place)
			p->done = true;
	}
}

static void
pending_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	ListCell   *lc;

	if (event != SUBXACT_EVENT_ABORT_SUB || pending_lxid != adjlist_local_xid())
		return;
	foreach(lc, pending_truncates)
		if (((PendingTruncate *) lfirst(lc))->subxid >= mySubid)
			((PendingTruncate *) lfirst(lc))->done = true;
}

static void
mark_pending(Oid relid, Oid filenode, Oid base, bool covered)
{
	static bool registered = false;
	MemoryContext old;
	PendingTruncate *p;
	Relation	rel = relation_open(relid, NoLock);	/* (TRUNCATE locked it) */
	bool		in_place = ADJLIST_REL_NEW_IN_XACT(rel);

	relation_close(rel, NoLock);

	if (!registered)
	{
		CacheRegisterRelcacheCallback(pending_relcache_callback, (Datum) 0);
		RegisterSubXactCallback(pending_subxact_callback, NULL);
		registered = true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	p = palloc(sizeof(PendingTruncate));
	p->relid = relid;
	p->base = base;
	p->filenode = filenode;
	p->subxid = GetCurrentSubTransactionId();
	p->covered = covered;
	p->in_place = in_place;
	p->done = false;
	pending_truncates = lappend(pending_list(), p);
	pending_lxid = adjlist_local_xid();
	MemoryContextSwitchTo(old);
}

/* Is entry p still waiting for its TRUNCATE (see above)? */
static bool
pending_live(PendingTruncate *p)
{
	HeapTuple	tup;

	if (p->done)
		return false;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(p->relid));
	if (!HeapTupleIsValid(tup))
		p->done = true;
	else
	{
		if (((Form_pg_class) GETSTRUCT(tup))->relfilenode != p->filenode)
			p->done = true;
		ReleaseSysCache(tup);
	}
	return !p->done;
}

/* The partitions of base that a TRUNCATE of theirs is about to empty. */
static List *
pending_of(Oid base)
{
	List	   *out = NIL;
	ListCell   *lc;

	foreach(lc, pending_list())
	{
		PendingTruncate *p = lfirst(lc);

		if (!p->covered && p->base == base && pending_live(p))
			out = lappend_oid(out, p->relid);
	}
	return out;
}

/*
 * Is the leaf partition relid about to be emptied by a TRUNCATE of its
 * whole base table, whose own BEFORE trigger noted it (truncate_before())?
 */
static bool
covered_by_base(Oid relid)
{
	ListCell   *lc;

	foreach(lc, pending_list())
	{
		PendingTruncate *p = lfirst(lc);

		if (p->covered && p->relid == relid && pending_live(p))
			return true;
	}
	return false;
}

/*
 * BEFORE TRUNCATE of the base table itself: note its leaf partitions, whose
 * own BEFORE triggers then leave the work to the base table's AFTER
 * trigger.  By relfilenode, as above, not by command id: a user's BEFORE
 * TRUNCATE trigger that writes advances the command counter in between.
 */
static void
mark_base_truncating(Relation rel)
{
	List	   *members;
	ListCell   *lc;

	if (rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		return;
	/* (TRUNCATE has locked them all) */
	members = find_all_inheritors(RelationGetRelid(rel), NoLock, NULL);
	foreach(lc, members)
	{
		Oid			relid = lfirst_oid(lc);
		HeapTuple	tup;

		if (get_rel_relkind(relid) != RELKIND_RELATION)
			continue;
		tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
		if (!HeapTupleIsValid(tup))
			continue;
		mark_pending(relid, ((Form_pg_class) GETSTRUCT(tup))->relfilenode,
					 RelationGetRelid(rel), true);
		ReleaseSysCache(tup);
	}
	list_free(members);
}

static void
refuse_pending_write(Oid part, Oid base)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot write into partition \"%s\" while TRUNCATE is emptying it",
					get_rel_name(part)),
			 errdetail("The row was written by a BEFORE TRUNCATE trigger after the rows of the partition left the inverted index of table \"%s\"; the TRUNCATE would remove the row and leave its index row.",
					   get_rel_name(base)),
			 errhint("Write the row from an AFTER TRUNCATE trigger, which runs once the partition is empty.")));
}

/*
 * Refuse new rows (of an INSERT or UPDATE on rel) that landed in a
 * partition of the base table that a TRUNCATE is about to empty.  Only
 * while such a partition exists (a BEFORE TRUNCATE trigger is running):
 * each row is then looked up in it by its base key, through the base table.
 */
void
sync_refuse_truncating_writes(SyncState *st, Relation rel, Tuplestorestate *news,
						 TupleTableSlot *newslot)
{
	const IndexDef *ix = st->indexes[0].ix;
	Oid			relid = RelationGetRelid(rel);
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *parts = pending_of(st->ti->baserel);
	ListCell   *lc;
	StringInfoData sql;
	Oid		   *types;
	Datum	   *values;
	char	   *nulls;
	AttrNumber *attnos;
	TupleTableSlot *slot = newslot;
	SPIPlanPtr	plan;

	if (parts == NIL)
		return;
	foreach(lc, parts)
		if (lfirst_oid(lc) == relid || ix->nbasekey == 0)
			refuse_pending_write(lfirst_oid(lc), st->ti->baserel);
	types = palloc(sizeof(Oid) * (ix->nbasekey + 1));
	values = palloc(sizeof(Datum) * (ix->nbasekey + 1));
	nulls = palloc(ix->nbasekey + 1);
	attnos = palloc(sizeof(AttrNumber) * ix->nbasekey);
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT tableoid FROM %s WHERE tableoid OPERATOR(pg_catalog.=) ANY ($1)",
					 adjlist_qualified_name(st->ti->baserel));
	types[0] = OIDARRAYOID;
	for (int b = 0; b < ix->nbasekey; b++)
	{
		attnos[b] = get_attnum(relid, ix->base_key[b]);
		types[b + 1] = TupleDescAttr(desc, attnos[b] - 1)->atttypid;
		appendStringInfo(&sql, " AND %s %s $%d", quote_identifier(ix->base_key[b]),
						 adjlist_equality_sql(types[b + 1]), b + 2);
	}
	{
		Datum	   *oids = palloc(sizeof(Datum) * list_length(parts));

		foreach(lc, parts)
			oids[foreach_current_index(lc)] = ObjectIdGetDatum(lfirst_oid(lc));
		values[0] = PointerGetDatum(construct_array(oids, list_length(parts), OIDOID,
													sizeof(Oid), true, TYPALIGN_INT));
	}
	nulls[0] = ' ';
	if (!st->spi)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		st->spi = true;
	}
	plan = adjlist_plan(sql.data, ix->nbasekey + 1, types);
	if (news != NULL)
	{
		slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
		tuplestore_select_read_pointer(news, tuplestore_alloc_read_pointer(news, EXEC_FLAG_REWIND));
		tuplestore_rescan(news);
	}
	while (news == NULL ? slot != NULL : tuplestore_gettupleslot(news, true, false, slot))
	{
		for (int b = 0; b < ix->nbasekey; b++)
		{
			bool		isnull;

			values[b + 1] = slot_getattr(slot, attnos[b], &isnull);
			nulls[b + 1] = isnull ? 'n' : ' ';
		}
		adjlist_plan_execute_latest(plan, values, nulls, SPI_OK_SELECT);
		if (SPI_processed > 0)
		{
			bool		isnull;

			refuse_pending_write(DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0],
																 SPI_tuptable->tupdesc, 1,
																 &isnull)),
								 st->ti->baserel);
		}
		if (news == NULL)
			break;
	}
	if (news != NULL)
		ExecDropSingleTupleTableSlot(slot);
}

typedef struct RemoveArg
{
	SyncIndex  *si;
} RemoveArg;

static void
remove_base_row(void *arg, Datum *base, bool *basenull)
{
	SyncIndex  *si = ((RemoveArg *) arg)->si;

	for (int i = 0; i < INDEX_BASE_LEN(si->ix); i++)
	{
		si->base[0][i] = base[i];
		si->basenull[0][i] = basenull[i];
	}
	if (index_row(si->ix, si->base[0], si->basenull[0], si->row[0], si->rownull[0],
				  &si->logical[0]))
		sync_remove_row(si, 0, true);
}

/*
 * The members of a partition that its BEFORE TRUNCATE trigger reads: a
 * leaf itself; a partitioned one only its foreign partitions (at any
 * depth), which have no TRUNCATE trigger of their own.
 */
static List *
truncated_members(Relation rel)
{
	List	   *members;
	List	   *foreign = NIL;
	ListCell   *lc;

	if (rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE)
		return list_make1_oid(RelationGetRelid(rel));
	/* (TRUNCATE has locked them all) */
	members = find_all_inheritors(RelationGetRelid(rel), NoLock, NULL);
	foreach(lc, members)
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			foreign = lappend_oid(foreign, lfirst_oid(lc));
	list_free(members);
	return foreign;
}

/*
 * BEFORE TRUNCATE of a partition (at any depth) of a base table: remove
 * the index rows of its rows (truncated_members()), unless the base table
 * itself is being truncated by the same statement.
 */
void
sync_truncate_before(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	List	   *members;
	ListCell   *lc;
	SyncState	st;

	if (registry_base_of(relid) == relid)
	{
		mark_truncating(relid);
		mark_base_truncating(rel);
		return;
	}
	if (ancestor_truncating(relid) ||
		(rel->rd_rel->relkind == RELKIND_RELATION && covered_by_base(relid)))
		return;
	members = truncated_members(rel);
	if (members == NIL)
		return;
	sync_begin(&st, rel, true);
	if (!st.spi && st.nindexes > 0)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		st.spi = true;
	}
	foreach(lc, members)
	{
		for (int i = 0; i < st.nindexes; i++)
		{
			RemoveArg	a = {&st.indexes[i]};

			base_scan_direct(lfirst_oid(lc), st.indexes[i].ix, true, false, remove_base_row, &a);
		}
	}

	/*
	 * No look-up of a removed key: the rows are about to go, and it would
	 * find them still there and put their index rows back (a row put
	 * earlier in this message, which the put filter holds).  The base key
	 * is unique over the whole table, so no other partition has the key.
	 */
	for (int i = 0; i < st.nindexes; i++)
	{
		list_free_deep(st.indexes[i].recheck);
		st.indexes[i].recheck = NIL;
	}
	sync_end(&st);
	if (rel->rd_rel->relkind == RELKIND_RELATION)
		mark_pending(relid, rel->rd_rel->relfilenode, registry_base_of(relid), false);
}

static void
put_base_row(void *arg, Datum *base, bool *basenull)
{
	SyncIndex  *si = ((RemoveArg *) arg)->si;

	for (int i = 0; i < INDEX_BASE_LEN(si->ix); i++)
	{
		si->base[1][i] = base[i];
		si->basenull[1][i] = basenull[i];
	}
	if (index_row(si->ix, si->base[1], si->basenull[1], si->row[1], si->rownull[1],
				  &si->logical[1]))
		sync_put_row(si, 1, true, true);
}

/*
 * AFTER TRUNCATE of the base table: empty its index and counter tables,
 * then index what the table holds by now.  That is normally nothing, and
 * reading an empty table is cheap; but a user's AFTER TRUNCATE trigger
 * that fires before this one (triggers fire in the order of their names),
 * or one of a table the same TRUNCATE names before this one, may have
 * written rows, which their own statements' triggers indexed and the
 * TRUNCATE of the index table just removed.
 */
void
sync_truncate_after(Relation rel)
{
	SyncState	st;

	sync_begin(&st, rel, true);
	if (st.nindexes == 0)
	{
		sync_end(&st);
		return;
	}
	if (!st.spi)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		st.spi = true;
	}
	for (int i = 0; i < st.nindexes; i++)
	{
		index_writer_truncate(st.indexes[i].ix->indexrel);
		if (OidIsValid(st.indexes[i].ix->counterrel))
			index_writer_truncate(st.indexes[i].ix->counterrel);
	}
	for (int i = 0; i < st.nindexes; i++)
	{
		RemoveArg	a = {&st.indexes[i]};

		base_scan_direct(RelationGetRelid(rel), st.indexes[i].ix, true, false, put_base_row,
						 &a);
	}
	sync_end(&st);
}


/* Is a TRUNCATE of this transaction waiting to empty a partition? */
bool
sync_truncate_pending(void)
{
	return pending_list() != NIL;
}
