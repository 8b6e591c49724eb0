/*-------------------------------------------------------------------------
 *
 * index_build.c
 *	  CALL create_inverted_index(tbl, concurrently => true, ...): building
 *	  an inverted index while writers go on, as CREATE INDEX CONCURRENTLY
 *	  builds a btree.
 *
 * The build runs in transactions of its own (the procedure commits):
 *
 *	1. In the CALL's transaction: the index table, with its primary key,
 *	   the counter table, and the registration, marked not ready (readers
 *	   refuse the index; writers keep it).  The base table and its
 *	   partitions are locked for the session against DDL and other builds
 *	   (SHARE UPDATE EXCLUSIVE, which writers do not wait for), the index
 *	   and counter tables against drop_inverted_index().
 *	2. The triggers.  A table that has them already (it has another index)
 *	   needs none; otherwise creating them needs SHARE ROW EXCLUSIVE, which
 *	   is taken only once no writer holds the table (waiting for the
 *	   writers there are, without queueing new ones behind the request),
 *	   and after a few tries by waiting in the queue.
 *	3. Waiting for the writers that may have written without seeing the
 *	   new index (WaitForLockers(), as CREATE INDEX CONCURRENTLY waits):
 *	   from then on every write of the table writes the index too.
 *	4. The backfill: each partition is read in ranges of blocks, one
 *	   transaction per range, its rows locked FOR SHARE, and their index
 *	   rows inserted unless there (ON CONFLICT DO NOTHING).  Why that is
 *	   exact: a row that is not in the index yet is one whose last version
 *	   was written before step 3 (later writes ran the triggers), and it
 *	   stays in its place until a write changes it; the lock makes such a
 *	   write wait for the range's commit (after which it finds the index
 *	   row and updates or deletes it), or the range wait for it (after
 *	   which the range sees the write, whose triggers kept the index).  A
 *	   base key maps to one index key (the primary key is part of it), so
 *	   a trigger and the backfill never insert one key at the same time.
 *	5. Validation, in a REPEATABLE READ transaction: the index is compared
 *	   with the table (none may differ), the degree counters are corrected
 *	   by one delta row per group that is off (deltas written during the
 *	   backfill by writes of rows not yet backfilled are wrong, and those
 *	   writes committed before the backfill passed them), and the index is
 *	   marked ready.
 *	6. ANALYZE of the index table; the session locks are released.
 *
 * An error or a cancel after step 1 leaves the index registered and not
 * ready, like the INVALID index a failed CREATE INDEX CONCURRENTLY
 * leaves: drop_inverted_index() removes it, rebuild_inverted_index()
 * completes it.
 *
 * Progress is reported as CREATE INDEX CONCURRENTLY reports it: phase
 * "waiting for writers before build" (steps 2, 3), "building index"
 * (blocks and tuples of step 4, partitions), "index validation: scanning
 * table" (step 5).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/progress.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/bufmgr.h"
#include "storage/itemptr.h"
#include "storage/latch.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_admin.h"
#include "index_check.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "index_write.h"
#include "registry.h"

#define BUILD_BLOCKS 64		/* blocks of the table per transaction */
#define LOCK_TRIES 20			/* tries of step 2 before queueing */

typedef struct Build
{
	CreatePlan *p;
	Oid			idx;
	Oid			cnt;
	List	   *members;		/* the base table and its partitions */
	List	   *sessionlocks;	/* LockRelId * held for the session */
	int64		tuples_done;
	MemoryContext cxt;			/* lives across the build's transactions */
} Build;

/*
 * The search path of each of the build's transactions, as the SET clause
 * of a function would pin it (a procedure that commits cannot have one);
 * it lasts to the end of the transaction, also one that fails.
 */
static void
pin_search_path(void)
{
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_LOCAL, true, 0, false);
}

/* Commit, and start the next transaction at the given isolation level. */
static void
next_transaction(const char *isolation)
{
	SPI_commit();
	(void) set_config_option("transaction_isolation", isolation, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_LOCAL, true, 0, false);
	pin_search_path();
}

