/*-------------------------------------------------------------------------
 *
 * index_sync.c
 *	  The triggers that keep a table's inverted indexes exact.
 *
 * One C function, adjlist_sync_trigger(), serves every inverted index of a
 * table; the registry (registry.c) says which.  create_inverted_index()
 * installs it (index_admin.c) on the base table and on every partition, at
 * any depth, so that a statement on the base table or directly on one of
 * its partitions is followed:
 *
 *	adjlist_sync_ins		AFTER INSERT, REFERENCING NEW TABLE, FOR EACH STATEMENT
 *	adjlist_sync_upd		AFTER UPDATE, REFERENCING OLD TABLE NEW TABLE, ...
 *	adjlist_sync_del		AFTER DELETE, REFERENCING OLD TABLE, ...
 *	adjlist_sync_before_trunc  BEFORE TRUNCATE FOR EACH STATEMENT
 *	adjlist_sync_trunc		AFTER TRUNCATE FOR EACH STATEMENT (base table only)
 *
 * Statement-level triggers over transition tables see each statement's
 * rows as a set, after every BEFORE trigger has had its say, whatever the
 * statement was (INSERT, COPY, UPDATE, DELETE, MERGE, ON CONFLICT, writable
 * CTEs).  The index follows the set: rows whose index row did not change
 * are skipped (compared byte for byte, so 1.0 -> 1.00 is a change), a
 * change of projected columns rewrites the row in place, and otherwise all
 * the statement's old index rows are removed before any new one is
 * written, so that keys swapped between rows in one statement (under a
 * DEFERRABLE primary key) end exactly as the base table does.
 *
 * Transition tables cannot be collected from foreign tables, so a base
 * table that is foreign or has foreign partitions gets a row trigger
 * instead (adjlist_sync, AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW,
 * cloned to the partitions by PostgreSQL); each row is then applied on its
 * own.  There is no two-phase commit with a foreign server: writes are
 * idempotent, and verify/rebuild mend what a failed commit leaves.
 *
 * TRUNCATE.  Truncating the base table truncates its index tables (and
 * counter tables) in its AFTER trigger.  Truncating one partition removes
 * the index rows of that partition's rows, read in its BEFORE trigger while
 * they still exist; when the whole base table is truncated its own BEFORE
 * trigger, which fires first, marks the statement so that the partitions'
 * triggers leave the work to the AFTER trigger.  A partition that is
 * itself partitioned leaves its rows to the BEFORE triggers of its own
 * partitions, which TRUNCATE fires too (but for foreign ones, which have no
 * TRUNCATE trigger: it reads those itself).  It must not read them for its
 * partitions: its writes advance the command counter that keys the mark,
 * so they would remove the same rows a second time, not find them, and put
 * them back from the table that still holds them (recheck_removed()).
 *
 * The writes run as the owner of the index tables, which is the owner of
 * the base table (registry.c checks it), as core's foreign-key triggers
 * run as the owner of the table they write: a role that may write the base
 * table needs no privilege on the index table.  The index tables are locked
 * before the registry entry is trusted; if an invalidation arrives while
 * they are being locked, the lookup is repeated.
 *
 * Every index of the table is kept here, whatever its mode: mode 'api'
 * matters only where triggers cannot run (a table Citus distributes), and
 * there the write API writes the index rows itself (write_api.c).
 *
 * The index and counter tables are derived data.  adjlist_index_guard()
 * (BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE FOR EACH STATEMENT on
 * each of them and their partitions) refuses any write that adjlist does
 * not make itself (index_write.c says which), so that no statement, COPY
 * or data-only restore can put them out of step with their table.  It is a
 * statement trigger: adjlist's own row writes through the executor fire
 * no statement triggers and pay nothing for it.
 *
 * Logical replication.  The triggers are ENABLE ORIGIN: an apply worker
 * (session_replication_role = replica) does not fire them, so a subscriber
 * that receives the index tables too does not write them twice.  A
 * subscriber that receives only the base table and keeps its own index
 * needs a row trigger, since apply workers fire no statement triggers: the
 * table's owner adds adjlist_sync_replica (AFTER INSERT OR UPDATE OR DELETE
 * FOR EACH ROW, ENABLE REPLICA) and enables the TRUNCATE triggers ALWAYS;
 * check_trigger() accepts that trigger only in that form.
 *
 * A trigger that finds no registered index for its table refuses the
 * write (55000, refuse_unregistered()): the triggers and the index table
 * came back from a dump without the registry's row, which pg_dump -t and
 * -n leave out (the extension's configuration comes with the whole
 * database only), and the index would silently miss every later write.
 * Two exceptions.  adjlist's own statements, which may run between a
 * registration and its triggers.  And a session restoring a dump (one with
 * the settings every pg_dump script and pg_restore make, below): the
 * triggers came back from a schema-only restore and the registry's rows
 * come with the data, maybe after this table's; the trigger does nothing,
 * and when the registry's row arrives the index is rebuilt from the table
 * (index_restore.c).  The guard lets such an index table be written too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "index_admin.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "index_write.h"
#include "plan_cache.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_sync_trigger);
PG_FUNCTION_INFO_V1(adjlist_index_guard);

/* One index as the current trigger call writes it. */
typedef struct SyncIndex
{
	const IndexDef *ix;
	MemoryContext cxt;			/* lives as long as the trigger call */
	AttrNumber *attnos;			/* its columns in the firing relation */
	IndexPredicateState *pred;	/* its predicate over the firing relation */
	IndexWriter *writer;		/* opened at first use */
	Counts	   *counts;
	Datum	   *base[2];		/* scratch: old and new base values */
	bool	   *basenull[2];
	Datum	   *row[2];			/* scratch: old and new index rows */
	bool	   *rownull[2];
	Datum		logical[2];
	List	   *recheck;		/* base keys of removed rows to look up again */
} SyncIndex;

typedef struct SyncState
{
	TableIndexes *ti;
	int			nindexes;
	SyncIndex  *indexes;
	bool		spi;
	AdjlistRoleSwitch role;
	MemoryContext rowcxt;
} SyncState;

