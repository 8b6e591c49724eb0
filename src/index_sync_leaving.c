/*-------------------------------------------------------------------------
 *
 * index_sync_leaving.c
 *	  Writes into a partition whose rows have left the index at the start
 *	  of a DETACH PARTITION or DROP that has not ended yet.
 *
 * DETACH PARTITION, DROP TABLE of a partition, and DROP SCHEMA ... CASCADE
 * or DROP OWNED that drop one, take the partition's rows out of the index
 * at ddl_command_start, while they can still be read through the base
 * table (index_guard.c, index_guard_drop.c).  Until the command has
 * detached or dropped it, the partition is still in the base table, and
 * still has the sync triggers: a row written into it meanwhile (by a
 * user's ddl_command_start event trigger that fires after adjlist's, such
 * as an audit trigger that logs the command into the table, or by a
 * trigger of a write that one makes) would be indexed, and stay in the
 * index once the partition has gone; a row deleted or moved out of it
 * would take off an index row that is no longer there, and count it.
 * So, as TRUNCATE's window is guarded (index_sync_truncate.c), the sync
 * trigger refuses any write that reads or writes a row of a leaving
 * partition.  Which partition a row is in: the partition's constraint
 * (with its ancestors'), evaluated on the row as the trigger sees it,
 * through the base table or a partition above it; a write into the
 * partition itself (or one below it) is refused whole.
 *
 * The window ends when the command does: its ddl_command_end forgets the
 * partitions its start marked (sync_leaving_forget()); DROP SCHEMA and DROP
 * OWNED have no such end, and a dropped partition is simply gone.  An
 * aborted subtransaction takes its marks, and a transaction all of them.
 * When nothing is leaving, the trigger pays one comparison.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "nodes/makefuncs.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/partcache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "compat.h"
#include "index_sync_leaving.h"

typedef struct Leaving
{
	Oid			relid;
	Oid			base;
	bool		detaching;
	SubTransactionId subxid;
	CommandId	cid;			/* the command counter when it was marked */
} Leaving;

static List *leaving = NIL;		/* in TopTransactionContext */
static LocalTransactionId leaving_lxid = InvalidLocalTransactionId;

static List *
leaving_list(void)
{
	if (leaving_lxid != adjlist_local_xid())
		leaving = NIL;			/* (freed with its transaction) */
	return leaving;
}

static void
leaving_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						 SubTransactionId parentSubid, void *arg)
{
	if (event != SUBXACT_EVENT_ABORT_SUB || leaving_list() == NIL)
		return;
	for (int i = list_length(leaving) - 1; i >= 0; i--)
		if (((Leaving *) list_nth(leaving, i))->subxid >= mySubid)
			leaving = list_delete_nth_cell(leaving, i);
}

void
sync_leaving_mark(Oid base, Oid relid, bool detaching)
{
	static bool registered = false;
	MemoryContext old;
	Leaving    *l;

	if (!registered)
	{
		RegisterSubXactCallback(leaving_subxact_callback, NULL);
		registered = true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	l = palloc(sizeof(Leaving));
	l->relid = relid;
	l->base = base;
	l->detaching = detaching;
	l->subxid = GetCurrentSubTransactionId();
	l->cid = GetCurrentCommandId(false);
	leaving = lappend(leaving_list(), l);
	leaving_lxid = adjlist_local_xid();
	MemoryContextSwitchTo(old);
}

void
sync_leaving_forget(CommandId since)
{
	SubTransactionId subxid = GetCurrentSubTransactionId();

	if (leaving_list() == NIL)
		return;
	for (int i = list_length(leaving) - 1; i >= 0; i--)
	{
		Leaving    *l = (Leaving *) list_nth(leaving, i);

		if (l->subxid == subxid && l->cid >= since)
			leaving = list_delete_nth_cell(leaving, i);
	}
}

static void
refuse_leaving_write(const Leaving *l)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg(l->detaching ? "cannot write into partition \"%s\" while it is being detached" :
					"cannot write into partition \"%s\" while it is being dropped",
					get_rel_name(l->relid)),
			 errdetail("Its rows left the inverted index of table \"%s\" when the command started; the index would not follow a row written into it now.",
					   get_rel_name(l->base)),
			 errhint("Write the row before or after the command.")));
}