static void
session_lock(Build *b, Oid relid)
{
	MemoryContext old = MemoryContextSwitchTo(b->cxt);
	LockRelId  *id = palloc(sizeof(LockRelId));

	id->relId = relid;
	id->dbId = MyDatabaseId;
	LockRelationIdForSession(id, ShareUpdateExclusiveLock);
	b->sessionlocks = lappend(b->sessionlocks, id);
	MemoryContextSwitchTo(old);
}

static List *
locktags_of(List *relids)
{
	List	   *tags = NIL;
	ListCell   *lc;

	foreach(lc, relids)
	{
		LOCKTAG    *tag = palloc(sizeof(LOCKTAG));

		SET_LOCKTAG_RELATION(*tag, MyDatabaseId, lfirst_oid(lc));
		tags = lappend(tags, tag);
	}
	return tags;
}

/*
 * Step 2's lock: SHARE ROW EXCLUSIVE on every member, taken when no writer
 * holds them, so that writers never queue behind it; after LOCK_TRIES
 * rounds of waiting for the writers of the moment, by queueing.
 */
static void
lock_for_triggers(List *members)
{
	List	   *tags = locktags_of(members);

	for (int attempt = 0;; attempt++)
	{
		List	   *got = NIL;
		ListCell   *lc;
		bool		all = true;

		if (attempt >= LOCK_TRIES)
		{
			foreach(lc, members)
				LockRelationOid(lfirst_oid(lc), ShareRowExclusiveLock);
			return;
		}
		WaitForLockersMultiple(tags, ShareRowExclusiveLock, true);
		foreach(lc, members)
		{
			if (!ConditionalLockRelationOid(lfirst_oid(lc), ShareRowExclusiveLock))
			{
				all = false;
				break;
			}
			got = lappend_oid(got, lfirst_oid(lc));
		}
		if (all)
			return;
		foreach(lc, got)
			UnlockRelationOid(lfirst_oid(lc), ShareRowExclusiveLock);
		list_free(got);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Step 1, in the CALL's transaction. */
static void
build_register(Build *b)
{
	ListCell   *lc;

	b->idx = index_create_tables(b->p, true, false, &b->cnt);
	foreach(lc, b->members)
		session_lock(b, lfirst_oid(lc));
	session_lock(b, b->idx);
	if (OidIsValid(b->cnt))
		session_lock(b, b->cnt);
	admin_install_guard(b->idx);
	if (OidIsValid(b->cnt))
		admin_install_guard(b->cnt);
}

/* Steps 2 and 3. */
static void
build_wait_for_writers(Build *b)
{
	pgstat_progress_update_param(PROGRESS_CREATEIDX_PHASE, PROGRESS_CREATEIDX_PHASE_WAIT_1);
	if (!admin_triggers_in_place(b->p->base))
	{
		lock_for_triggers(b->members);
		install_triggers(b->p->base);
		/* every writer before the lock has finished */
		next_transaction("read committed");
		return;
	}
	WaitForLockersMultiple(locktags_of(b->members), ShareLock, true);
}

/*
 * The base values of ix, for a SELECT list (then the columns its predicate
 * reads, which put_rows() evaluates it on).
 */
static char *
column_list(const IndexDef *ix)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int c = 0; c < ix->ncols; c++)
		appendStringInfo(&buf, ", %s", quote_identifier(ix->colnames[c]));
	appendStringInfoString(&buf, index_predicate_select(ix));
	return buf.data;
}

/* The base row put_rows() is adding, for the context line of an error. */
typedef struct PutRowsArg
{
	const IndexDef *ix;
	Datum	   *base;			/* or NULL: between rows */
	bool	   *basenull;
} PutRowsArg;

/* The same line as a one-transaction build's (index_row_errcontext()). */
static void
put_rows_error_context(void *arg)
{
	PutRowsArg *a = (PutRowsArg *) arg;

	if (a->base != NULL)
		index_row_errcontext(a->ix, a->base, a->basenull);
}

