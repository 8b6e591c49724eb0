/*-------------------------------------------------------------------------
 *
 * index_write.c
 *	  The one writer of the tables adjlist maintains: index tables and
 *	  degree counter tables.
 *
 * Two ways to write, one behaviour:
 *
 *	- A plain local table whose primary key is the index key is written
 *	  with the executor's own helpers, as logical replication's apply
 *	  worker writes user tables: ExecSimpleRelationInsert(),
 *	  RelationFindReplTupleByIndex() + ExecSimpleRelationUpdate() /
 *	  ExecSimpleRelationDelete() (the look-up redone here with scan keys
 *	  cached per table, and a row without row triggers deleted where it is
 *	  found: direct_find()), under a per-writer EState made at the first
 *	  write that needs one (a writer that only deletes rows where it finds
 *	  them needs none), with the table's indexes opened by
 *	  ExecOpenIndices() at the first insert.
 *	  Constraints, generated columns, exclusion constraints, partial and
 *	  deferrable unique indexes and row triggers of the table all apply, as
 *	  they would to an INSERT.
 *	  Many rows (a COPY into the base table) are buffered and written with
 *	  table_multi_insert() and ExecInsertIndexTuples(), as COPY does, when
 *	  the table has no row triggers of its own.  Costs what a second btree
 *	  on the base table costs, plus the index table's heap tuple.
 *
 *	- Anything else (a partitioned or foreign index table, one whose key is
 *	  not its primary key) through SQL with saved plans (plan_cache.c;
 *	  index_write_sql.c), run
 *	  with the latest snapshot as foreign-key triggers run theirs: like the
 *	  executor path, which finds rows with a dirty snapshot, it sees every
 *	  committed row, also in REPEATABLE READ and SERIALIZABLE.
 *
 * Upserts.  In WRITE_UPSERT mode a row whose key is already there is
 * replaced (its other columns updated when they differ), so that a write
 * meeting an index row written behind adjlist's back (a data-only restore
 * without --disable-triggers, say) repairs it instead of failing.  When the
 * key index is deferrable the base table's key is too (create_inverted_index
 * copies its deferrability), so the base may hold duplicate keys until
 * commit; the index then holds the same multiset, and the caller uses
 * WRITE_APPEND: plain inserts, each delete removing one row.  The triggers
 * insert a statement's new row only where no row of its key is there
 * (index_writer_put_new()), and mend a key out of step by deleting all its
 * rows (index_writer_remove_all()) and putting the base table's back.
 *
 * Locks are taken with the table (RowExclusiveLock) and held to the end of
 * the transaction, as for any write.
 *
 * Command ids.  The executor path finds a row with a dirty snapshot and
 * locks (or deletes) it (direct_find()) as of the current command; a
 * row version this command wrote is invisible to that lock ("attempted to
 * lock invisible tuple"), as to any scan of the command that wrote it.  The
 * SQL path never meets this: SPI advances the command counter after each
 * statement.  The executor path does the same, lazily: before a look-up it
 * advances the counter if it wrote anything since it last did (and once
 * when it starts, for rows an earlier writer of the same command wrote: two
 * statement triggers of one query, two puts of one SELECT), so that it
 * sees, locks and replaces its own rows -- one index row written twice by
 * one trigger call, as when two foreign-key cascades update one base row in
 * one query.  A plain run of rows with distinct keys pays one counter
 * increment per row, as SPI does per statement.
 *
 * After-row triggers.  An index table's AFTER ROW triggers (a user's
 * trigger, a foreign key that references it, the check of a deferrable
 * key) queue their events in the current query level of the after-trigger
 * machinery, and the executor path is no query: its events would fire at
 * the end of whatever statement is running, after adjlist has stopped
 * acting as the index owner (so as the role that made the write, or that
 * ran DDL on a partition), or find no query level at all in a utility
 * command ("AfterTriggerSaveEvent() called outside of query").  So where
 * the table has any, each write of the executor path is a query level of
 * its own, as SPI makes each statement one: its events fire when the row
 * is written, as the role and with the search_path the writer runs with
 * (the owner's, pinned), and their relations are closed by the writer.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "commands/tablecmds.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/nodeModifyTable.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/execnodes.h"
#include "nodes/makefuncs.h"
#include "parser/parse_relation.h"
#include "storage/lmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "index_write.h"
#include "index_write_int.h"
#include "plan_cache.h"
#include "writer_info.h"

/* ----------------------------------------------------------------------
 * Choosing the path
 * ----------------------------------------------------------------------
 */

