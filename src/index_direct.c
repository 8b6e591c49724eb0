/*-------------------------------------------------------------------------
 *
 * index_direct.c
 *	  Writing an inverted index table without SQL: heap_insert() and
 *	  index_insert(), or an index probe and simple_heap_delete().
 *
 * Going through SPI costs a plan execution per index write (executor start
 * and end, a ModifyTable node, an ON CONFLICT probe), several times what
 * the write itself costs.  For the common case, a plain heap table that
 * adjlist created and nobody decorated, the trigger writes the heap and
 * its indexes directly, the way core's catalog code does: the index then
 * costs about what a second btree on the base table costs.
 *
 * The direct path is used only when it provably does what the SQL would:
 * a plain (not partitioned, not foreign) table with exactly the index's
 * columns, no triggers, no rules, no CHECK constraints, no generated
 * columns, no NOT NULL on projected columns (keys are never NULL), no
 * forced row-level security, and only immediate indexes on plain columns,
 * one of them unique on exactly the key.  Everything else
 * takes the SPI path.  Decisions are cached with the trigger's plans and
 * remade after any relcache invalidation of the index table, so adding a
 * trigger or a CHECK constraint to it switches the path at once.
 *
 * Semantics match a plain INSERT and DELETE run by the table's owner: a
 * duplicate key raises the unique violation of the index's primary key
 * (the index can only hold such a row if someone wrote it behind the
 * trigger's back), and the statistics, WAL and logical decoding see
 * ordinary heap changes.  The row to delete is found with SnapshotSelf:
 * every committed row and this transaction's own, which is what the base
 * row lock the caller holds makes safe.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "executor/tuptable.h"
#include "nodes/execnodes.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "adjlist.h"

/*
 * The unique index of relid on exactly the given key columns (in any
 * order), or InvalidOid.  With keypos, also where key column i stands in
 * that index (1-based), allocated in the current memory context.  Both the
 * choice of SQL (ON CONFLICT needs such an index) and the direct path's
 * deletes (which probe it) ask this.
 */
Oid
index_key_index(Oid relid, char **colnames, int nkeys, AttrNumber **keypos)
{
	Relation	rel = table_open(relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			result = InvalidOid;
	AttrNumber *pos = palloc0(sizeof(AttrNumber) * nkeys);

	foreach(lc, indexes)
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index idx;
		int			matched = 0;

		if (!HeapTupleIsValid(tp))
			continue;
		idx = (Form_pg_index) GETSTRUCT(tp);
		if (idx->indisunique && idx->indnkeyatts == nkeys)
		{
			for (int i = 0; i < nkeys; i++)
			{
				AttrNumber	a = get_attnum(relid, colnames[i]);

				for (int j = 0; j < nkeys; j++)
					if (idx->indkey.values[j] == a)
					{
						pos[i] = j + 1;
						matched++;
					}
			}
		}
		ReleaseSysCache(tp);
		if (matched == nkeys)
		{
			result = lfirst_oid(lc);
			break;
		}
	}
	list_free(indexes);
	table_close(rel, AccessShareLock);
	if (keypos != NULL && OidIsValid(result))
		*keypos = pos;
	else
		pfree(pos);
	return result;
}

/*
 * Decide whether the index table relid can be written directly, and fill d
 * (allocated in the current memory context) if so.  colnames are the
 * index's columns in registry order, the first nkeys its key.
 */
