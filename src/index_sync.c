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
 * TRUNCATE, which fires statement triggers without transition tables,
 * and writes that meet one: index_sync_truncate.c.
 *
 * The writes run as the owner of the index tables, which is the owner of
 * the base table (registry.c checks it), as core's foreign-key triggers
 * run as the owner of the table they write: a role that may write the base
 * table needs no privilege on the index table.
 *
 * Every index of the table is kept here, whatever its mode: mode 'api'
 * matters only where triggers cannot run (a table Citus distributes), and
 * there the write API writes the index rows itself (write_api.c).
 *
 * What a call sets up from the relation alone (its indexes, their columns,
 * whether their writers need SPI) is kept per relation and backend by
 * sync_setup.c, which sync_begin() asks first.  It locks the index tables
 * before the registry entry is trusted; if an invalidation arrives while
 * they are being locked, the lookup is repeated.
 *
 * Which triggers may call adjlist_sync_trigger(), in which form (the
 * row trigger a logical replication subscriber adds among them), what a
 * trigger does on a table with no registered index, and the guard that
 * keeps everyone else from writing an index table: index_sync_check.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/nodeModifyTable.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
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
#include "index_sync_check.h"
#include "index_sync_int.h"
#include "index_sync_leaving.h"
#include "index_write.h"
#include "plan_cache.h"
#include "registry.h"
#include "sync_setup.h"

PG_FUNCTION_INFO_V1(adjlist_sync_trigger);

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
 * transaction by the current statement of the client (one message of the
 * protocol: its statement_timestamp()), reset when either changes: every
 * trigger of a statement, and of every statement it runs, fires before
 * that message is done, after which the index is exact again (a rolled
 * back subtransaction takes the base rows and the index rows it wrote
 * alike).  False positives cost a lookup, never a wrong index; and the
 * filter never forgets a key within a message, where it matters.
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
 * message: a later trigger does not put an index row of such a key
 * from its transition table, which may be out of date, but looks the base
 * table up by its key and puts what the table has.  Counters follow the
 * statements' events, which are right whatever the order.
 *
 * An in-place rewrite (a change of projected columns only) trusts the index
 * row it finds only when neither filter has its key: a user's trigger that
 * deleted the row and inserted its old version again leaves an index row
 * that looks like the outer statement's old row but is newer than its
 * transition tables.  Otherwise the row is removed and the base table
 * looked up, as above.
 *
 * A multiset (a deferrable key: index_write.c) follows the same rules,
 * with two differences.  A put meets a row of its key that the statement
 * did not remove only out of step (or under a deferred check): it is not
 * appended next to it, which would raise a unique violation the base table
 * does not raise, but looked up.  And a look-up deletes every index row of
 * the base key and puts back every base row of it, so that the index holds
 * exactly as many rows of the key as the table does.
 */

/*
 * A filter starts small (most statements put a few rows) and grows 8x
 * at a time, up to KEY_FILTER_MAX_BITS, when it holds more than one key per
 * 8 bits.  Sizes are powers of two and a key's bits are its hashes modulo
 * the size, so growing sets, for each bit b of the old filter, every bit of
 * the new one congruent to b: every key added stays "maybe" (no false
 * negative), which is all the filter promises.  Small means 128 bytes: a
 * filter is made afresh for every statement that puts a row, and zeroing
 * the 8 kB it started with cost more than the rest of the filter's work
 * in a single-row INSERT.
 */
#define KEY_FILTER_MIN_BITS (1 << 10)	/* 128 bytes */
#define KEY_FILTER_MAX_BITS (1 << 20)	/* 128 kB */

typedef struct KeyFilter
{
	uint8	   *bits;
	uint32		nbits;
	uint32		nkeys;
	LocalTransactionId lxid;	/* the transaction it is of */
	TimestampTz stmt;			/* and the client's statement */
} KeyFilter;