static void
writer_columns(IndexWriter *w, char **colnames)
{
	TupleDesc	desc = RelationGetDescr(w->rel);

	w->attnos = palloc(sizeof(AttrNumber) * w->ncols);
	w->types = palloc(sizeof(Oid) * w->ncols);
	w->typlens = palloc(sizeof(int16) * w->ncols);
	w->typbyvals = palloc(sizeof(bool) * w->ncols);
	for (int i = 0; i < w->ncols; i++)
	{
		AttrNumber	a = attnameAttNum(w->rel, colnames[i], false);
		Form_pg_attribute att;

		if (a <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of relation \"%s\" does not exist",
							colnames[i], RelationGetRelationName(w->rel))));
		att = TupleDescAttr(desc, a - 1);
		w->attnos[i] = a;
		w->types[i] = att->atttypid;
		w->typlens[i] = att->attlen;
		w->typbyvals[i] = att->attbyval;
	}
}

/* The key columns' attribute numbers in rel (0 for a missing one). */
static void
key_attnos(Relation rel, char **colnames, int nkeys, AttrNumber *keyattnos)
{
	for (int i = 0; i < nkeys && i < INDEX_MAX_KEYS; i++)
		keyattnos[i] = attnameAttNum(rel, colnames[i], false);
}

bool
index_writer_needs_spi(Oid relid, char **colnames, int nkeys, WriteMode mode,
					   bool *runs_code)
{
	/* locked by the caller: a lock of another mode would cost more here */
	Relation	rel = table_open(relid, NoLock);
	AttrNumber	keyattnos[INDEX_MAX_KEYS];
	const WriterInfo *wi;
	bool		spi;

	key_attnos(rel, colnames, nkeys, keyattnos);
	wi = writer_info(rel, keyattnos, nkeys);
	spi = !writer_direct(wi, nkeys, mode);
	if (runs_code != NULL)
		*runs_code = wi->runs_code;
	table_close(rel, NoLock);
	return spi;
}

bool
index_writer_key_deferrable(Oid relid, char **colnames, int nkeys)
{
	Relation	rel = table_open(relid, AccessShareLock);
	AttrNumber	keyattnos[INDEX_MAX_KEYS];
	bool		deferrable;

	key_attnos(rel, colnames, nkeys, keyattnos);
	deferrable = writer_info(rel, keyattnos, nkeys)->deferrable;
	table_close(rel, NoLock);
	return deferrable;
}

/* ----------------------------------------------------------------------
 * adjlist's own statements on index and counter tables
 * ----------------------------------------------------------------------
 */

/*
 * Raised while adjlist runs a statement on an index or counter table, so
 * that their guard (adjlist_index_guard(), index_sync.c) lets it through;
 * lowered also when an error passes through.
 */
static int	allowed_depth = 0;

bool
index_writes_allowed(void)
{
	return allowed_depth > 0;
}

int
index_execute_plan(SPIPlanPtr plan, Datum *values, const char *nulls, int expected)
{
	int			ret;

	allowed_depth++;
	PG_TRY();
	{
		ret = adjlist_plan_execute_latest(plan, values, nulls, expected);
	}
	PG_FINALLY();
	{
		allowed_depth--;
	}
	PG_END_TRY();
	return ret;
}

int
index_execute_sql(const char *sql, bool read_only, int expected)
{
	int			ret;

	allowed_depth++;
	PG_TRY();
	{
		ret = SPI_execute(sql, read_only, 0);
	}
	PG_FINALLY();
	{
		allowed_depth--;
	}
	PG_END_TRY();
	if (expected != 0 && ret != expected)
		elog(ERROR, "adjlist statement failed: %s", SPI_result_code_string(ret));
	return ret;
}

/* ----------------------------------------------------------------------
 * The executor path
 * ----------------------------------------------------------------------
 */

/*
 * The trigger functions of rri looked up now, in cxt (the writer's
 * EState): the executor looks one up at its first call, in whatever memory
 * is current, and the writer is called in its callers' per-row memory.  A
 * function with SET clauses or SECURITY DEFINER keeps its state with the
 * lookup (fmgr_security_definer()), which the next row would read freed.
 * Row triggers only: the writer fires no statement trigger (every index
 * table has adjlist's guard, whose lookup each statement paid for).
 */
static void
init_trigger_functions(ResultRelInfo *rri, MemoryContext cxt)
{
	TriggerDesc *td = rri->ri_TrigDesc;

	if (td == NULL)
		return;
	for (int i = 0; i < td->numtriggers; i++)
		if (TRIGGER_FOR_ROW(td->triggers[i].tgtype) &&
			!OidIsValid(rri->ri_TrigFunctions[i].fn_oid))
			fmgr_info_cxt(td->triggers[i].tgfoid, &rri->ri_TrigFunctions[i], cxt);
}

/*
 * Start the executor path.  Its EState, result relation and EPQ state are
 * made at the first write that needs them (direct_executor()): a writer
 * that only deletes rows by key from a table whose rows run no code (a
 * single-row DELETE's trigger) needs none of them, and making and freeing
 * them cost such a statement 1,700 instructions.
 */
