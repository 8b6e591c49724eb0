/*-------------------------------------------------------------------------
 *
 * write_api_index.c
 *	  Index rows from the base rows a write API statement returned: where no
 *	  trigger keeps the indexes (Citus, or a local table whose indexes are
 *	  all in API mode in a database with Citus), each index's rows and counters are
 *	  written here, as the index's owner (index_write.c), from the
 *	  RETURNING rows; a replacement whose index keys moved removes the old
 *	  rows.  See write_api.c for how the files fit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "parser/parse_relation.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/snapmgr.h"

#include "adjlist.h"
#include "catalog.h"
#include "dynamo_io.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "index_write.h"
#include "plan_cache.h"
#include "registry.h"
#include "table_options.h"
#include "write_api_int.h"

/* ----------------------------------------------------------------------
 * Index maintenance from returned base rows
 * ----------------------------------------------------------------------
 */

struct ApiWriters
{
	ApiTable   *t;
	int			n;
	const IndexDef **ix;
	int		  **colmap;			/* ix's registry columns: positions in t->cols */
	IndexWriter **w;
	Counts	  **counts;
	IndexPredicateState **pred; /* of a sparse index, over the base table */
	TupleTableSlot *slot;		/* a returned row, for the predicates */
	AdjlistRoleSwitch role;
	bool		became;			/* acting as the indexes' owner */
};

/* Whether the table has any index the write API writes. */
bool
api_writers_any(ApiWriters *aw)
{
	return aw->n > 0;
}

ApiWriters *
api_writers_begin(ApiTable *t, bool bulk)
{
	ApiWriters *aw = palloc0(sizeof(ApiWriters));

	aw->t = t;
	aw->ix = palloc(sizeof(IndexDef *) * t->ti->nindexes);
	aw->colmap = palloc(sizeof(int *) * t->ti->nindexes);
	aw->w = palloc(sizeof(IndexWriter *) * t->ti->nindexes);
	aw->counts = palloc0(sizeof(Counts *) * t->ti->nindexes);
	aw->pred = palloc0(sizeof(IndexPredicateState *) * t->ti->nindexes);
	for (int i = 0; i < t->ti->nindexes; i++)
	{
		const IndexDef *ix = &t->ti->indexes[i];

		if (ix->mode != INDEX_MODE_API || !t->no_triggers)
			continue;
		if (!aw->became)
			adjlist_become(t->ti->owner, &aw->role);
		aw->became = true;
		LockRelationOid(ix->indexrel, RowExclusiveLock);
		aw->ix[aw->n] = ix;
		aw->colmap[aw->n] = palloc(sizeof(int) * ix->ncols);
		for (int c = 0; c < ix->ncols; c++)
		{
			int			k = 0;

			while (strcmp(t->cols[k], ix->colnames[c]) != 0)
				k++;
			aw->colmap[aw->n][c] = k;
		}
		aw->w[aw->n] = index_writer_begin(ix->indexrel, ix->colnames, ix->ncols, ix->nkeys,
										  WRITE_UPSERT, bulk);
		if (OidIsValid(ix->counterrel))
			aw->counts[aw->n] = counts_create(ix);
		if (ix->predicate != NULL)
		{
			Relation	rel = table_open(t->relid, AccessShareLock);

			aw->pred[aw->n] = index_predicate_begin(ix, rel);
			if (aw->slot == NULL)
				aw->slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);
			table_close(rel, NoLock);
		}
		aw->n++;
	}
	return aw;
}

void
api_writers_end(ApiWriters *aw)
{
	for (int i = 0; i < aw->n; i++)
	{
		index_writer_end(aw->w[i]);
		if (aw->pred[i])
			index_predicate_end(aw->pred[i]);
		if (aw->counts[i])
		{
			counts_flush(aw->counts[i]);
			counts_destroy(aw->counts[i]);
		}
	}
	if (aw->slot)
		ExecDropSingleTupleTableSlot(aw->slot);
	if (aw->became)
		adjlist_unbecome(&aw->role);
}

/*
 * The values of t->cols in row r of a result whose columns first ..
 * first + t->ncols - 1 are t->returning.
 */
void
api_row(ApiTable *t, SPITupleTable *tt, uint64 r, int first, Datum *vals, bool *nulls)
{
	for (int k = 0; k < t->ncols; k++)
		vals[k] = SPI_getbinval(tt->vals[r], tt->tupdesc, first + k, &nulls[k]);
}

/*
 * The row of the i-th index for a base row (values of t->cols), as
 * index_row() makes it; false when the base row is not indexed.  A row
 * being added keeps the key limits (index_row_check_base()); one being
 * removed is not checked (it may be older than the limits).
 */