bool
direct_write_prepare(Oid relid, char **colnames, int ncols, int nkeys, DirectInfo *d)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(rel);
	List	   *indexes;
	ListCell   *lc;
	int			live = 0;
	bool		ok = true;

	memset(d, 0, sizeof(*d));
	if (rel->rd_rel->relkind != RELKIND_RELATION ||
		rel->rd_rel->relhastriggers || rel->rd_rel->relhasrules ||
		rel->rd_rel->relforcerowsecurity ||
		(desc->constr != NULL &&
		 (desc->constr->num_check > 0 || desc->constr->has_generated_stored)))
		ok = false;

	for (int i = 0; ok && i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped)
			live++;
	if (live != ncols)
		ok = false;

	if (ok)
	{
		d->relattnos = palloc(sizeof(AttrNumber) * ncols);
		for (int i = 0; i < ncols; i++)
		{
			d->relattnos[i] = get_attnum(relid, colnames[i]);
			if (d->relattnos[i] == InvalidAttrNumber)
				ok = false;
			/* a NOT NULL projected column: let the executor check it */
			else if (i >= nkeys && TupleDescAttr(desc, d->relattnos[i] - 1)->attnotnull)
				ok = false;
		}
	}

	indexes = ok ? RelationGetIndexList(rel) : NIL;
	foreach(lc, indexes)
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index idx;

		if (!HeapTupleIsValid(tp))
		{
			ok = false;
			break;
		}
		idx = (Form_pg_index) GETSTRUCT(tp);
		if (!idx->indimmediate ||
			!heap_attisnull(tp, Anum_pg_index_indexprs, NULL) ||
			!heap_attisnull(tp, Anum_pg_index_indpred, NULL))
			ok = false;
		ReleaseSysCache(tp);
	}
	if (ok)
		d->keyindex = index_key_index(relid, colnames, nkeys, &d->keypos);
	if (!OidIsValid(d->keyindex))
		ok = false;

	/* the indexes to maintain, with their IndexInfo, built once */
	if (ok)
	{
		int			n = 0;

		d->indexoids = palloc(sizeof(Oid) * Max(list_length(indexes), 1));
		d->indexinfos = palloc(sizeof(IndexInfo *) * Max(list_length(indexes), 1));
		foreach(lc, indexes)
		{
			Relation	index = index_open(lfirst_oid(lc), AccessShareLock);

			d->indexoids[n] = lfirst_oid(lc);
			d->indexinfos[n] = BuildIndexInfo(index);
			index_close(index, AccessShareLock);
			n++;
		}
		d->nindexes = n;
	}
	list_free(indexes);

	if (ok)
	{
		d->eqprocs = palloc(sizeof(RegProcedure) * nkeys);
		for (int i = 0; i < nkeys; i++)
		{
			Oid			type = TupleDescAttr(desc, d->relattnos[i] - 1)->atttypid;
			TypeCacheEntry *tce = lookup_type_cache(type, TYPECACHE_EQ_OPR);

			if (!OidIsValid(tce->eq_opr))
			{
				ok = false;
				break;
			}
			d->eqprocs[i] = get_opcode(tce->eq_opr);
		}
	}
	table_close(rel, AccessShareLock);
	d->ok = ok;
	d->ncols = ncols;
	d->nkeys = nkeys;
	return ok;
}

/* Insert the index entries of one heap tuple (values by attribute). */
static void
insert_index_entries(Relation rel, Relation *indexes, IndexInfo **infos, int nindexes,
					 Datum *values, bool *nulls, ItemPointer tid)
{
	for (int n = 0; n < nindexes; n++)
	{
		IndexInfo  *info = infos[n];
		Datum		ivalues[INDEX_MAX_KEYS];
		bool		inulls[INDEX_MAX_KEYS];

		if (!info->ii_ReadyForInserts)
			continue;
		for (int k = 0; k < info->ii_NumIndexAttrs; k++)
		{
			AttrNumber	a = info->ii_IndexAttrNumbers[k];

			ivalues[k] = values[a - 1];
			inulls[k] = nulls[a - 1];
		}
		index_insert(indexes[n], ivalues, inulls, tid, rel,
					 indexes[n]->rd_index->indisunique ? UNIQUE_CHECK_YES : UNIQUE_CHECK_NO,
					 false, info);
	}
}

/*
 * Open the index table and its indexes for a run of inserts (one row, or a
 * whole statement's transition table).  Rows are buffered and written in
 * batches with heap_multi_insert(), as COPY does: one WAL record and one
 * buffer lock per page instead of per row.
 */
DirectWriter *
direct_begin(const DirectInfo *d, Oid relid)
{
	DirectWriter *w = palloc0(sizeof(DirectWriter));
	TupleDesc	desc;
	int			n;

	w->d = d;
	w->rel = table_open(relid, RowExclusiveLock);
	desc = RelationGetDescr(w->rel);
	w->natts = desc->natts;
	w->indexes = palloc(sizeof(Relation) * Max(d->nindexes, 1));
	w->infos = d->indexinfos;
	for (n = 0; n < d->nindexes; n++)
		w->indexes[n] = index_open(d->indexoids[n], RowExclusiveLock);
	w->nindexes = d->nindexes;
	w->cid = GetCurrentCommandId(true);
	w->slots = palloc0(sizeof(TupleTableSlot *) * DIRECT_BATCH);
	w->batchcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist direct batch",
										ALLOCSET_DEFAULT_SIZES);
	return w;
}

/* Write the buffered rows: the heap in one call, then every index. */
static void
direct_flush(DirectWriter *w)
{
	if (w->nbuffered == 0)
		return;
	if (w->bistate == NULL && w->nbuffered == DIRECT_BATCH)
	{
		/* a bulk load: keep the target page pinned across batches */
		MemoryContext oldcxt = MemoryContextSwitchTo(GetMemoryChunkContext(w));

		w->bistate = GetBulkInsertState();
		MemoryContextSwitchTo(oldcxt);
	}
	heap_multi_insert(w->rel, w->slots, w->nbuffered, w->cid, 0, w->bistate);

	for (int t = 0; t < w->nbuffered; t++)
	{
		TupleTableSlot *slot = w->slots[t];

		insert_index_entries(w->rel, w->indexes, w->infos, w->nindexes,
							 slot->tts_values, slot->tts_isnull, &slot->tts_tid);
		ExecClearTuple(slot);
	}
	w->nbuffered = 0;
	MemoryContextReset(w->batchcxt);
}