static KeyFilter put_filter;	/* keys put in this statement */
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
	TimestampTz stmt = GetCurrentStatementStartTimestamp();

	if (f->lxid != adjlist_local_xid() || f->bits == NULL)
		f->bits = NULL;			/* (freed with its transaction's memory) */
	else if (f->stmt != stmt)
	{
		/* the same transaction's next statement: start afresh */
		pfree(f->bits);
		f->bits = NULL;
	}
	if (f->bits == NULL)
	{
		if (!create)
			return NULL;
		f->nbits = KEY_FILTER_MIN_BITS;
		f->nkeys = 0;
		f->bits = MemoryContextAllocZero(TopTransactionContext, f->nbits / 8);
		f->lxid = adjlist_local_xid();
		f->stmt = stmt;
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
 *
 * What follows from the relation alone (its indexes, their columns in it,
 * how their tables are written) is kept per relation (sync_setup.c); what
 * a call adds is its own: scratch rows, writers, predicates, the role.
 */

void
sync_begin(SyncState *st, Relation rel, bool all_modes)
{
	const SyncSetup *su;

	all_modes = all_modes || !adjlist_catalog()->legacy;
	su = sync_setup_get(rel, all_modes);

	memset(st, 0, sizeof(*st));
	st->ti = su->ti;
	st->spi = su->spi;
	st->indexes = palloc0(sizeof(SyncIndex) * Max(su->nindexes, 1));
	for (int i = 0; i < su->nindexes; i++)
	{
		const IndexDef *ix = su->ix[i];
		SyncIndex  *si = &st->indexes[st->nindexes++];
		int			nbase = INDEX_BASE_LEN(ix);
		char	   *scratch;

		si->ix = ix;
		si->cxt = CurrentMemoryContext;
		si->attnos = su->attnos[i];
		/* the scratch rows in one piece: base, basenull, row, rownull x 2 */
		scratch = palloc(2 * (MAXALIGN(sizeof(Datum) * nbase) + MAXALIGN(sizeof(bool) * nbase) +
							  MAXALIGN(sizeof(Datum) * ix->ncols) +
							  MAXALIGN(sizeof(bool) * ix->ncols)));
		for (int k = 0; k < 2; k++)
		{
			si->base[k] = (Datum *) scratch;
			scratch += MAXALIGN(sizeof(Datum) * nbase);
			si->basenull[k] = (bool *) scratch;
			scratch += MAXALIGN(sizeof(bool) * nbase);
			si->row[k] = (Datum *) scratch;
			scratch += MAXALIGN(sizeof(Datum) * ix->ncols);
			si->rownull[k] = (bool *) scratch;
			scratch += MAXALIGN(sizeof(bool) * ix->ncols);
		}
	}
	if (st->nindexes == 0)
		return;
	/* in the call's context, not in SPI's, which SPI_finish() deletes */
	st->rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist sync row",
									   ALLOCSET_DEFAULT_SIZES);
	if (st->spi && SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/*
	 * As the owner.  search_path pinned whenever the caller is another
	 * role: writing a row may run code that looks names up where
	 * writer_info.c sees none (a range type's subtype_diff in a GiST index
	 * of the index table, a type's comparison function), and none of the
	 * caller's objects may run with the owner's rights.  For the owner
	 * itself, only where adjlist's own work looks a name up: SQL, a
	 * predicate, code of the index or counter table, counters written
	 * through SQL (recheck_removed() pins it before its SQL).
	 */
	if (st->spi || su->pin_path || GetUserId() != st->ti->owner)
		adjlist_become(st->ti->owner, &st->role);
	else
		adjlist_become_role(st->ti->owner, &st->role);
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

void
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

/*
 * Remove index row k.  In a multiset (a deferrable key) the row removed is
 * one equal to the whole row, and the same rules apply: what the recheck
 * of a multiset puts back is every base row of the key (recheck_removed()).
 */
void
sync_remove_row(SyncIndex *si, int k, bool counted)
{
	IndexWriter *w = writer_of(si, false);
	bool		found = index_writer_remove(w, si->row[k], si->rownull[k]);

	if (counted)
		count(si, k, -1);
	if (!found)
		found_missing(si, k);
	else if (filter_maybe(&put_filter, si, k))
		recheck_later(si, k);
}

void
sync_put_row(SyncIndex *si, int k, bool counted, bool bulk)
{
	IndexWriter *w = writer_of(si, bulk);

	if (counted)
		count(si, k, +1);
	if (filter_maybe(&missing_filter, si, k))
	{
		/* its transition table may be out of date: what the table has */
		recheck_later(si, k);
		return;
	}
	if (!index_writer_multiset(w))
		index_writer_put(w, si->row[k], si->rownull[k]);
	else if (!index_writer_put_new(w, si->row[k], si->rownull[k]))
	{
		/*
		 * A row of the key is there, which this statement did not remove:
		 * put there out of step (a trigger of a statement whose own trigger
		 * is still to come), or the base table holds the key twice (its
		 * check deferred).  Either way, what the table has.
		 */
		recheck_later(si, k);
		return;
	}
	filter_add(&put_filter, si, k);
}

/*
 * An index row whose key stays and whose other columns change (not in a
 * multiset): rewritten in place if the index holds its old version.  Not
 * when a trigger of this transaction may have put the key, or found it
 * missing: the index row there may be newer than this statement's
 * transition tables (a user's trigger that deleted the row and inserted
 * its old version again, with the outer statement's trigger still to come),
 * so that "its old version" proves nothing.  The row is then removed and
 * the base table looked up by its key, as for a removal.
 */
static void
rewrite_row(SyncIndex *si)
{
	IndexWriter *w = writer_of(si, false);

	if (filter_maybe(&missing_filter, si, 1) || filter_maybe(&put_filter, si, 1))
	{
		(void) index_writer_remove(w, si->row[1], si->rownull[1]);
		recheck_later(si, 1);
	}
	else if (!index_writer_rewrite(w, si->row[0], si->rownull[0], si->row[1], si->rownull[1]))
		found_missing(si, 1);
	else
		filter_add(&put_filter, si, 1);
}

/*
 * The base key columns a recheck looks rows up by, as indexes into the
 * index's columns: all of them, but in a multiset one whose index column
 * is not stored as in the base table (a write-sharded partition key): the
 * multiset's recheck deletes the index rows of a key by these columns and
 * puts back the base rows that have them, so each side must select by the
 * same values.
 */
static int
recheck_columns(const IndexDef *ix, bool multiset, int *cols, int *keypos)
{
	int			n = 0;

	for (int b = 0; b < ix->nbasekey; b++)
		for (int c = 0; c < ix->ncols; c++)
			if (strcmp(ix->colnames[c], ix->base_key[b]) == 0)
			{
				if (!(multiset && c == 0 && ix->write_shards > 0))
				{
					cols[n] = c;
					keypos[n++] = b;
				}
				break;
			}
	return n;
}

/* SELECT the index's columns of the base rows whose cols equal $1.. */
static char *
recheck_sql(SyncState *st, const IndexDef *ix, int n, const int *cols, Oid *types)
{
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfoString(&sql, "SELECT ");
	for (int c = 0; c < ix->ncols; c++)
		appendStringInfo(&sql, "%s%s", c ? ", " : "", quote_identifier(ix->colnames[c]));
	/* (and the columns of a sparse index's predicate, evaluated below) */
	appendStringInfo(&sql, "%s FROM %s WHERE true", index_predicate_select(ix),
					 adjlist_qualified_name(st->ti->baserel));
	for (int i = 0; i < n; i++)
	{
		types[i] = ix->coltypes[cols[i]];
		appendStringInfo(&sql, " AND %s %s $%d", quote_identifier(ix->colnames[cols[i]]),
						 adjlist_equality_sql(types[i]), i + 1);
	}
	return sql.data;
}

/*
 * Put back the index rows of the base rows that have the keys of rows this
 * call removed or did not find (see "Index rows put earlier in the
 * transaction"); counters are not touched: they follow the base rows'
 * events, which were right.  Outside a multiset a put replaces the row of
 * its key.  A multiset must hold as many rows of a key as the base table
 * does: every index row of the key is deleted first, and every base row of
 * it put again.
 */
static void
recheck_removed(SyncState *st, SyncIndex *si)
{
	const IndexDef *ix = si->ix;
	IndexWriter *w = writer_of(si, false);
	bool		multiset = index_writer_multiset(w);
	int		   *cols = palloc(sizeof(int) * Max(ix->nbasekey, 1));
	int		   *keypos = palloc(sizeof(int) * Max(ix->nbasekey, 1));
	int			n = recheck_columns(ix, multiset, cols, keypos);
	Oid		   *types = palloc(sizeof(Oid) * Max(n, 1));
	Datum	   *values = palloc(sizeof(Datum) * Max(n, 1));
	char	   *sql = recheck_sql(st, ix, n, cols, types);
	ListCell   *lc;
	IndexPredicateState *pred;

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
		SPITupleTable *found;
		uint64		nfound;

		for (int i = 0; i < n; i++)
			values[i] = key[keypos[i]];
		if (multiset)
			(void) index_writer_remove_all(w, n, cols, values);
		adjlist_plan_execute_latest(adjlist_plan(sql, n, types), values, NULL, SPI_OK_SELECT);
		/* (the puts below run statements of their own when through SQL) */
		found = SPI_tuptable;
		nfound = SPI_processed;
		for (uint64 r = 0; r < nfound; r++)
		{
			MemoryContext old = MemoryContextSwitchTo(st->rowcxt);

			for (int c = 0; c < ix->ncols; c++)
				si->base[1][c] = SPI_getbinval(found->vals[r], found->tupdesc,
											   c + 1, &si->basenull[1][c]);
			si->base[1][ix->ncols] = BoolGetDatum(index_predicate_check_row(pred, found->vals[r],
																			found->tupdesc,
																			ix->ncols + 1));
			si->basenull[1][ix->ncols] = false;
			if (index_row(ix, si->base[1], si->basenull[1], si->row[1], si->rownull[1],
						  &si->logical[1]))
			{
				index_writer_put(w, si->row[1], si->rownull[1]);
				filter_add(&put_filter, si, 1);
			}
			MemoryContextSwitchTo(old);
			MemoryContextReset(st->rowcxt);
		}
		SPI_freetuptable(found);
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
		sync_remove_row(si, 0, false);
		return true;
	}
	if (old_in)
		sync_remove_row(si, 0, true);
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

/*
 * The stored generated columns of the new rows of a partitioned table.
 * A row routed through it into a partition whose columns are numbered
 * otherwise (a dropped column, another order), where the partition has no
 * BEFORE ROW trigger, is put into the statement's transition table as it
 * was given, converted to the partition's layout only afterwards
 * (ExecPrepareTupleRouting() keeps the unconverted row), and the
 * partition computes its generated columns on the converted one: they
 * read null in the transition table.  So the new rows of such a table get
 * them computed again from its own expressions (immutable: a row that had
 * them gets the same values).  NULL when nothing needs it.
 */
typedef struct Generated
{
	EState	   *estate;
	ResultRelInfo *rri;
} Generated;

static Generated *
generated_begin(Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	Generated  *g;

	if (rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE ||
		desc->constr == NULL || !desc->constr->has_generated_stored)
		return NULL;
	g = palloc(sizeof(Generated));
	g->estate = CreateExecutorState();
	g->rri = makeNode(ResultRelInfo);
	InitResultRelInfo(g->rri, rel, 0, NULL, 0);
	return g;
}

static void
generated_row(Generated *g, TupleTableSlot *slot)
{
	if (g == NULL)
		return;
	ResetPerTupleExprContext(g->estate);
	/* (CMD_INSERT: every stored generated column) */
	ExecComputeStoredGenerated(g->rri, g->estate, slot, CMD_INSERT);
}

static void
generated_end(Generated *g)
{
	if (g != NULL)
		FreeExecutorState(g->estate);
}

/* Apply an INSERT statement's new rows. */
static void
apply_inserts(SyncState *st, Relation rel, Tuplestorestate *ts)
{
	TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsMinimalTuple);
	int			ptr = tuplestore_alloc_read_pointer(ts, EXEC_FLAG_REWIND);
	Generated  *gen = generated_begin(rel);

	tuplestore_select_read_pointer(ts, ptr);
	tuplestore_rescan(ts);
	while (tuplestore_gettupleslot(ts, true, false, slot))
	{
		MemoryContext old = MemoryContextSwitchTo(st->rowcxt);

		generated_row(gen, slot);

		for (int i = 0; i < st->nindexes; i++)
		{
			SyncIndex  *si = &st->indexes[i];

			if (compute(si, 1, slot))
				sync_put_row(si, 1, true, true);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(st->rowcxt);
	}
	ExecDropSingleTupleTableSlot(slot);
	generated_end(gen);
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
				sync_remove_row(si, 0, true);
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
					sync_put_row(si, 1, counted, false);
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
				sync_put_row(si, 1, counted, false);
		}
		else if (old_in)
			sync_remove_row(si, 0, true);
		else if (new_in)
			sync_put_row(si, 1, true, false);
	}
}