static void
direct_begin(IndexWriter *w, const WriterInfo *wi, bool bulk)
{
	TriggerDesc *td = w->rel->trigdesc;

	w->cxt = CurrentMemoryContext;
	/* rows an earlier writer of this command wrote (see "Command ids") */
	CommandCounterIncrement();
	if (wi->scan_nkeys > 0 && wi->keyindex == w->keyindex)
	{
		w->nscankeys = wi->scan_nkeys;
		w->scanattnos = palloc(sizeof(AttrNumber) * wi->scan_nkeys);
		memcpy(w->scanattnos, wi->scan_attnos, sizeof(AttrNumber) * wi->scan_nkeys);
		w->scankeys = palloc(sizeof(ScanKeyData) * wi->scan_nkeys);
		memcpy(w->scankeys, wi->scan_keys, sizeof(ScanKeyData) * wi->scan_nkeys);
	}
	/* (searchslot and foundslot at the first look-up: direct_lookup_slots()) */
	w->after_rows = td != NULL &&
		(td->trig_insert_after_row || td->trig_update_after_row || td->trig_delete_after_row);
	w->buffered = bulk && w->mode == WRITE_APPEND &&
		(td == NULL || (!td->trig_insert_before_row && !td->trig_insert_instead_row &&
						!td->trig_insert_after_row));
	/* heap only: another table AM need not implement speculative inserts */
	w->speculative = w->mode == WRITE_UPSERT && OidIsValid(w->keyindex) && !w->runs_code &&
		w->rel->rd_rel->relam == HEAP_TABLE_AM_OID;
	if (w->speculative)
		w->arbiters = list_make1_oid(w->keyindex);
	if (w->buffered)
		w->batch = palloc0(sizeof(TupleTableSlot *) * WRITE_BATCH);
}

/*
 * The executor state of the writer's writes, made at the first that needs
 * it: its command id is the current one (direct_see_own_writes() keeps it
 * so), its result relation's row trigger functions looked up.
 */
static void
direct_executor(IndexWriter *w)
{
	MemoryContext oldcxt;

	if (w->estate != NULL)
		return;
	/* (under the writer's memory: a first write comes in per-row memory) */
	oldcxt = MemoryContextSwitchTo(w->cxt);
	w->estate = CreateExecutorState();
	w->estate->es_output_cid = GetCurrentCommandId(true);
	ADJLIST_EPQ_INIT(&w->epqstate, w->estate);
	MemoryContextSwitchTo(w->estate->es_query_cxt);
	w->rri = makeNode(ResultRelInfo);
	InitResultRelInfo(w->rri, w->rel, 0, NULL, 0);
	init_trigger_functions(w->rri, w->estate->es_query_cxt);
	w->estate->es_opened_result_relations =
		lappend(w->estate->es_opened_result_relations, w->rri);
	/* (its indexes at the first write that inserts: direct_open_indexes()) */
	w->newslot = table_slot_create(w->rel, &w->estate->es_tupleTable);
	MemoryContextSwitchTo(oldcxt);
}

/* Fill slot with a row: the given columns, the rest null (then defaults). */
static void
fill_slot(IndexWriter *w, TupleTableSlot *slot, Datum *values, bool *nulls, int n)
{
	TupleDesc	desc = slot->tts_tupleDescriptor;

	ExecClearTuple(slot);
	for (int i = 0; i < desc->natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}
	for (int i = 0; i < n; i++)
	{
		slot->tts_values[w->attnos[i] - 1] = values[i];
		slot->tts_isnull[w->attnos[i] - 1] = nulls ? nulls[i] : false;
	}
	ExecStoreVirtualTuple(slot);
}

/* Do the columns after the key of the found row equal the new values? */
static bool
same_projections(IndexWriter *w, Datum *values, bool *nulls)
{
	slot_getallattrs(w->foundslot);
	for (int i = w->nkeys; i < w->ncols; i++)
	{
		int			a = w->attnos[i] - 1;
		bool		isnull = w->foundslot->tts_isnull[a];

		if (isnull != nulls[i])
			return false;
		if (!isnull && !datum_image_eq(w->foundslot->tts_values[a], values[i],
									   w->typbyvals[i], w->typlens[i]))
			return false;
	}
	return true;
}

/*
 * Release the speculative insertion lock of direct_insert_speculative(),
 * by its token: SpeculativeInsertionLockRelease() releases the backend's
 * latest, which may be another writer's.
 */
static void
direct_release_token(IndexWriter *w)
{
	LOCKTAG		tag;

	if (w->token == 0)
		return;
	SET_LOCKTAG_SPECULATIVE_INSERTION(tag, w->token_xid, w->token);
	LockRelease(&tag, ExclusiveLock, false);
	w->token = 0;
}

/*
 * Before a look-up: make the rows this writer wrote visible to it, and
 * write from here on under the new command id (see "Command ids").  A
 * look-up may wait for another transaction: the speculative insertion
 * lock is released first.
 */
static void
direct_see_own_writes(IndexWriter *w)
{
	direct_release_token(w);
	if (!w->wrote)
		return;
	CommandCounterIncrement();
	if (w->estate != NULL)
		w->estate->es_output_cid = GetCurrentCommandId(true);
	w->wrote = false;
}