/* ----------------------------------------------------------------------
 * Index rows put earlier in the transaction, and rows not found
 * ----------------------------------------------------------------------
 *
 * The statement triggers of one query fire in an order that follows
 * PostgreSQL's execution, not the rows: in "WITH d AS (DELETE ... key k)
 * INSERT ... key k" the INSERT's trigger runs first and puts k's index row,
 * then the DELETE's removes it, though the table still has k.  So when a
 * trigger removes an index row that a trigger of this transaction may have
 * put, it looks the base table up by that row's key afterwards (latest
 * snapshot, this command's changes included) and puts back what the table
 * has.  "May have put" is a Bloom filter of the keys put in this
 * transaction, reset when the transaction changes: false positives cost a
 * lookup, never a wrong index.
 *
 * The other way round, a statement's trigger can run before that of a
 * statement whose rows it changes: a user's AFTER ROW trigger that updates
 * or deletes the row it fired for runs a statement whose trigger fires
 * before the outer statement's, which still holds the row's first version
 * in its transition table; and two foreign-key cascades that update one
 * row in one query share one transition table, which holds the version
 * between them as an old and as a new row.  The index was exact before
 * the statement, so such a trigger finds an index row missing where it
 * removes one (or one with other columns where it rewrites one in place).
 * It then looks the base table up by that row's key, as above, and notes
 * the index key in a second filter, of the keys found missing in this
 * transaction: a later trigger does not put an index row of such a key
 * from its transition table, which may be out of date, but looks the base
 * table up by its key and puts what the table has.  Counters follow the
 * statements' events, which are right whatever the order.
 */

/*
 * A filter starts small (most transactions put a few rows) and grows 8x
 * at a time, up to KEY_FILTER_MAX_BITS, when it holds more than one key per
 * 8 bits.  Sizes are powers of two and a key's bits are its hashes modulo
 * the size, so growing sets, for each bit b of the old filter, every bit of
 * the new one congruent to b: every key added stays "maybe" (no false
 * negative), which is all the filter promises.
 */
#define KEY_FILTER_MIN_BITS (1 << 16)	/* 8 kB */
#define KEY_FILTER_MAX_BITS (1 << 20)	/* 128 kB */

typedef struct KeyFilter
{
	uint8	   *bits;
	uint32		nbits;
	uint32		nkeys;
	LocalTransactionId lxid;	/* the transaction it is of */
} KeyFilter;

static KeyFilter put_filter;	/* keys put in this transaction */
static KeyFilter missing_filter;	/* keys found missing in it */

static uint32
index_key_hash(SyncIndex *si, int k)
{
	uint32		h = murmurhash32((uint32) si->ix->indexrel);

	for (int i = 0; i < si->ix->nkeys; i++)
		if (!si->rownull[k][i])
			h = hash_combine(h, datum_image_hash(si->row[k][i], si->ix->typbyvals[i],
												 si->ix->typlens[i]));
	return h;
}

static uint8 *
filter_for_xact(KeyFilter *f, bool create)
{
	if (f->lxid != adjlist_local_xid() || f->bits == NULL)
	{
		f->bits = NULL;
		if (!create)
			return NULL;
		f->nbits = KEY_FILTER_MIN_BITS;
		f->nkeys = 0;
		f->bits = MemoryContextAllocZero(TopTransactionContext, f->nbits / 8);
		f->lxid = adjlist_local_xid();
	}
	return f->bits;
}

/* Make the filter 8x larger, keeping every key it has (see above). */
static void
filter_grow(KeyFilter *f)
{
	uint32		oldbytes = f->nbits / 8;
	uint32		newbits = Min(f->nbits * 8, KEY_FILTER_MAX_BITS);
	uint8	   *bits = MemoryContextAlloc(TopTransactionContext, newbits / 8);

	for (uint32 off = 0; off < newbits / 8; off += oldbytes)
		memcpy(bits + off, f->bits, oldbytes);
	pfree(f->bits);
	f->bits = bits;
	f->nbits = newbits;
}

static void
filter_add(KeyFilter *f, SyncIndex *si, int k)
{
	uint8	   *bits = filter_for_xact(f, true);
	uint32		h = index_key_hash(si, k);
	uint32		b1 = h % f->nbits;
	uint32		b2 = murmurhash32(h) % f->nbits;

	bits[b1 / 8] |= (1 << (b1 % 8));
	bits[b2 / 8] |= (1 << (b2 % 8));
	if (++f->nkeys > f->nbits / 8 && f->nbits < KEY_FILTER_MAX_BITS)
		filter_grow(f);
}

static bool
filter_maybe(KeyFilter *f, SyncIndex *si, int k)
{
	uint8	   *bits = filter_for_xact(f, false);
	uint32		h;
	uint32		b1;
	uint32		b2;

	if (bits == NULL)
		return false;
	h = index_key_hash(si, k);
	b1 = h % f->nbits;
	b2 = murmurhash32(h) % f->nbits;
	return (bits[b1 / 8] & (1 << (b1 % 8))) && (bits[b2 / 8] & (1 << (b2 % 8)));
}

/* ----------------------------------------------------------------------
 * Setting up
 * ----------------------------------------------------------------------
 */

static char *counter_columns[] = {"node", "edge", "direction", "n"};

/*
 * The indexes of the firing relation, with their tables locked.  The
 * triggers keep every index, whatever its mode (the write API writes index
 * rows itself only where no trigger runs: Citus), except on the SQL objects
 * of 0.1 and 0.2 not yet updated, whose write API still writes the indexes
 * in API mode itself: all_modes is then false but for TRUNCATE.
 */
static TableIndexes *
locked_indexes(Oid relid, bool all_modes)
{
	for (int attempt = 0;; attempt++)
	{
		TableIndexes *ti = registry_lookup(relid);

		for (int i = 0; i < ti->nindexes; i++)
		{
			const IndexDef *ix = &ti->indexes[i];

			if (!all_modes && ix->mode != INDEX_MODE_TRIGGER)
				continue;
			LockRelationOid(ix->indexrel, RowExclusiveLock);
			if (OidIsValid(ix->counterrel))
				LockRelationOid(ix->counterrel, RowExclusiveLock);
		}
		if (!registry_changed(ti) || attempt >= 3)
			return ti;
	}
}