/* ----------------------------------------------------------------------
 * The trigger functions
 * ----------------------------------------------------------------------
 */

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
	sync_check_trigger(td);

	/* adjlist_sync_route: present for what it prevents (index_admin.c) */
	if (TRIGGER_FIRED_BEFORE(ev) && TRIGGER_FIRED_FOR_ROW(ev))
		return PointerGetDatum(td->tg_trigtuple);
	sync_refuse_unregistered(rel);

	if (TRIGGER_FIRED_BY_TRUNCATE(ev))
	{
		if (TRIGGER_FIRED_BEFORE(ev))
			sync_truncate_before(rel);
		else
			sync_truncate_after(rel);
		return PointerGetDatum(NULL);
	}
	if (!TRIGGER_FIRED_AFTER(ev))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("the adjlist sync trigger must fire AFTER the change")));

	sync_begin(&st, rel, false);
	if (st.nindexes > 0)
		sync_refuse_leaving_writes(st.ti->baserel, td);
	if (st.nindexes > 0 && !TRIGGER_FIRED_BY_DELETE(ev) && sync_truncate_pending())
	{
		if (TRIGGER_FIRED_FOR_ROW(ev))
			sync_refuse_truncating_writes(&st, rel, NULL,
									 TRIGGER_FIRED_BY_INSERT(ev) ? td->tg_trigslot : td->tg_newslot);
		else if (td->tg_newtable != NULL)
			sync_refuse_truncating_writes(&st, rel, td->tg_newtable, NULL);
	}
	if (st.nindexes > 0)
	{
		if (TRIGGER_FIRED_FOR_ROW(ev))
		{
			MemoryContext old = MemoryContextSwitchTo(st.rowcxt);

			apply_row(&st, td);
			MemoryContextSwitchTo(old);
		}
		else if (TRIGGER_FIRED_BY_INSERT(ev) && td->tg_newtable != NULL)
			apply_inserts(&st, rel, td->tg_newtable);
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