/*
 * The table's indexes, opened at the first write that inserts index
 * entries: a writer that only removes rows (a DELETE's trigger) needs
 * none, as core's DELETE opens none.
 */
static void
direct_open_indexes(IndexWriter *w)
{
	MemoryContext oldcxt;

	direct_executor(w);
	if (w->indexes_open)
		return;
	oldcxt = MemoryContextSwitchTo(w->estate->es_query_cxt);
	ExecOpenIndices(w->rri, false);
	MemoryContextSwitchTo(oldcxt);
	w->indexes_open = true;
}

/*
 * Delete the row direct_find() found, as ExecSimpleRelationDelete() does on
 * a table without row triggers (its replica identity checked first), but
 * returning a concurrent update or delete to the caller, who looks the row
 * up again, where simple_table_tuple_delete() raises it.
 */
static TM_Result
direct_delete_found(IndexWriter *w, TM_FailureData *tmfd)
{
	TM_Result	res;

	CheckCmdReplicaIdentity(w->rel, CMD_DELETE);
	/* (the snapshot an EState would pass: none) */
	res = table_tuple_delete(w->rel, &w->foundslot->tts_tid, GetCurrentCommandId(true),
							 InvalidSnapshot, InvalidSnapshot, true, tmfd, false);
	if (res == TM_SelfModified)
		elog(ERROR, "tuple already updated by self");
	return res;
}

/*
 * Find the row with searchslot's key and lock it, into foundslot, as
 * RelationFindReplTupleByIndex() does (a dirty snapshot; a row being
 * written is waited for, a row updated or deleted meanwhile looked up
 * again, the same messages), with the scan keys of WriterInfo: core's
 * looks the key's operators and functions up at every call.
 *
 * With delete, the row found is deleted instead of locked, for a table
 * where deleting a row runs no code but core's (no row trigger: WriterInfo's
 * runs_code): the lock, which ExecSimpleRelationDelete() then needs, cost a
 * WAL record and a fifth of the look-up's instructions.  table_tuple_delete()
 * waits for a transaction writing the row as the lock does, and a row
 * updated or deleted meanwhile is looked up again as after a failed lock.
 */
static bool
direct_find(IndexWriter *w, bool delete)
{
	ScanKeyData skey[INDEX_MAX_KEYS];
	SnapshotData snap;
	Relation	idx;
	IndexScanDesc scan;
	bool		found;

	Assert(!delete || (w->nscankeys > 0 && !w->runs_code));
	if (w->nscankeys == 0)
		return RelationFindReplTupleByIndex(w->rel, w->keyindex, LockTupleExclusive,
											w->searchslot, w->foundslot);
	for (int i = 0; i < w->nscankeys; i++)
	{
		int			a = w->scanattnos[i] - 1;

		skey[i] = w->scankeys[i];
		/* (what the function keeps with its lookup lives as core's would) */
		skey[i].sk_func.fn_mcxt = CurrentMemoryContext;
		skey[i].sk_argument = w->searchslot->tts_values[a];
		if (w->searchslot->tts_isnull[a])
			skey[i].sk_flags |= SK_ISNULL;
	}
	idx = index_open(w->keyindex, RowExclusiveLock);
	InitDirtySnapshot(snap);
	scan = adjlist_index_beginscan(w->rel, idx, &snap, w->nscankeys, 0);
	for (;;)
	{
		TransactionId xwait;
		TM_FailureData tmfd;
		TM_Result	res;

		index_rescan(scan, skey, w->nscankeys, NULL, 0);
		found = index_getnext_slot(scan, ForwardScanDirection, w->foundslot);
		if (!found)
			break;
		ExecMaterializeSlot(w->foundslot);
		xwait = TransactionIdIsValid(snap.xmin) ? snap.xmin : snap.xmax;
		if (TransactionIdIsValid(xwait))
		{
			XactLockTableWait(xwait, NULL, NULL, XLTW_None);
			continue;
		}
		if (delete)
			res = direct_delete_found(w, &tmfd);
		else
		{
			PushActiveSnapshot(GetLatestSnapshot());
			res = table_tuple_lock(w->rel, &w->foundslot->tts_tid, GetLatestSnapshot(),
								   w->foundslot, GetCurrentCommandId(false), LockTupleExclusive,
								   LockWaitBlock, 0, &tmfd);
			PopActiveSnapshot();
		}
		if (res == TM_Ok)
			break;
		if (res == TM_Updated || res == TM_Deleted)
			ereport(LOG,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 res == TM_Deleted ? errmsg("concurrent delete, retrying") :
					 ItemPointerIndicatesMovedPartitions(&tmfd.ctid) ?
					 errmsg("tuple to be locked was already moved to another partition due to concurrent update, retrying") :
					 errmsg("concurrent update, retrying")));
		else if (res == TM_Invisible)
			elog(ERROR, "attempted to lock invisible tuple");
		else
			elog(ERROR, "unexpected table_tuple_%s status: %u", delete ? "delete" : "lock", res);
	}
	index_endscan(scan);
	index_close(idx, NoLock);
	return found;
}