/* Does a row of the tuplestore (or the slot) satisfy qual? */
static bool
rows_match(ExprState *qual, ExprContext *econtext, TupleDesc desc, Tuplestorestate *rows,
		   TupleTableSlot *row)
{
	TupleTableSlot *slot = row;
	bool		found = false;

	if (rows == NULL && row == NULL)
		return false;
	if (rows != NULL)
	{
		slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
		tuplestore_select_read_pointer(rows, tuplestore_alloc_read_pointer(rows, EXEC_FLAG_REWIND));
		tuplestore_rescan(rows);
	}
	while (!found && (rows == NULL ? slot != NULL : tuplestore_gettupleslot(rows, true, false, slot)))
	{
		econtext->ecxt_scantuple = slot;
		found = ExecQual(qual, econtext);
		ResetExprContext(econtext);
		if (rows == NULL)
			break;
	}
	if (rows != NULL)
		ExecDropSingleTupleTableSlot(slot);
	return found;
}

/*
 * Does the trigger call td on rel (the base table or a partition above l's)
 * read or write a row of leaving partition l?
 */
static bool
touches_leaving(Relation rel, const Leaving *l, TriggerData *td)
{
	Expr	   *qual = get_partition_qual_relid(l->relid);
	Relation	part;
	List	   *quals;
	EState	   *estate;
	ExprState  *state;
	bool		found;

	if (qual == NULL)
		return true;			/* (a lone default partition takes every row) */
	part = relation_open(l->relid, NoLock);	/* (locked by the command) */
	quals = map_partition_varattnos(list_make1(qual), 1, rel, part);
	relation_close(part, NoLock);
	estate = CreateExecutorState();
	state = ExecPrepareQual(quals, estate);
	if (TRIGGER_FIRED_FOR_ROW(td->tg_event))
		found = rows_match(state, GetPerTupleExprContext(estate), NULL, NULL, td->tg_trigslot) ||
			(TRIGGER_FIRED_BY_UPDATE(td->tg_event) &&
			 rows_match(state, GetPerTupleExprContext(estate), NULL, NULL, td->tg_newslot));
	else
		found = rows_match(state, GetPerTupleExprContext(estate), RelationGetDescr(rel),
						   td->tg_oldtable, NULL) ||
			rows_match(state, GetPerTupleExprContext(estate), RelationGetDescr(rel),
					   td->tg_newtable, NULL);
	FreeExecutorState(estate);
	return found;
}

void
sync_refuse_leaving_writes(Oid base, TriggerData *td)
{
	Relation	rel = td->tg_relation;
	Oid			relid = RelationGetRelid(rel);
	List	   *ancestors = NIL;
	ListCell   *lc;

	if (leaving_list() == NIL || TRIGGER_FIRED_BY_TRUNCATE(td->tg_event))
		return;
	foreach(lc, leaving)
	{
		Leaving    *l = (Leaving *) lfirst(lc);
		List	   *above;

		/* (a dropped partition has gone: it takes no more rows) */
		if (l->base != base || !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(l->relid)))
			continue;
		if (ancestors == NIL && get_rel_relispartition(relid))
			ancestors = get_partition_ancestors(relid);
		/* a write into the partition itself, or into one of its own */
		if (l->relid == relid || list_member_oid(ancestors, l->relid))
			refuse_leaving_write(l);
		/* through a table above it: the rows the partition holds */
		above = get_rel_relispartition(l->relid) ? get_partition_ancestors(l->relid) : NIL;
		if (list_member_oid(above, relid) && touches_leaving(rel, l, td))
			refuse_leaving_write(l);
	}
}