static void
sync_begin(SyncState *st, Relation rel, bool all_modes)
{
	TableIndexes *ti;
	bool		runs_code;
	bool		pin_path = false;

	all_modes = all_modes || !adjlist_catalog()->legacy;
	ti = locked_indexes(RelationGetRelid(rel), all_modes);

	memset(st, 0, sizeof(*st));
	st->ti = ti;
	st->indexes = palloc0(sizeof(SyncIndex) * Max(ti->nindexes, 1));
	for (int i = 0; i < ti->nindexes; i++)
	{
		const IndexDef *ix = &ti->indexes[i];
		SyncIndex  *si;

		if (!all_modes && ix->mode != INDEX_MODE_TRIGGER)
			continue;
		si = &st->indexes[st->nindexes++];
		si->ix = ix;
		si->cxt = CurrentMemoryContext;
		si->attnos = index_row_attnos(ix, RelationGetDescr(rel));
		for (int k = 0; k < 2; k++)
		{
			si->base[k] = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
			si->basenull[k] = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));
			si->row[k] = palloc(sizeof(Datum) * ix->ncols);
			si->rownull[k] = palloc(sizeof(bool) * ix->ncols);
		}
		if (index_writer_needs_spi(ix->indexrel, ix->colnames, ix->nkeys, WRITE_UPSERT,
								   &runs_code))
			st->spi = true;
		pin_path |= runs_code || ix->predicate != NULL;
		if (OidIsValid(ix->counterrel) &&
			index_writer_needs_spi(ix->counterrel, counter_columns, 3, WRITE_APPEND,
								   &runs_code))
			st->spi = true;
		/* counters of 0.1 and 0.2 are written through SQL (index_rule.c) */
		pin_path |= runs_code || (OidIsValid(ix->counterrel) && ix->counter_legacy);
	}
	if (st->nindexes == 0)
		return;
	/* in the call's context, not in SPI's, which SPI_finish() deletes */
	st->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist sync row",
									   ALLOCSET_DEFAULT_SIZES);
	if (st->spi && SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * As the owner; search_path pinned only where a name could be looked
	 * up: SQL, a predicate, code of the index or counter table, counters
	 * written through SQL (recheck_removed() pins it before its SQL).
	 */
	if (st->spi || pin_path)
		adjlist_become(ti->owner, &st->role);
	else
		adjlist_become_role(ti->owner, &st->role);
	/* predicates are the owner's, as the rest of what the triggers run */
	for (int i = 0; i < st->nindexes; i++)
		if (st->indexes[i].ix->predicate != NULL)
			st->indexes[i].pred = index_predicate_begin(st->indexes[i].ix, rel);
}

/* The writer of an index, opened at first use in the call's context. */
static IndexWriter *
writer_of(SyncIndex *si, bool bulk)
{
	if (si->writer == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(si->cxt);

		si->writer = index_writer_begin(si->ix->indexrel, si->ix->colnames,
										si->ix->ncols, si->ix->nkeys, WRITE_UPSERT, bulk);
		MemoryContextSwitchTo(old);
	}
	return si->writer;
}

static void
count(SyncIndex *si, int k, int64 delta)
{
	if (!OidIsValid(si->ix->counterrel))
		return;
	if (si->counts == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(si->cxt);

		si->counts = counts_create(si->ix);
		MemoryContextSwitchTo(old);
	}
	counts_add(si->counts, si->logical[k], si->row[k][1], delta);
}

static void recheck_removed(SyncState *st, SyncIndex *si);

static void
sync_end(SyncState *st)
{
	if (st->nindexes == 0)
		return;
	for (int i = 0; i < st->nindexes; i++)
	{
		SyncIndex  *si = &st->indexes[i];

		if (si->recheck != NIL)
			recheck_removed(st, si);
		if (si->writer)
			index_writer_end(si->writer);
		if (si->pred)
			index_predicate_end(si->pred);
		if (si->counts)
		{
			counts_flush(si->counts);
			counts_destroy(si->counts);
		}
	}
	adjlist_unbecome(&st->role);
	MemoryContextDelete(st->rowcxt);
	if (st->spi)
		SPI_finish();
}

/* ----------------------------------------------------------------------
 * Applying changes
 * ----------------------------------------------------------------------
 */

/*
 * Compute index row k of si from a slot; false when not indexed.  A new
 * row (k = 1) must keep the base table's key limits even where the index
 * does not hold it.
 */
static bool
compute(SyncIndex *si, int k, TupleTableSlot *slot)
{
	index_row_extract(si->ix, si->attnos, si->pred, slot, si->base[k], si->basenull[k]);
	if (k == 1)
		index_row_check_base(si->ix, si->base[k], si->basenull[k]);
	return index_row(si->ix, si->base[k], si->basenull[k], si->row[k], si->rownull[k],
					 &si->logical[k]);
}

/* The base key of row k, copied into the call's context. */
static Datum *
base_key_of(SyncIndex *si, int k)
{
	const IndexDef *ix = si->ix;
	MemoryContext old = MemoryContextSwitchTo(si->cxt);
	Datum	   *key = palloc(sizeof(Datum) * ix->nbasekey);

	for (int b = 0; b < ix->nbasekey; b++)
		for (int c = 0; c < ix->ncols; c++)
			if (strcmp(ix->colnames[c], ix->base_key[b]) == 0)
			{
				key[b] = datumCopy(si->base[k][c], ix->typbyvals[c], ix->typlens[c]);
				break;
			}
	MemoryContextSwitchTo(old);
	return key;
}

/* Look the base table up by row k's key at the end of the call. */
static void
recheck_later(SyncIndex *si, int k)
{
	MemoryContext old = MemoryContextSwitchTo(si->cxt);

	si->recheck = lappend(si->recheck, base_key_of(si, k));
	MemoryContextSwitchTo(old);
}