/*
 * The slots of a look-up, made at the first one: a statement that only
 * inserts (a single-row INSERT: one speculative insert) never looks up.
 */
static void
direct_lookup_slots(IndexWriter *w)
{
	if (w->searchslot == NULL)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(w->cxt);
		const TupleTableSlotOps *ops = table_slot_callbacks(w->rel);

		/* (of their own: a removing writer may have no EState) */
		w->searchslot = MakeSingleTupleTableSlot(RelationGetDescr(w->rel), ops);
		w->foundslot = MakeSingleTupleTableSlot(RelationGetDescr(w->rel), ops);
		MemoryContextSwitchTo(oldcxt);
	}
}

static void
direct_flush(IndexWriter *w)
{
	MemoryContext oldcxt;

	if (w->nbatch == 0)
		return;
	Assert(w->estate != NULL);	/* (made by the puts that filled the batch) */
	if (w->bistate == NULL)
	{
		oldcxt = MemoryContextSwitchTo(w->estate->es_query_cxt);
		w->bistate = GetBulkInsertState();
		MemoryContextSwitchTo(oldcxt);
	}
	oldcxt = MemoryContextSwitchTo(GetPerTupleMemoryContext(w->estate));
	table_multi_insert(w->rel, w->batch, w->nbatch, w->estate->es_output_cid, 0,
					   w->bistate);
	w->wrote = true;
	for (int i = 0; i < w->nbatch; i++)
	{
		List	   *recheck = NIL;

		if (w->rri->ri_NumIndices > 0)
			recheck = ADJLIST_INSERT_INDEX_TUPLES(w->rri, w->batch[i], w->estate,
												  false, NULL, NIL);
		/* deferred unique checks are queued as after-row events */
		if (recheck != NIL)
			ExecARInsertTriggers(w->estate, w->rri, w->batch[i], recheck, NULL);
		list_free(recheck);
		ExecClearTuple(w->batch[i]);
	}
	w->nbatch = 0;
	MemoryContextSwitchTo(oldcxt);
	ResetPerTupleExprContext(w->estate);
}

/*
 * Insert the row in newslot unless a row with its key is there, as INSERT
 * ... ON CONFLICT inserts, but without its look-up first: the tuple goes in
 * speculatively (table_tuple_insert_speculative()), the key index reports a
 * conflict instead of raising one (UNIQUE_CHECK_PARTIAL), and a tuple that
 * conflicted is killed again (table_tuple_complete_speculative()), as if it
 * had never been there, for anyone waiting on it too.  Almost every upsert
 * of an index row finds no row (its base row is new), and pays one descent
 * of the key index instead of two.  Only for a table where writing a row
 * runs no code but core's (WriterInfo: no row triggers, CHECK constraints,
 * expression or partial indexes), so that nothing runs while the
 * speculative insertion lock is held; rows go in as
 * ExecSimpleRelationInsert() puts them.
 * False when the key was there (or is being written by another
 * transaction): the caller then looks it up and waits for it.
 *
 * One speculative insertion lock serves a run of rows that all went in
 * (put_edges, a multi-row INSERT, COPY): taking and releasing a lock per
 * row cost 2% of the instructions of a put_edges(1000) and 5% of its time
 * (perf; the lock manager's shared memory).  Holding it longer changes
 * nothing for anyone: a session that met one of these rows while it was
 * speculative waits on the lock, then finds the row alive and waits for
 * this transaction anyway.  It is released before this writer waits for
 * anything (a conflict, any look-up: direct_see_own_writes()) and when the
 * writer ends, so that nobody waits on it for a row that was killed, and
 * it is released by its own token, as another writer may hold one too.
 */
static bool
direct_insert_speculative(IndexWriter *w, TupleTableSlot *slot)
{
	Relation	rel = w->rel;
	TransactionId xid = GetCurrentTransactionId();
	bool		conflict = false;
	List	   *recheck;

	/* NOT NULL; there are no CHECK constraints or generated columns */
	if (rel->rd_att->constr)
		ExecConstraints(w->rri, slot, w->estate);
	if (rel->rd_rel->relispartition)
		ExecPartitionCheck(w->rri, slot, w->estate, true);
	if (w->token != 0 && w->token_xid != xid)
		direct_release_token(w);	/* (taken in another subtransaction) */
	if (w->token == 0)
	{
		w->token = SpeculativeInsertionLockAcquire(xid);
		w->token_xid = xid;
	}
	table_tuple_insert_speculative(rel, slot, w->estate->es_output_cid, 0, NULL, w->token);
	w->wrote = true;
	recheck = ADJLIST_INSERT_INDEX_TUPLES(w->rri, slot, w->estate, true, &conflict,
										  w->arbiters);
	table_tuple_complete_speculative(rel, slot, w->token, !conflict);
	if (conflict)
		direct_release_token(w);
	/* deferred unique checks of other indexes are after-row events */
	if (!conflict && recheck != NIL)
		ExecARInsertTriggers(w->estate, w->rri, slot, recheck, NULL);
	list_free(recheck);
	ResetPerTupleExprContext(w->estate);
	return !conflict;
}