static bool
api_index_row(ApiWriters *aw, int i, Datum *vals, bool *nulls, bool adding,
			  Datum *row, bool *rownull, Datum *logical)
{
	const IndexDef *ix = aw->ix[i];
	Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
	bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));
	bool		indexed = true;

	for (int c = 0; c < ix->ncols; c++)
	{
		base[c] = vals[aw->colmap[i][c]];
		basenull[c] = nulls[aw->colmap[i][c]];
	}
	/* a sparse index: its predicate, on the columns returned */
	if (aw->pred[i] != NULL)
	{
		ApiTable   *t = aw->t;
		TupleTableSlot *slot = aw->slot;

		ExecClearTuple(slot);
		for (int a = 0; a < slot->tts_tupleDescriptor->natts; a++)
		{
			slot->tts_values[a] = (Datum) 0;
			slot->tts_isnull[a] = true;
		}
		for (int k = 0; k < t->ncols; k++)
		{
			slot->tts_values[t->attnos[k] - 1] = vals[k];
			slot->tts_isnull[t->attnos[k] - 1] = nulls[k];
		}
		ExecStoreVirtualTuple(slot);
		indexed = index_predicate_check(aw->pred[i], slot);
	}
	base[ix->ncols] = BoolGetDatum(indexed);
	basenull[ix->ncols] = false;
	if (adding)
		index_row_check_base(ix, base, basenull);
	return index_row(ix, base, basenull, row, rownull, logical);
}

/*
 * A base row (values of t->cols) was added (add) or removed: put or remove
 * its index rows; counted: and count it (+1 or -1).
 */
void
api_row_apply(ApiWriters *aw, Datum *vals, bool *nulls, bool add, bool counted)
{
	for (int i = 0; i < aw->n; i++)
	{
		const IndexDef *ix = aw->ix[i];
		Datum	   *row = palloc(sizeof(Datum) * ix->ncols);
		bool	   *rownull = palloc(sizeof(bool) * ix->ncols);
		Datum		logical;

		if (!api_index_row(aw, i, vals, nulls, add, row, rownull, &logical))
			continue;
		if (add)
			index_writer_put(aw->w[i], row, rownull);
		else
			(void) index_writer_remove(aw->w[i], row, rownull);
		if (aw->counts[i] && counted)
			counts_add(aw->counts[i], logical, row[1], add ? 1 : -1);
	}
}

/*
 * One base row replaced: old and new are its versions before and after
 * (values of t->cols).  An index row whose key changed is removed and the
 * new one put, with its counters; one whose key stayed is replaced (its
 * projections may have changed): upserted, or in a multiset removed and
 * put again.
 */
void
api_row_replace(ApiWriters *aw, Datum *oldv, bool *oldn, Datum *newv, bool *newn)
{
	for (int i = 0; i < aw->n; i++)
	{
		const IndexDef *ix = aw->ix[i];
		Datum	   *oldrow = palloc(sizeof(Datum) * ix->ncols);
		bool	   *oldnull = palloc(sizeof(bool) * ix->ncols);
		Datum	   *newrow = palloc(sizeof(Datum) * ix->ncols);
		bool	   *newnull = palloc(sizeof(bool) * ix->ncols);
		Datum		oldlogical;
		Datum		newlogical;
		bool		was;
		bool		is;
		bool		same;

		was = api_index_row(aw, i, oldv, oldn, false, oldrow, oldnull, &oldlogical);
		is = api_index_row(aw, i, newv, newn, true, newrow, newnull, &newlogical);
		same = was && is && index_row_equal(ix, 0, ix->nkeys, oldrow, oldnull, newrow, newnull);
		if (was && (!same || index_writer_multiset(aw->w[i])))
			(void) index_writer_remove(aw->w[i], oldrow, oldnull);
		if (is)
			index_writer_put(aw->w[i], newrow, newnull);
		if (aw->counts[i] && !same)
		{
			if (was)
				counts_add(aw->counts[i], oldlogical, oldrow[1], -1);
			if (is)
				counts_add(aw->counts[i], newlogical, newrow[1], 1);
		}
	}
}

/*
 * Apply the rows an INSERT/UPDATE/DELETE ... RETURNING t->returning gave:
 * put (or remove) their index rows.  counted[] says which rows the
 * counters count (new rows, or removed ones), or NULL for all.
 */
void
api_apply(ApiWriters *aw, SPITupleTable *tt, uint64 n, bool add, const bool *counted)
{
	ApiTable   *t = aw->t;
	MemoryContext rowcxt;
	Datum	   *vals;
	bool	   *nulls;

	if (aw->n == 0)
		return;
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist api row",
								   ALLOCSET_DEFAULT_SIZES);
	vals = palloc(sizeof(Datum) * t->ncols);
	nulls = palloc(sizeof(bool) * t->ncols);
	for (uint64 r = 0; r < n; r++)
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		api_row(t, tt, r, 1, vals, nulls);
		api_row_apply(aw, vals, nulls, add, counted == NULL || counted[r]);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
}