/* Index row k was not there as the transition table says it was. */
static void
found_missing(SyncIndex *si, int k)
{
	filter_add(&missing_filter, si, k);
	recheck_later(si, k);
}

static void
remove_row(SyncIndex *si, int k, bool counted)
{
	IndexWriter *w = writer_of(si, false);
	bool		found = index_writer_remove(w, si->row[k], si->rownull[k]);

	if (counted)
		count(si, k, -1);
	if (index_writer_multiset(w))
		return;
	if (!found)
		found_missing(si, k);
	else if (filter_maybe(&put_filter, si, k))
		recheck_later(si, k);
}

static void
put_row(SyncIndex *si, int k, bool counted, bool bulk)
{
	IndexWriter *w = writer_of(si, bulk);

	if (counted)
		count(si, k, +1);
	if (!index_writer_multiset(w) && filter_maybe(&missing_filter, si, k))
	{
		/* its transition table may be out of date: what the table has */
		recheck_later(si, k);
		return;
	}
	index_writer_put(w, si->row[k], si->rownull[k]);
	if (!index_writer_multiset(w))
		filter_add(&put_filter, si, k);
}

/*
 * An index row whose key stays and whose other columns change (not in a
 * multiset): rewritten in place if the index holds its old version.
 */
static void
rewrite_row(SyncIndex *si)
{
	IndexWriter *w = writer_of(si, false);

	if (filter_maybe(&missing_filter, si, 1))
		recheck_later(si, 1);
	else if (!index_writer_rewrite(w, si->row[0], si->rownull[0], si->row[1], si->rownull[1]))
		found_missing(si, 1);
	else
		filter_add(&put_filter, si, 1);
}

/*
 * Put back the index rows of the base rows that have the keys of rows this
 * call removed (see "Index rows put earlier in the transaction"); counters
 * are not touched: they follow the base rows' events, which were right.
 */
static void
recheck_removed(SyncState *st, SyncIndex *si)
{
	const IndexDef *ix = si->ix;
	StringInfoData sql;
	Oid		   *types;
	ListCell   *lc;
	char	   *qbase = adjlist_qualified_name(st->ti->baserel);
	IndexPredicateState *pred;

	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int c = 0; c < ix->ncols; c++)
		appendStringInfo(&sql, "%s%s", c ? ", " : "", quote_identifier(ix->colnames[c]));
	/* (and the columns of a sparse index's predicate, evaluated below) */
	appendStringInfo(&sql, "%s FROM %s WHERE ", index_predicate_select(ix), qbase);
	types = palloc(sizeof(Oid) * ix->nbasekey);
	for (int b = 0; b < ix->nbasekey; b++)
	{
		for (int c = 0; c < ix->ncols; c++)
			if (strcmp(ix->colnames[c], ix->base_key[b]) == 0)
				types[b] = ix->coltypes[c];
		appendStringInfo(&sql, "%s%s %s $%d", b ? " AND " : "", quote_identifier(ix->base_key[b]),
						 adjlist_equality_sql(types[b]), b + 1);
	}
	if (!st->spi)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		st->spi = true;
	}
	adjlist_become_pin_path(&st->role);
	pred = index_predicate_begin_sql(ix);
	foreach(lc, si->recheck)
	{
		Datum	   *key = (Datum *) lfirst(lc);

		adjlist_plan_execute_latest(adjlist_plan(sql.data, ix->nbasekey, types), key, NULL,
									SPI_OK_SELECT);
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			MemoryContext old = MemoryContextSwitchTo(st->rowcxt);

			for (int c = 0; c < ix->ncols; c++)
				si->base[1][c] = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc,
											   c + 1, &si->basenull[1][c]);
			si->base[1][ix->ncols] = BoolGetDatum(index_predicate_check_row(pred, SPI_tuptable->vals[r],
																			SPI_tuptable->tupdesc,
																			ix->ncols + 1));
			si->basenull[1][ix->ncols] = false;
			if (index_row(ix, si->base[1], si->basenull[1], si->row[1], si->rownull[1],
						  &si->logical[1]))
				index_writer_put(writer_of(si, false), si->row[1], si->rownull[1]);
			MemoryContextSwitchTo(old);
			MemoryContextReset(st->rowcxt);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	index_predicate_end(pred);
	list_free_deep(si->recheck);
	si->recheck = NIL;
}

static bool
same_key(SyncIndex *si)
{
	return index_row_equal(si->ix, 0, si->ix->nkeys, si->row[0], si->rownull[0],
						   si->row[1], si->rownull[1]);
}

static bool
same_projections(SyncIndex *si)
{
	return index_row_equal(si->ix, si->ix->nkeys, si->ix->ncols, si->row[0], si->rownull[0],
						   si->row[1], si->rownull[1]);
}

/*
 * What an update of one row does to one index, before any new row is
 * written.  Returns true when the new index row is still to be written,
 * after every removal of the statement.
 */
static bool
update_pass1(SyncIndex *si, bool old_in, bool new_in)
{
	if (old_in && new_in && same_key(si))
	{
		if (same_projections(si))
			return false;		/* nothing the index holds changed */
		if (!index_writer_multiset(writer_of(si, false)))
		{
			rewrite_row(si);
			return false;
		}
		remove_row(si, 0, false);
		return true;
	}
	if (old_in)
		remove_row(si, 0, true);
	return new_in;
}

/* The same decision as update_pass1(), without its side effects. */
static bool
update_pending(SyncIndex *si, bool old_in, bool new_in, bool *counted)
{
	*counted = true;
	if (old_in && new_in && same_key(si))
	{
		*counted = false;
		return !same_projections(si) && index_writer_multiset(writer_of(si, false));
	}
	return new_in;
}