/*
 * One write of the executor path as a query level of its own, where the
 * table has AFTER ROW triggers (see "After-row triggers"): its events fire
 * at direct_after_end(), once the speculative insertion lock is released
 * (the triggers may wait for anything).
 */
static void
direct_after_begin(IndexWriter *w)
{
	if (w->after_rows)
	{
		direct_executor(w);		/* (direct_after_end() fires them with it) */
		AfterTriggerBeginQuery();
	}
}

static void
direct_after_end(IndexWriter *w)
{
	MemoryContext old;

	if (!w->after_rows)
		return;
	direct_release_token(w);
	/* (in the query's memory, as the executor fires them) */
	old = MemoryContextSwitchTo(w->estate->es_query_cxt);
	AfterTriggerEndQuery(w->estate);
	MemoryContextSwitchTo(old);
}

static void
direct_put(IndexWriter *w, Datum *values, bool *nulls)
{
	direct_open_indexes(w);
	if (w->speculative)
	{
		fill_slot(w, w->newslot, values, nulls, w->ncols);
		if (direct_insert_speculative(w, w->newslot))
			return;
	}
	if (w->mode == WRITE_UPSERT)
	{
		direct_see_own_writes(w);
		direct_lookup_slots(w);
		fill_slot(w, w->searchslot, values, nulls, w->nkeys);
		if (direct_find(w, false))
		{
			if (!same_projections(w, values, nulls))
			{
				fill_slot(w, w->newslot, values, nulls, w->ncols);
				EvalPlanQualSetSlot(&w->epqstate, w->newslot);
				ExecSimpleRelationUpdate(w->rri, w->estate, &w->epqstate, w->foundslot, w->newslot);
				w->wrote = true;
			}
			return;
		}
	}
	if (w->buffered)
	{
		TupleTableSlot *slot;
		Relation	rel = w->rel;

		if (w->batch[w->nbatch] == NULL)
		{
			MemoryContext oldcxt = MemoryContextSwitchTo(w->estate->es_query_cxt);

			w->batch[w->nbatch] = table_slot_create(rel, &w->estate->es_tupleTable);
			MemoryContextSwitchTo(oldcxt);
		}
		slot = w->batch[w->nbatch];
		fill_slot(w, slot, values, nulls, w->ncols);
		/* the caller's values may not live until the flush */
		ExecMaterializeSlot(slot);
		if (rel->rd_att->constr && rel->rd_att->constr->has_generated_stored)
			ExecComputeStoredGenerated(w->rri, w->estate, slot, CMD_INSERT);
		if (rel->rd_att->constr)
			ExecConstraints(w->rri, slot, w->estate);
		if (++w->nbatch == WRITE_BATCH)
			direct_flush(w);
		return;
	}
	fill_slot(w, w->newslot, values, nulls, w->ncols);
	ExecSimpleRelationInsert(w->rri, w->estate, w->newslot);
	w->wrote = true;
	ResetPerTupleExprContext(w->estate);
}

static bool
direct_remove(IndexWriter *w, Datum *keyvalues)
{
	if (!OidIsValid(w->keyindex))
		elog(ERROR, "index table \"%s\" has no key to delete by",
			 RelationGetRelationName(w->rel));
	direct_flush(w);
	direct_see_own_writes(w);
	direct_lookup_slots(w);
	fill_slot(w, w->searchslot, keyvalues, NULL, w->nkeys);
	if (w->nscankeys > 0 && !w->runs_code)
	{
		/* found and deleted at once (see direct_find()) */
		if (!direct_find(w, true))
			return false;
		w->wrote = true;
		return true;
	}
	direct_executor(w);
	if (!direct_find(w, false))
		return false;
	EvalPlanQualSetSlot(&w->epqstate, w->foundslot);
	ExecSimpleRelationDelete(w->rri, w->estate, &w->epqstate, w->foundslot);
	w->wrote = true;
	ResetPerTupleExprContext(w->estate);
	return true;
}

/*
 * Rewrite in place the row that has the key of values, if its other columns
 * are those of oldvalues (see index_writer_rewrite()).
 */