/*
 * Put the index rows of the base rows of a result (ctid, then
 * column_list()) where they are absent; their ctids go to *locked when
 * asked.  pred: ix's predicate (index_predicate_begin_sql()), or NULL.
 * Every row read keeps the key limits (index_row_check_base()), those the
 * index leaves out too, and an error names it, as a one-transaction
 * build's does.
 */
static void
put_rows(Build *b, const IndexDef *ix, IndexPredicateState *pred, SPITupleTable *tt, uint64 n,
		 ItemPointer locked)
{
	IndexWriter *w;
	Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
	bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));
	Datum	   *row = palloc(sizeof(Datum) * ix->ncols);
	bool	   *rownull = palloc(sizeof(bool) * ix->ncols);
	PutRowsArg	arg = {ix, NULL, NULL};
	ErrorContextCallback errcb;

	w = index_writer_begin(ix->indexrel, ix->colnames, ix->ncols, ix->nkeys,
						   WRITE_IF_ABSENT, false);
	errcb.callback = put_rows_error_context;
	errcb.arg = &arg;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	for (uint64 r = 0; r < n; r++)
	{
		Datum		logical;
		bool		isnull;

		if (locked != NULL)
			locked[r] = *(ItemPointer) DatumGetPointer(SPI_getbinval(tt->vals[r], tt->tupdesc, 1, &isnull));
		for (int c = 0; c < ix->ncols; c++)
			base[c] = SPI_getbinval(tt->vals[r], tt->tupdesc, c + 2, &basenull[c]);
		base[ix->ncols] = BoolGetDatum(index_predicate_check_row(pred, tt->vals[r], tt->tupdesc,
																 ix->ncols + 2));
		basenull[ix->ncols] = false;
		arg.base = base;
		arg.basenull = basenull;
		index_row_check_base(ix, base, basenull);
		arg.base = NULL;
		if (index_row(ix, base, basenull, row, rownull, &logical))
			index_writer_put(w, row, rownull);
	}
	error_context_stack = errcb.previous;
	index_writer_end(w);
	b->tuples_done += n;
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, b->tuples_done);
}

static int
tid_cmp(const void *a, const void *b)
{
	return ItemPointerCompare((ItemPointer) a, (ItemPointer) b);
}

/*
 * Step 4 for blocks [from, to) of one partition (or a plain table), in the
 * current transaction.  The rows are locked FOR SHARE SKIP LOCKED: the
 * range waits for no writer (a writer may wait for it, never the other way
 * round, so they cannot deadlock).  Returns, in the build's context, the
 * ctids of the rows it could not lock (a writer held them), which
 * backfill_held() takes afterwards.
 */