/* Apply an INSERT statement's new rows. */
static void
apply_inserts(SyncState *st, Tuplestorestate *ts, TupleDesc desc)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	int			ptr = tuplestore_alloc_read_pointer(ts, EXEC_FLAG_REWIND);

	tuplestore_select_read_pointer(ts, ptr);
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		MemoryContext old = MemoryContextSwitchTo(st->rowcxt);

		for (int i = 0; i < st->nindexes; i++)
		{
			SyncIndex  *si = &st->indexes[i];

			if (compute(si, 1, slot))
				put_row(si, 1, true, true);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(st->rowcxt);
	}
	ExecDropSingleTupleTableSlot(slot);
}

/* Apply a DELETE statement's old rows. */
static void
apply_deletes(SyncState *st, Tuplestorestate *ts, TupleDesc desc)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	int			ptr = tuplestore_alloc_read_pointer(ts, EXEC_FLAG_REWIND);

	tuplestore_select_read_pointer(ts, ptr);
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		MemoryContext old = MemoryContextSwitchTo(st->rowcxt);

		for (int i = 0; i < st->nindexes; i++)
		{
			SyncIndex  *si = &st->indexes[i];

			if (compute(si, 0, slot))
				remove_row(si, 0, true);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(st->rowcxt);
	}
	ExecDropSingleTupleTableSlot(slot);
}

/*
 * Apply an UPDATE statement's old and new rows.  PostgreSQL stores the old
 * and the new version of each updated row at the same position of the two
 * transition tables, so they are read in step; the decisions below are
 * correct for any pairing, the pairing only lets unchanged rows be skipped
 * and changed projections be rewritten in place.  Pass 1 removes, pass 2
 * writes the new rows that pass 1 left to it.
 */
static void
apply_updates(SyncState *st, Tuplestorestate *olds, Tuplestorestate *news, TupleDesc desc)
{
	TupleTableSlot *oslot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	TupleTableSlot *nslot = MakeSingleTupleTableSlot(desc, &TTSOpsMinimalTuple);
	int			optr = tuplestore_alloc_read_pointer(olds, EXEC_FLAG_REWIND);
	int			nptr = tuplestore_alloc_read_pointer(news, EXEC_FLAG_REWIND);

	for (int pass = 1; pass <= 2; pass++)
	{
		tuplestore_select_read_pointer(olds, optr);
		tuplestore_rescan(olds);
		tuplestore_select_read_pointer(news, nptr);
		tuplestore_rescan(news);
		for (;;)
		{
			bool		have_old;
			bool		have_new;
			MemoryContext old;

			tuplestore_select_read_pointer(olds, optr);
			have_old = tuplestore_gettupleslot(olds, true, false, oslot);
			tuplestore_select_read_pointer(news, nptr);
			have_new = tuplestore_gettupleslot(news, true, false, nslot);
			if (!have_old && !have_new)
				break;
			old = MemoryContextSwitchTo(st->rowcxt);
			for (int i = 0; i < st->nindexes; i++)
			{
				SyncIndex  *si = &st->indexes[i];
				bool		old_in = have_old && compute(si, 0, oslot);
				bool		new_in = have_new && compute(si, 1, nslot);
				bool		counted;

				if (pass == 1)
					(void) update_pass1(si, old_in, new_in);
				else if (update_pending(si, old_in, new_in, &counted))
					put_row(si, 1, counted, false);
			}
			MemoryContextSwitchTo(old);
			MemoryContextReset(st->rowcxt);
		}
	}
	ExecDropSingleTupleTableSlot(oslot);
	ExecDropSingleTupleTableSlot(nslot);
}

/* Apply one row event of a row trigger (a base table with foreign members). */
static void
apply_row(SyncState *st, TriggerData *td)
{
	TriggerEvent ev = td->tg_event;

	for (int i = 0; i < st->nindexes; i++)
	{
		SyncIndex  *si = &st->indexes[i];
		bool		old_in = false;
		bool		new_in = false;

		if (TRIGGER_FIRED_BY_INSERT(ev))
			new_in = compute(si, 1, td->tg_trigslot);
		else if (TRIGGER_FIRED_BY_DELETE(ev))
			old_in = compute(si, 0, td->tg_trigslot);
		else
		{
			old_in = compute(si, 0, td->tg_trigslot);
			new_in = compute(si, 1, td->tg_newslot);
		}
		if (TRIGGER_FIRED_BY_UPDATE(ev))
		{
			bool		counted;

			if (update_pass1(si, old_in, new_in) &&
				update_pending(si, old_in, new_in, &counted))
				put_row(si, 1, counted, false);
		}
		else if (old_in)
			remove_row(si, 0, true);
		else if (new_in)
			put_row(si, 1, true, false);
	}
}

/* ----------------------------------------------------------------------
 * TRUNCATE
 * ----------------------------------------------------------------------
 */

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
		remove_row(si, 0, true);
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
static void
truncate_before(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	List	   *members;
	ListCell   *lc;
	SyncState	st;

	if (registry_base_of(relid) == relid)
	{
		mark_truncating(relid);
		return;
	}
	if (ancestor_truncating(relid))
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

			base_scan(lfirst_oid(lc), st.indexes[i].ix, true, false, remove_base_row, &a);
		}
	}
	sync_end(&st);
}

/* AFTER TRUNCATE of the base table: empty its index and counter tables. */
static void
truncate_after(Relation rel)
{
	TableIndexes *ti = locked_indexes(RelationGetRelid(rel), true);
	AdjlistRoleSwitch role;

	if (ti->nindexes == 0)
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(ti->owner, &role);
	for (int i = 0; i < ti->nindexes; i++)
	{
		index_writer_truncate(ti->indexes[i].indexrel);
		if (OidIsValid(ti->indexes[i].counterrel))
			index_writer_truncate(ti->indexes[i].counterrel);
	}
	adjlist_unbecome(&role);
	SPI_finish();
}

/* ----------------------------------------------------------------------
 * The trigger functions
 * ----------------------------------------------------------------------
 */

/*
 * The name of one of adjlist's INSERT/UPDATE/DELETE triggers in td that is
 * enabled ALWAYS, or NULL.
 */