static bool
direct_rewrite(IndexWriter *w, Datum *oldvalues, bool *oldnulls, Datum *values, bool *nulls)
{
	direct_open_indexes(w);
	direct_flush(w);
	direct_see_own_writes(w);
	direct_lookup_slots(w);
	fill_slot(w, w->searchslot, values, nulls, w->nkeys);
	if (!direct_find(w, false))
		return false;
	w->wrote = true;			/* (either way below) */
	if (!same_projections(w, oldvalues, oldnulls))
	{
		EvalPlanQualSetSlot(&w->epqstate, w->foundslot);
		ExecSimpleRelationDelete(w->rri, w->estate, &w->epqstate, w->foundslot);
		ResetPerTupleExprContext(w->estate);
		return false;
	}
	if (!same_projections(w, values, nulls))
	{
		fill_slot(w, w->newslot, values, nulls, w->ncols);
		EvalPlanQualSetSlot(&w->epqstate, w->newslot);
		ExecSimpleRelationUpdate(w->rri, w->estate, &w->epqstate, w->foundslot, w->newslot);
	}
	ResetPerTupleExprContext(w->estate);
	return true;
}

/* ----------------------------------------------------------------------
 * The interface
 * ----------------------------------------------------------------------
 */

IndexWriter *
index_writer_begin(Oid relid, char **colnames, int ncols, int nkeys, WriteMode mode,
				   bool bulk)
{
	IndexWriter *w = palloc0(sizeof(IndexWriter));
	const WriterInfo *wi;
	bool		deferrable;

	w->rel = table_open(relid, RowExclusiveLock);
	w->mode = mode;
	w->ncols = ncols;
	w->nkeys = nkeys;
	writer_columns(w, colnames);
	wi = writer_info(w->rel, w->attnos, nkeys);
	w->keyindex = wi->keyindex;
	w->runs_code = wi->runs_code;
	deferrable = wi->deferrable;
	if (deferrable)
	{
		w->multiset = true;
		w->mode = WRITE_APPEND;
	}
	w->direct = writer_direct(wi, nkeys, w->mode);
	w->citus = wi->citus;
	if (w->direct)
		direct_begin(w, wi, bulk);
	else
		index_sql_build(w, colnames, OidIsValid(w->keyindex), deferrable, bulk);
	return w;
}

void
index_writer_put(IndexWriter *w, Datum *values, bool *nulls)
{
	CHECK_FOR_INTERRUPTS();
	if (w->direct)
	{
		direct_after_begin(w);
		direct_put(w, values, nulls);
		direct_after_end(w);
	}
	else if (w->bulk_sql != NULL)
		index_sql_buffer(w, values, nulls);
	else
		index_sql_put(w, values, nulls);
}

bool
index_writer_multiset(IndexWriter *w)
{
	return w->multiset;
}

bool
index_writer_put_new(IndexWriter *w, Datum *values, bool *nulls)
{
	char	   *n;

	CHECK_FOR_INTERRUPTS();
	if (!w->multiset)
		elog(ERROR, "adjlist writer: put_new is for a multiset");
	n = palloc(w->ncols);
	for (int i = 0; i < w->ncols; i++)
		n[i] = nulls[i] ? 'n' : ' ';
	index_execute_plan(adjlist_plan(w->insert_new_sql, w->ncols, w->types), values, n,
					   SPI_OK_INSERT);
	pfree(n);
	return SPI_processed > 0;
}

bool
index_writer_rewrite(IndexWriter *w, Datum *oldvalues, bool *oldnulls, Datum *values, bool *nulls)
{
	CHECK_FOR_INTERRUPTS();
	Assert(w->mode == WRITE_UPSERT && !w->multiset && w->ncols > w->nkeys);
	if (w->direct)
	{
		bool		found;

		direct_after_begin(w);
		found = direct_rewrite(w, oldvalues, oldnulls, values, nulls);
		direct_after_end(w);
		return found;
	}
	return index_sql_rewrite(w, oldvalues, oldnulls, values, nulls);
}

bool
index_writer_remove(IndexWriter *w, Datum *values, bool *nulls)
{
	CHECK_FOR_INTERRUPTS();
	if (w->direct)
	{
		bool		found;

		direct_after_begin(w);
		found = direct_remove(w, values);
		direct_after_end(w);
		return found;
	}
	if (w->bulk_sql != NULL)
		index_sql_flush(w);			/* rows put before are there first */
	return index_sql_remove(w, values, nulls);
}

uint64
index_writer_remove_all(IndexWriter *w, int n, const int *cols, Datum *values)
{
	CHECK_FOR_INTERRUPTS();
	index_sql_remove_all_setup(w, n, cols);
	if (w->bulk_sql != NULL)
		index_sql_flush(w);
	if (w->direct)
	{
		/* the statement sees what the executor path wrote */
		direct_flush(w);
		direct_see_own_writes(w);
	}
	index_execute_plan(adjlist_plan(w->remove_all_sql, n, w->remove_all_types), values, NULL,
					   SPI_OK_DELETE);
	return SPI_processed;
}