static List *
backfill_range(Build *b, const IndexDef *ix, Oid member, BlockNumber from, BlockNumber to)
{
	char	   *qm = adjlist_qualified_name(member);
	Oid			types[2] = {TIDOID, TIDOID};
	Datum		args[2];
	ItemPointerData lo;
	ItemPointerData hi;
	AdjlistRoleSwitch role;
	ItemPointer locked;
	uint64		nlocked;
	List	   *held = NIL;
	IndexPredicateState *pred;

	ItemPointerSet(&lo, from, FirstOffsetNumber);
	ItemPointerSet(&hi, to, FirstOffsetNumber);
	args[0] = PointerGetDatum(&lo);
	args[1] = PointerGetDatum(&hi);

	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(b->p->base_owner, &role);
	pred = index_predicate_begin_sql(ix);

	/*
	 * the rows that can be locked now, indexed (a sparse index's predicate
	 * is evaluated on the rows read, so every row of the range is locked)
	 */
	if (SPI_execute_with_args(psprintf("SELECT ctid%s FROM ONLY %s WHERE ctid OPERATOR(pg_catalog.>=) $1 "
									   "AND ctid OPERATOR(pg_catalog.<) $2 FOR SHARE SKIP LOCKED",
									   column_list(ix), qm),
							  2, types, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "backfill query failed");
	nlocked = SPI_processed;
	locked = palloc(sizeof(ItemPointerData) * Max(nlocked, 1));
	put_rows(b, ix, pred, SPI_tuptable, nlocked, locked);
	qsort(locked, nlocked, sizeof(ItemPointerData), tid_cmp);

	/*
	 * the rows there are (the latest snapshot) that the index holds; those
	 * not locked are held
	 */
	if (SPI_execute_with_args(psprintf("SELECT ctid%s FROM ONLY %s WHERE ctid OPERATOR(pg_catalog.>=) $1 "
									   "AND ctid OPERATOR(pg_catalog.<) $2",
									   index_predicate_select(ix), qm),
							  2, types, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "backfill query failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		ItemPointer tid = (ItemPointer) DatumGetPointer(SPI_getbinval(SPI_tuptable->vals[r],
														   SPI_tuptable->tupdesc, 1, &isnull));

		if (!index_predicate_check_row(pred, SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2))
			continue;
		if (bsearch(tid, locked, nlocked, sizeof(ItemPointerData), tid_cmp) == NULL)
		{
			MemoryContext old = MemoryContextSwitchTo(b->cxt);
			ItemPointer copy = palloc(sizeof(ItemPointerData));

			*copy = *tid;
			held = lappend(held, copy);
			MemoryContextSwitchTo(old);
		}
	}
	index_predicate_end(pred);
	adjlist_unbecome(&role);
	SPI_finish();
	PopActiveSnapshot();
	return held;
}

/*
 * The rows a writer held during their range, one transaction each: the
 * row is locked (waiting for the writer), and indexed if it is still
 * there, unchanged (a version the writer made has a new ctid, and its
 * triggers indexed it).  Holding no other row lock, the wait cannot be
 * part of a deadlock.
 */
static void
backfill_held(Build *b, const IndexDef *ix, Oid member, List *held)
{
	char	   *sql = psprintf("SELECT ctid%s FROM ONLY %s WHERE ctid OPERATOR(pg_catalog.=) $1 FOR SHARE",
							   column_list(ix), adjlist_qualified_name(member));
	Oid			types[1] = {TIDOID};
	ListCell   *lc;

	foreach(lc, held)
	{
		Datum		args[1] = {PointerGetDatum(lfirst(lc))};
		AdjlistRoleSwitch role;
		IndexPredicateState *pred;

		PushActiveSnapshot(GetTransactionSnapshot());
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		adjlist_become(b->p->base_owner, &role);
		pred = index_predicate_begin_sql(ix);
		if (SPI_execute_with_args(sql, 1, types, args, NULL, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "backfill query failed");
		put_rows(b, ix, pred, SPI_tuptable, SPI_processed, NULL);
		index_predicate_end(pred);
		adjlist_unbecome(&role);
		SPI_finish();
		PopActiveSnapshot();
		next_transaction("read committed");
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * The rows of a member that ix leaves out keep the base table's key limits
 * too (rows written since step 3 were checked by the triggers), in a
 * transaction of their own.
 */
static void
build_check_rows(Build *b, const IndexDef *ix, Oid member)
{
	AdjlistRoleSwitch role;

	if (!index_skips_rows(ix))
		return;
	PushActiveSnapshot(GetTransactionSnapshot());
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(b->p->base_owner, &role);
	admin_check_rows(ix, member);
	adjlist_unbecome(&role);
	SPI_finish();
	PopActiveSnapshot();
	next_transaction("read committed");
}

/* Step 4. */
static void
build_backfill(Build *b)
{
	IndexDef   *ix;
	ListCell   *lc;
	List	   *leaves = NIL;
	int			done = 0;
	MemoryContext old;

	old = MemoryContextSwitchTo(b->cxt);
	ix = registry_index(b->idx, true);
	foreach(lc, b->members)
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_RELATION)
			leaves = lappend_oid(leaves, lfirst_oid(lc));
	MemoryContextSwitchTo(old);
	if (ix == NULL)
		elog(ERROR, "inverted index \"%s\" is not registered", b->p->index_name);

	pgstat_progress_update_param(PROGRESS_CREATEIDX_PHASE, PROGRESS_CREATEIDX_PHASE_BUILD);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_PARTITIONS_TOTAL,
								 list_length(leaves) > 1 ? list_length(leaves) : 0);
	foreach(lc, leaves)
	{
		Oid			member = lfirst_oid(lc);
		BlockNumber nblocks;
		Relation	rel;

		build_check_rows(b, ix, member);
		/* rows in later blocks were written after step 3: the triggers have them */
		rel = table_open(member, AccessShareLock);
		nblocks = RelationGetNumberOfBlocks(rel);
		table_close(rel, AccessShareLock);
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_TOTAL, nblocks);
		pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE, 0);
		for (BlockNumber blk = 0; blk < nblocks; blk += BUILD_BLOCKS)
		{
			BlockNumber to = Min(nblocks, blk + BUILD_BLOCKS);

			List	   *held = backfill_range(b, ix, member, blk, to);

			next_transaction("read committed");
			backfill_held(b, ix, member, held);
			list_free_deep(held);
			pgstat_progress_update_param(PROGRESS_SCAN_BLOCKS_DONE, to);
			CHECK_FOR_INTERRUPTS();
		}
		if (list_length(leaves) > 1)
			pgstat_progress_update_param(PROGRESS_CREATEIDX_PARTITIONS_DONE, ++done);
	}
}