static const char *
fires_always_in(TriggerDesc *td)
{
	for (int i = 0; td != NULL && i < td->numtriggers; i++)
	{
		const Trigger *t = &td->triggers[i];

		if (t->tgenabled == TRIGGER_FIRES_ALWAYS &&
			(strcmp(t->tgname, "adjlist_sync") == 0 ||
			 strcmp(t->tgname, "adjlist_sync_ins") == 0 ||
			 strcmp(t->tgname, "adjlist_sync_upd") == 0 ||
			 strcmp(t->tgname, "adjlist_sync_del") == 0))
			return t->tgname;
	}
	return NULL;
}

/*
 * The name of one of adjlist's INSERT/UPDATE/DELETE triggers on rel or on
 * one of its partition ancestors (a statement on the parent fires the
 * parent's statement triggers and the partition's row triggers) that is
 * enabled ALWAYS, or NULL; *where is the table it is on.  Such a trigger fires in a
 * session_replication_role = replica session too, where
 * adjlist_sync_replica would apply the same change a second time.
 */
static const char *
sync_fires_always(Relation rel, Oid *where)
{
	const char *name = fires_always_in(rel->trigdesc);
	List	   *ancestors;
	ListCell   *lc;

	*where = RelationGetRelid(rel);
	if (name != NULL || !rel->rd_rel->relispartition)
		return name;
	ancestors = get_partition_ancestors(RelationGetRelid(rel));
	foreach(lc, ancestors)
	{
		Relation	a = table_open(lfirst_oid(lc), AccessShareLock);

		name = fires_always_in(a->trigdesc);
		if (name != NULL)
		{
			name = pstrdup(name);
			*where = RelationGetRelid(a);
		}
		table_close(a, AccessShareLock);
		if (name != NULL)
			break;
	}
	list_free(ancestors);
	return name;
}

/* Does rel have a trigger of that name? */
static bool
has_trigger(Relation rel, const char *name)
{
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td != NULL && i < td->numtriggers; i++)
		if (strcmp(td->triggers[i].tgname, name) == 0)
			return true;
	return false;
}

static bool
transition_names(const Trigger *t, const char *oldname, const char *newname)
{
	return ((t->tgoldtable == NULL) == (oldname == NULL)) &&
		((t->tgnewtable == NULL) == (newname == NULL)) &&
		(oldname == NULL || strcmp(t->tgoldtable, oldname) == 0) &&
		(newname == NULL || strcmp(t->tgnewtable, newname) == 0);
}

/*
 * What keeps trigger t (named adjlist_sync_replica) from being the one the
 * README sets up, AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW with
 * nothing else, as the end of a sentence; NULL if nothing.  Each other form
 * misses changes (an event left out, UPDATE OF a column list, a WHEN
 * condition, a statement trigger, which an apply worker never fires) or
 * applies them at another time (BEFORE, before the row is there; a
 * deferred constraint trigger).  Only that form fires on every change that
 * the statement triggers do not see, when it is made.
 */
static const char *
replica_trigger_fault(const Trigger *t)
{
	int16		type = t->tgtype;

	if (!TRIGGER_FOR_ROW(type))
		return "is a statement trigger";
	if (TRIGGER_FOR_BEFORE(type) || TRIGGER_FOR_INSTEAD(type))
		return "fires before the change";
	if (!TRIGGER_FOR_INSERT(type))
		return "does not fire on INSERT";
	if (!TRIGGER_FOR_UPDATE(type))
		return "does not fire on UPDATE";
	if (!TRIGGER_FOR_DELETE(type))
		return "does not fire on DELETE";
	if (t->tgnattr > 0)
		return "fires only on an UPDATE OF some columns";
	if (t->tgqual != NULL)
		return "has a WHEN condition";
	if (t->tgoldtable != NULL || t->tgnewtable != NULL)
		return "has a REFERENCING clause";
	if (OidIsValid(t->tgconstraint))
		return "is a constraint trigger";
	if (t->tgnargs > 0)
		return "has arguments";
	return NULL;
}

/*
 * The table that trigger t of rel was cloned from (PostgreSQL clones a
 * partitioned table's row triggers to its partitions, which cannot drop
 * them), where it is to be dropped and made again; rel if t is no clone.
 */
static Oid
replica_trigger_home(Relation rel, const Trigger *t)
{
	Oid			home = RelationGetRelid(rel);
	List	   *ancestors;
	ListCell   *lc;

	if (!t->tgisclone || !rel->rd_rel->relispartition)
		return home;
	ancestors = get_partition_ancestors(home);
	foreach(lc, ancestors)
	{
		Relation	a = table_open(lfirst_oid(lc), AccessShareLock);
		TriggerDesc *td = a->trigdesc;
		bool		clone = true;

		for (int i = 0; td != NULL && i < td->numtriggers; i++)
			if (strcmp(td->triggers[i].tgname, t->tgname) == 0)
			{
				home = RelationGetRelid(a);
				clone = td->triggers[i].tgisclone;
			}
		table_close(a, NoLock);
		if (!clone)
			break;
	}
	list_free(ancestors);
	return home;
}

/*
 * adjlist_sync_replica t on rel is not in the README's form: refused, with
 * the statements that make it so (made: by the CREATE TRIGGER that the
 * error undoes).
 */
static void
refuse_replica_form(Relation rel, const Trigger *t, const char *fault, bool made)
{
	const char *home = adjlist_qualified_name(replica_trigger_home(rel, t));
	char	   *create = psprintf("CREATE TRIGGER %s AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION %s.adjlist_sync_trigger(); ALTER TABLE %s ENABLE REPLICA TRIGGER %s",
								  t->tgname, home, adjlist_catalog()->nspname, home, t->tgname);

	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("trigger \"%s\" on table \"%s\" is not in the form adjlist supports",
					t->tgname, RelationGetRelationName(rel)),
			 errdetail("The trigger %s. It must be AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, with no column list, WHEN condition, REFERENCING clause, arguments or constraint, or some changes would not reach the inverted indexes in step.",
					   fault),
			 made ? errhint("Create it so: %s.", create) :
			 errhint("Make it again: DROP TRIGGER %s ON %s; %s.", t->tgname, home, create)));
}