/* Add one index row (values/nulls in registry column order). */
void
direct_insert(DirectWriter *w, Datum *values, const char *nulls)
{
	const DirectInfo *d = w->d;
	TupleTableSlot *slot;
	MemoryContext oldcxt;

	if (w->slots[w->nbuffered] == NULL)
	{
		/* slots live as long as the writer, whatever the caller's context */
		oldcxt = MemoryContextSwitchTo(GetMemoryChunkContext(w));
		w->slots[w->nbuffered] = MakeSingleTupleTableSlot(RelationGetDescr(w->rel),
														   &TTSOpsVirtual);
		MemoryContextSwitchTo(oldcxt);
	}
	slot = w->slots[w->nbuffered];
	ExecClearTuple(slot);
	for (int i = 0; i < w->natts; i++)
	{
		slot->tts_values[i] = (Datum) 0;
		slot->tts_isnull[i] = true;
	}
	/* copy the values: the caller's memory may not live until the flush */
	oldcxt = MemoryContextSwitchTo(w->batchcxt);
	for (int i = 0; i < d->ncols; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(w->rel), d->relattnos[i] - 1);

		slot->tts_isnull[d->relattnos[i] - 1] = (nulls[i] == 'n');
		if (nulls[i] != 'n')
			slot->tts_values[d->relattnos[i] - 1] =
				datumCopy(values[i], att->attbyval, att->attlen);
	}
	MemoryContextSwitchTo(oldcxt);
	ExecStoreVirtualTuple(slot);
	if (++w->nbuffered == DIRECT_BATCH)
		direct_flush(w);
}

void
direct_end(DirectWriter *w)
{
	direct_flush(w);
	for (int t = 0; t < DIRECT_BATCH && w->slots[t] != NULL; t++)
		ExecDropSingleTupleTableSlot(w->slots[t]);
	if (w->bistate != NULL)
		FreeBulkInsertState(w->bistate);
	MemoryContextDelete(w->batchcxt);
	for (int n = 0; n < w->nindexes; n++)
		index_close(w->indexes[n], RowExclusiveLock);
	table_close(w->rel, RowExclusiveLock);
}

/*
 * Insert one index row, on its own (a row trigger): no batch, no copies,
 * the tuple straight into the heap and its indexes.
 */
void
direct_insert_row(const DirectInfo *d, Oid relid, Datum *values, const char *nulls)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	TupleDesc	desc = RelationGetDescr(rel);
	Datum		relvalues[64];
	bool		relnulls[lengthof(relvalues)];
	Datum	   *rv = relvalues;
	bool	   *rn = relnulls;
	HeapTuple	tup;
	Relation   *indexes;

	if (desc->natts > lengthof(relvalues))
	{
		rv = palloc(sizeof(Datum) * desc->natts);
		rn = palloc(sizeof(bool) * desc->natts);
	}
	for (int i = 0; i < desc->natts; i++)
	{
		rv[i] = (Datum) 0;
		rn[i] = true;
	}
	for (int i = 0; i < d->ncols; i++)
	{
		rv[d->relattnos[i] - 1] = values[i];
		rn[d->relattnos[i] - 1] = (nulls[i] == 'n');
	}
	tup = heap_form_tuple(desc, rv, rn);
	heap_insert(rel, tup, GetCurrentCommandId(true), 0, NULL);
	indexes = palloc(sizeof(Relation) * Max(d->nindexes, 1));
	for (int n = 0; n < d->nindexes; n++)
		indexes[n] = index_open(d->indexoids[n], RowExclusiveLock);
	insert_index_entries(rel, indexes, d->indexinfos, d->nindexes, rv, rn, &tup->t_self);
	for (int n = 0; n < d->nindexes; n++)
		index_close(indexes[n], RowExclusiveLock);
	heap_freetuple(tup);
	table_close(rel, RowExclusiveLock);
}

/* Delete the index row with the given key; false if there is none. */
bool
direct_delete(const DirectInfo *d, Oid relid, Datum *keyvalues)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	Relation	index = index_open(d->keyindex, RowExclusiveLock);
	ScanKeyData keys[INDEX_MAX_KEYS];
	IndexScanDesc scan;
	TupleTableSlot *slot;
	bool		found = false;

	for (int i = 0; i < d->nkeys; i++)
		ScanKeyInit(&keys[d->keypos[i] - 1], d->keypos[i], BTEqualStrategyNumber,
					d->eqprocs[i], keyvalues[i]);
	scan = index_beginscan(rel, index, SnapshotSelf, d->nkeys, 0);
	index_rescan(scan, keys, d->nkeys, NULL, 0);
	slot = table_slot_create(rel, NULL);
	if (index_getnext_slot(scan, ForwardScanDirection, slot))
	{
		simple_heap_delete(rel, &slot->tts_tid);
		found = true;
	}
	ExecDropSingleTupleTableSlot(slot);
	index_endscan(scan);
	index_close(index, RowExclusiveLock);
	table_close(rel, RowExclusiveLock);
	return found;
}