/* Step 5, in a REPEATABLE READ transaction begun by the caller. */
static void
build_validate(Build *b)
{
	IndexDef   *ix;
	int64		differ;

	pgstat_progress_update_param(PROGRESS_CREATEIDX_PHASE,
								 PROGRESS_CREATEIDX_PHASE_VALIDATE_TABLESCAN);
	PushActiveSnapshot(GetTransactionSnapshot());
	ix = registry_index(b->idx, true);
	if (ix == NULL)
		elog(ERROR, "inverted index \"%s\" is not registered", b->p->index_name);
	differ = index_count_differences(ix);
	if (differ > 0)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("inverted index \"%s\" differs from table \"%s\" in " INT64_FORMAT " rows after its concurrent build",
						get_rel_name(b->idx), b->p->base_name, differ),
				 errdetail("The index stays registered and not ready."),
				 errhint("Run rebuild_inverted_index() to complete it, or drop_inverted_index().")));
	index_correct_counters(ix);
	registry_set_ready(b->idx, true);
	PopActiveSnapshot();
}

void
index_build_concurrently(CreatePlan *p)
{
	Build		b;
	ListCell   *lc;

	memset(&b, 0, sizeof(b));
	b.p = p;
	b.cxt = CurrentMemoryContext;	/* the CALL's, which outlives commits */
	b.members = admin_members_of(p->base);
	if (SPI_connect_ext(SPI_OPT_NONATOMIC) != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	b.cxt = CurrentMemoryContext;	/* SPI's procedure context, likewise */
	pin_search_path();

	build_register(&b);
	index_create_progress(p->base, b.idx, true);
	next_transaction("read committed");

	build_wait_for_writers(&b);
	build_backfill(&b);

	next_transaction("repeatable read");
	build_validate(&b);
	next_transaction("read committed");

	pgstat_progress_end_command();
	PushActiveSnapshot(GetTransactionSnapshot());
	admin_exec(psprintf("ANALYZE %s", adjlist_qualified_name(b.idx)), SPI_OK_UTILITY);
	PopActiveSnapshot();
	foreach(lc, b.sessionlocks)
		UnlockRelationIdForSession((LockRelId *) lfirst(lc), ShareUpdateExclusiveLock);
	SPI_finish();
}