/*
 * CREATE TRIGGER adjlist_sync_replica on relid, which takes part in an
 * inverted index (the DDL's end, index_guard.c): a form that would miss
 * changes is refused at once, not only when it fires, since it never fires
 * on the changes it misses.  (One made before the index is refused when it
 * fires.)
 */
void
sync_check_replica_trigger(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td != NULL && i < td->numtriggers; i++)
	{
		const Trigger *t = &td->triggers[i];
		const char *fault;
		char	   *func;

		if (strcmp(t->tgname, "adjlist_sync_replica") != 0 ||
			get_func_namespace(t->tgfoid) != adjlist_catalog()->namespace ||
			(func = get_func_name(t->tgfoid)) == NULL ||
			strcmp(func, "adjlist_sync_trigger") != 0)
			continue;
		if ((fault = replica_trigger_fault(t)) != NULL)
			refuse_replica_form(rel, t, fault, true);
	}
	table_close(rel, NoLock);
}

/*
 * adjlist_sync_replica, the row trigger the owner of a subscriber's table
 * adds (see the header): refused unless it is in the README's form, enabled
 * REPLICA, and alone in firing in replica mode.
 */
static void
check_replica_trigger(TriggerData *td)
{
	const Trigger *t = td->tg_trigger;
	const char *rel = RelationGetRelationName(td->tg_relation);
	const char *fault = replica_trigger_fault(t);
	const char *other;
	Oid			where;

	if (fault != NULL)
		refuse_replica_form(td->tg_relation, t, fault, false);
	if (t->tgenabled != TRIGGER_FIRES_ON_REPLICA)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on table \"%s\" must fire in replica mode only",
						t->tgname, rel),
				 errdetail("adjlist's own triggers follow the changes made outside replica mode; this trigger would apply them a second time."),
				 errhint("ALTER TABLE %s ENABLE REPLICA TRIGGER %s.",
						 adjlist_qualified_name(RelationGetRelid(td->tg_relation)), t->tgname)));
	if ((other = sync_fires_always(td->tg_relation, &where)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on table \"%s\" and trigger \"%s\" on table \"%s\" both fire in replica mode",
						t->tgname, rel, other, get_rel_name(where)),
				 errdetail("Both would apply the same change to the inverted indexes."),
				 errhint("ALTER TABLE %s ENABLE TRIGGER %s: in replica mode, %s applies the changes.",
						 adjlist_qualified_name(where), other, t->tgname)));
}

/*
 * Is this one of the triggers adjlist installs (install_triggers(), or
 * those of 0.1 and 0.2 before the update), in the form it installs it, or
 * the one a table's owner may add for logical replication?  Another
 * trigger a user attached to adjlist_sync_trigger() would apply a change
 * twice, or read the wrong transition table: refused.
 *
 * adjlist_sync_replica is that one: AFTER INSERT OR UPDATE OR DELETE FOR
 * EACH ROW, enabled REPLICA, created by the owner of a subscriber's table.
 * A logical replication apply worker runs with session_replication_role =
 * replica and fires row triggers only, never statement triggers (and the
 * statement triggers are ENABLE ORIGIN anyway), so it is the only way the
 * subscriber's own index can follow replicated rows.  Enabled REPLICA, it
 * fires exactly where adjlist's statement triggers do not; in any other
 * form (check_replica_trigger()) it would miss changes or apply one twice:
 * refused, with the fix in the hint.
 */
static void
check_trigger(TriggerData *td)
{
	const Trigger *t = td->tg_trigger;
	TriggerEvent ev = td->tg_event;
	const char *name = t->tgname;
	bool		row = TRIGGER_FIRED_FOR_ROW(ev);
	bool		ok;

	if (strcmp(name, "adjlist_sync") == 0)
		ok = row && TRIGGER_FIRED_AFTER(ev) &&
			(adjlist_catalog()->legacy || !has_trigger(td->tg_relation, "adjlist_sync_ins"));
	else if (strcmp(name, "adjlist_sync_ins") == 0 || strcmp(name, "adjlist_sync_insert") == 0)
		ok = !row && TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_INSERT(ev) &&
			transition_names(t, NULL, "adjlist_new");
	else if (strcmp(name, "adjlist_sync_upd") == 0)
		ok = !row && TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_UPDATE(ev) &&
			transition_names(t, "adjlist_old", "adjlist_new");
	else if (strcmp(name, "adjlist_sync_del") == 0)
		ok = !row && TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_DELETE(ev) &&
			transition_names(t, "adjlist_old", NULL);
	else if (strcmp(name, "adjlist_sync_before_trunc") == 0)
		ok = TRIGGER_FIRED_BEFORE(ev) && TRIGGER_FIRED_BY_TRUNCATE(ev);
	else if (strcmp(name, "adjlist_sync_trunc") == 0 || strcmp(name, "adjlist_sync_truncate") == 0)
		ok = TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_TRUNCATE(ev);
	else if (strcmp(name, "adjlist_sync_route") == 0)
		ok = row && TRIGGER_FIRED_BEFORE(ev) && TRIGGER_FIRED_BY_INSERT(ev);
	else if (strcmp(name, "adjlist_sync_replica") == 0)
	{
		check_replica_trigger(td);
		ok = true;
	}
	else
		ok = false;
	if (!ok)
		adjlist_citus_shard_check(RelationGetRelid(td->tg_relation));
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on table \"%s\" is not one adjlist installed",
						name, RelationGetRelationName(td->tg_relation)),
				 errdetail("adjlist_sync_trigger() keeps inverted indexes only from the triggers create_inverted_index() installs."),
				 errhint("Drop the trigger.")));
}

/*
 * Is this session running a dump's script (psql) or pg_restore?  Every one
 * of them starts with SET check_function_bodies = false and an empty
 * search_path, which an application hardly ever has both of.
 */
static bool
restoring_dump(void)
{
	return !check_function_bodies &&
		namespace_search_path != NULL && namespace_search_path[0] == '\0';
}