void
index_writer_end(IndexWriter *w)
{
	if (w->bulk_sql != NULL)
	{
		index_sql_flush(w);
		MemoryContextDelete(w->bufcxt);
	}
	if (w->direct)
	{
		direct_release_token(w);
		direct_flush(w);
		if (w->bistate != NULL)
			FreeBulkInsertState(w->bistate);
		if (w->searchslot != NULL)
		{
			ExecDropSingleTupleTableSlot(w->searchslot);
			ExecDropSingleTupleTableSlot(w->foundslot);
		}
		if (w->estate != NULL)
		{
			EvalPlanQualEnd(&w->epqstate);
			/* (its indexes, and relations its triggers' events opened) */
			ExecCloseResultRelations(w->estate);
			ExecResetTupleTable(w->estate->es_tupleTable, false);
			FreeExecutorState(w->estate);
		}
	}
	table_close(w->rel, NoLock);
	pfree(w);
}

/*
 * Would core's TRUNCATE refuse rel as in use (CheckTableNotInUse(), which
 * raises the error): a query of this session still reading it, or its
 * after-trigger events still queued ("TRUNCATE base, base_inverted").
 */
static bool
truncate_in_use(Relation rel)
{
	return rel->rd_refcnt != (rel->rd_isnailed ? 2 : 1) ||
		AfterTriggerPendingOnRel(RelationGetRelid(rel));
}

/*
 * DELETE every row of rels instead, where TRUNCATE cannot: each heap row
 * through the executor's helper, as the direct writer removes a row (its
 * row triggers and foreign keys apply); a foreign table's with SQL.
 */
static void
delete_all(List *rels)
{
	ListCell   *lc;

	/* rows an earlier writer of this command wrote (see "Command ids") */
	CommandCounterIncrement();
	foreach(lc, rels)
	{
		Relation	rel = (Relation) lfirst(lc);
		EState	   *estate;
		EPQState	epq;
		ResultRelInfo *rri;
		TupleTableSlot *slot;
		TableScanDesc scan;
		Snapshot	snap;

		if (rel->rd_rel->relkind == RELKIND_FOREIGN_TABLE)
			index_execute_sql(psprintf("DELETE FROM %s",
									   adjlist_qualified_name(RelationGetRelid(rel))),
							  false, SPI_OK_DELETE);
		if (rel->rd_rel->relkind != RELKIND_RELATION)
			continue;
		snap = RegisterSnapshot(GetLatestSnapshot());
		estate = CreateExecutorState();
		estate->es_snapshot = snap;
		estate->es_output_cid = GetCurrentCommandId(true);
		ADJLIST_EPQ_INIT(&epq, estate);
		rri = makeNode(ResultRelInfo);
		InitResultRelInfo(rri, rel, 0, NULL, 0);
		init_trigger_functions(rri, estate->es_query_cxt);
		estate->es_opened_result_relations = list_make1(rri);
		slot = table_slot_create(rel, &estate->es_tupleTable);
		scan = table_beginscan(rel, snap, 0, NULL);
		/* a DELETE's query level: its after-row events fire here, as the writer */
		AfterTriggerBeginQuery();
		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			CHECK_FOR_INTERRUPTS();
			EvalPlanQualSetSlot(&epq, slot);
			ExecSimpleRelationDelete(rri, estate, &epq, slot);
			ResetPerTupleExprContext(estate);
		}
		table_endscan(scan);
		{
			MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);

			AfterTriggerEndQuery(estate);
			MemoryContextSwitchTo(old);
		}
		ExecCloseResultRelations(estate);
		EvalPlanQualEnd(&epq);
		ExecResetTupleTable(estate->es_tupleTable, false);
		FreeExecutorState(estate);
		UnregisterSnapshot(snap);
	}
}

/*
 * TRUNCATE relid and its partitions as core's TRUNCATE does after its
 * checks (ExecuteTruncateGuts(): the tables' TRUNCATE triggers, the guard
 * among them, foreign keys, logical decoding), opened by OID: no name is
 * looked up and no privilege checked, so that the owner's TRUNCATE trigger
 * needs neither USAGE on the schema nor TRUNCATE on a table it revoked from
 * itself -- whoever may truncate the base table may empty its index.
 */
void
index_writer_truncate(Oid relid)
{
	/* the lock TRUNCATE takes, on the table and its partitions */
	List	   *members = find_all_inheritors(relid, AccessExclusiveLock, NULL);
	List	   *rels = NIL;
	List	   *relids = NIL;
	List	   *logged = NIL;
	bool		in_use = false;
	ListCell   *lc;

	foreach(lc, members)
	{
		Relation	rel = table_open(lfirst_oid(lc), NoLock);

		rels = lappend(rels, rel);
		relids = lappend_oid(relids, RelationGetRelid(rel));
		if (RelationIsLogicallyLogged(rel))
			logged = lappend_oid(logged, RelationGetRelid(rel));
		in_use = in_use || truncate_in_use(rel);
	}
	allowed_depth++;
	PG_TRY();
	{
		if (in_use)
			delete_all(rels);
		else
			adjlist_truncate_rels(rels, relids, logged);
	}
	PG_FINALLY();
	{
		allowed_depth--;
	}
	PG_END_TRY();
	foreach(lc, rels)
		table_close((Relation) lfirst(lc), NoLock);
	/* later writes see the new storage, as after a statement */
	CommandCounterIncrement();
}