/*
 * The unregistered index table of base, if one is found: the comment that
 * create_inverted_index() gives an index table names its base table
 * (index_create.c), and pg_dump -t and -n keep it.
 */
static Oid
unregistered_index_of(Oid base)
{
	Oid			argtypes[1] = {TEXTOID};
	Datum		args[1];
	Oid			found = InvalidOid;
	bool		isnull;

	args[0] = CStringGetTextDatum(psprintf("adjlist inverted index of %s (",
										   adjlist_qualified_name(base)));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT d.objoid FROM pg_catalog.pg_description d "
							  "WHERE d.classoid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
							  "AND d.objsubid OPERATOR(pg_catalog.=) 0 "
							  "AND pg_catalog.starts_with(d.description, $1) "
							  "ORDER BY d.objoid LIMIT 1",
							  1, argtypes, args, NULL, true, 1) == SPI_OK_SELECT &&
		SPI_processed == 1)
		found = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
											   1, &isnull));
	SPI_finish();
	return found;
}

/*
 * A write to a table with adjlist's sync triggers and no registered index
 * (see the header): refused, unless adjlist itself or a restore writes.
 */
static void
refuse_unregistered(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	Oid			base = relid;
	Oid			idx;

	if (index_writes_allowed() || restoring_dump() || OidIsValid(registry_base_of(relid)))
		return;
	if (rel->rd_rel->relispartition)
		base = llast_oid(get_partition_ancestors(relid));
	idx = unregistered_index_of(base);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 OidIsValid(idx) ?
			 errmsg("inverted index \"%s\" of table \"%s\" is not registered",
					get_rel_name(idx), get_rel_name(base)) :
			 errmsg("table \"%s\" has adjlist's triggers but no registered inverted index",
					get_rel_name(base)),
			 errdetail("A write to \"%s\" would not reach the index. Its registration is a row of adjlist_inverted_indexes, which pg_dump -t and -n leave out.",
					   RelationGetRelationName(rel)),
			 OidIsValid(idx) ?
			 errhint("Register the index again with create_inverted_index(%s, index_name => %s, existing => true, ...) and the options it was made with, or drop the index table and the adjlist_sync_* triggers of \"%s\"; see \"Dump and restore\" in the README.",
					 quote_literal_cstr(adjlist_qualified_name(base)),
					 quote_literal_cstr(get_rel_name(idx)), get_rel_name(base)) :
			 errhint("Create the index with create_inverted_index(%s, ...), or drop the adjlist_sync_* triggers of \"%s\"; see \"Dump and restore\" in the README.",
					 quote_literal_cstr(adjlist_qualified_name(base)), get_rel_name(base))));
}

Datum
adjlist_sync_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	TriggerEvent ev;
	Relation	rel;
	SyncState	st;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function adjlist_sync_trigger can only be called as a trigger")));
	ev = td->tg_event;
	rel = td->tg_relation;
	check_trigger(td);

	/* adjlist_sync_route: present for what it prevents (index_admin.c) */
	if (TRIGGER_FIRED_BEFORE(ev) && TRIGGER_FIRED_FOR_ROW(ev))
		return PointerGetDatum(td->tg_trigtuple);
	refuse_unregistered(rel);

	if (TRIGGER_FIRED_BY_TRUNCATE(ev))
	{
		if (TRIGGER_FIRED_BEFORE(ev))
			truncate_before(rel);
		else
			truncate_after(rel);
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_AFTER(ev))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("the adjlist sync trigger must fire AFTER the change")));

	sync_begin(&st, rel, false);
	if (st.nindexes > 0)
	{
		if (TRIGGER_FIRED_FOR_ROW(ev))
		{
			MemoryContext old = MemoryContextSwitchTo(st.rowcxt);

			apply_row(&st, td);
			MemoryContextSwitchTo(old);
		}
		else if (TRIGGER_FIRED_BY_INSERT(ev) && td->tg_newtable != NULL)
			apply_inserts(&st, td->tg_newtable, RelationGetDescr(rel));
		else if (TRIGGER_FIRED_BY_DELETE(ev) && td->tg_oldtable != NULL)
			apply_deletes(&st, td->tg_oldtable, RelationGetDescr(rel));
		else if (TRIGGER_FIRED_BY_UPDATE(ev) && td->tg_oldtable != NULL &&
				 td->tg_newtable != NULL)
			apply_updates(&st, td->tg_oldtable, td->tg_newtable, RelationGetDescr(rel));
		else
			ereport(ERROR,
					(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
					 errmsg("the adjlist sync trigger must fire for each row, or for each statement with transition tables")));
	}
	sync_end(&st);
	return PointerGetDatum(NULL);
}

/*
 * BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE FOR EACH STATEMENT on an
 * index or counter table (and each of its partitions): only adjlist writes
 * them.
 */
Datum
adjlist_index_guard(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			relid;
	Oid			base;
	const char *basename;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function adjlist_index_guard can only be called as a trigger")));
	if (index_writes_allowed())
		return PointerGetDatum(NULL);
	relid = RelationGetRelid(td->tg_relation);
	base = registry_base_of_index(relid);
	if (!OidIsValid(base))
		return PointerGetDatum(NULL);	/* not registered (yet): not an index */
	basename = get_rel_name(base);
	/* (a registration left behind by DDL made with the event triggers off) */
	if (basename == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is registered as an inverted index of a table that no longer exists",
						RelationGetRelationName(td->tg_relation)),
				 errdetail("Its registration in adjlist_inverted_indexes names table OID %u.", base),
				 errhint("Drop the table, which removes the registration too.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table \"%s\" is kept by adjlist from table \"%s\"",
					RelationGetRelationName(td->tg_relation), basename),
			 errdetail("Its rows are derived from the rows of \"%s\"; a direct write would put it out of step.",
					   basename),
			 errhint("Write to table \"%s\"; rebuild_inverted_index() repairs an index. A data-only restore may skip this table: the base table's rows are indexed as they are restored.",
					 basename)));
	return PointerGetDatum(NULL);
}
