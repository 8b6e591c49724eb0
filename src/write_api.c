/*-------------------------------------------------------------------------
 *
 * write_api.c
 *	  put_edge, put_edges, delete_edge and delete_node: writing a base table
 *	  and its inverted indexes in one transaction, without triggers.
 *
 * On a local table every index is kept by the triggers, which fire on the
 * base write as on any other (index_sync.c): these functions then only
 * write the base table.  Where no trigger can run (a table Citus
 * distributes: it refuses triggers that write a table distributed by
 * another key) the indexes in mode 'api' are written here, next to the
 * base write, as router statements (one shard each).
 *
 * Semantics are DynamoDB's: put_edge is PutItem (insert, or replace the
 * whole item; last writer wins, two sessions putting the same new key do
 * not fail), delete_edge is DeleteItem.
 *
 * Conditional writes (DynamoDB's ConditionExpression) say whether they
 * applied instead of raising ConditionalCheckFailed: put_edge_if_absent
 * (attribute_not_exists) is an INSERT ... ON CONFLICT DO NOTHING,
 * put_edge_if and delete_edge_if (the item exists and its data contains an
 * expected value: optimistic locking on a version attribute) an UPDATE or
 * DELETE whose condition the executor evaluates again on the latest version
 * of a row it had to wait for, so of two sessions expecting the same
 * version exactly one applies.  A table without a unique key takes the
 * write API's key lock first (lock_keys()).
 *
 * The base table is written as the caller, with the caller's privileges
 * and row-level security; the index rows, computed from what the base write
 * returned (index_rule.c), are written as the index's owner
 * (index_write.c), as the triggers do.  import_dynamodb (dynamo_io.c)
 * writes through put_rows() as well.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/table.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/array.h"
#include "utils/builtins.h"
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

/*
 * The fourth field of adjlist's advisory lock tags: pg_advisory_lock() uses
 * 1 and 2, so its locks never meet these.
 */
#define ADJLIST_LOCK_FIELD 0xAD1

PG_FUNCTION_INFO_V1(adjlist_put_edge);
PG_FUNCTION_INFO_V1(adjlist_put_edges);
PG_FUNCTION_INFO_V1(adjlist_delete_edge);
PG_FUNCTION_INFO_V1(adjlist_delete_node);
PG_FUNCTION_INFO_V1(adjlist_put_edge_if_absent);
PG_FUNCTION_INFO_V1(adjlist_put_edge_if);
PG_FUNCTION_INFO_V1(adjlist_delete_edge_if);

/* What the write API needs to know about a table (dynamo_io.h names it). */
struct ApiTable
{
	Oid			relid;
	char	   *qname;
	TableIndexes *ti;
	const char *pk;				/* the two key columns, quoted */
	const char *sk;
	const char *pkname;			/* the same, as they are */
	const char *skname;
	bool		has_data;		/* a jsonb column "data" */
	bool		unique_key;		/* a unique index on (pk, sk): upsert */
	char	  **cols;			/* every column any index needs, for RETURNING */
	int			ncols;
	char	   *returning;
	char	   *set_list;		/* "c = EXCLUDED.c, ..." of the non-key columns */
	char	   *default_list;	/* ", c = DEFAULT, ..." of the non-key columns
								 * but "data" */
	bool		no_triggers;	/* no trigger keeps the indexes: Citus */
};

/*
 * What the write API needs to know about relid.  need_index: refuse a table
 * without an inverted index (the write API exists to keep them); without
 * it (import_dynamodb) such a table is keyed by its primary key, which must
 * be two adjkey columns.
 */
static ApiTable *
api_table_ex(Oid relid, bool need_index)
{
	ApiTable   *t = palloc0(sizeof(ApiTable));
	StringInfoData buf;
	Relation	rel;
	TupleDesc	desc;

	t->relid = relid;
	t->ti = registry_lookup(relid);
	if ((t->ti->nindexes == 0 && need_index) ||
		(t->ti->nindexes > 0 && t->ti->baserel != relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no inverted index", get_rel_name(relid)),
				 errhint("The write API keeps the inverted indexes of a table; create one first.")));
	if (t->ti->nindexes > 0)
	{
		const IndexDef *first = &t->ti->indexes[0];

		if (first->nbasekey != 2)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("the write API needs a table keyed by two columns (pk, sk)")));
		t->pkname = first->base_key[0];
		t->skname = first->base_key[1];
	}
	else
	{
		const AdjlistCatalog *cat = adjlist_catalog();
		Oid			pkey;
		HeapTuple	tp = NULL;

		rel = table_open(relid, AccessShareLock);
		pkey = adjlist_primary_key_index(rel);
		table_close(rel, AccessShareLock);
		if (OidIsValid(pkey))
			tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pkey));
		if (tp != NULL && HeapTupleIsValid(tp))
		{
			Form_pg_index idx = (Form_pg_index) GETSTRUCT(tp);

			if (idx->indnkeyatts == 2 && idx->indkey.values[0] > 0 && idx->indkey.values[1] > 0 &&
				get_atttype(relid, idx->indkey.values[0]) == cat->keytype &&
				get_atttype(relid, idx->indkey.values[1]) == cat->keytype)
			{
				t->pkname = get_attname(relid, idx->indkey.values[0], false);
				t->skname = get_attname(relid, idx->indkey.values[1], false);
			}
			ReleaseSysCache(tp);
		}
		if (t->pkname == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
					 errmsg("table \"%s\" has neither an inverted index nor a primary key of two adjkey columns",
							get_rel_name(relid)),
					 errhint("Give it PRIMARY KEY (pk, sk), or create an inverted index first.")));
	}
	t->pk = quote_identifier(t->pkname);
	t->sk = quote_identifier(t->skname);
	t->qname = adjlist_qualified_name(relid);
	t->no_triggers = adjlist_is_citus_table(relid);

	rel = table_open(relid, AccessShareLock);
	desc = RelationGetDescr(rel);
	t->has_data = false;
	initStringInfo(&buf);
	{
		StringInfoData defaults;

		initStringInfo(&defaults);
		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);
			const char *name = NameStr(att->attname);
			bool		is_data = strcmp(name, "data") == 0 && att->atttypid == JSONBOID;

			if (att->attisdropped || att->attgenerated)
				continue;
			if (is_data)
				t->has_data = true;
			if (strcmp(name, t->pkname) == 0 || strcmp(name, t->skname) == 0)
				continue;
			appendStringInfo(&buf, "%s%s = EXCLUDED.%s", buf.len ? ", " : "",
							 quote_identifier(name), quote_identifier(name));
			if (!is_data)
				appendStringInfo(&defaults, ", %s = DEFAULT", quote_identifier(name));
		}
		t->default_list = defaults.data;
	}
	t->set_list = buf.data;
	{
		List	   *indexes = RelationGetIndexList(rel);
		ListCell   *lc;
		AttrNumber	a1 = get_attnum(relid, t->pkname);
		AttrNumber	a2 = get_attnum(relid, t->skname);

		foreach(lc, indexes)
		{
			Relation	ind = index_open(lfirst_oid(lc), AccessShareLock);
			Form_pg_index f = ind->rd_index;

			if (f->indisunique && f->indimmediate && f->indisvalid && f->indnkeyatts == 2 &&
				RelationGetIndexPredicate(ind) == NIL &&
				((f->indkey.values[0] == a1 && f->indkey.values[1] == a2) ||
				 (f->indkey.values[0] == a2 && f->indkey.values[1] == a1)))
				t->unique_key = true;
			index_close(ind, AccessShareLock);
		}
		list_free(indexes);
	}
	table_close(rel, NoLock);

	/* RETURNING every column an API-mode index needs */
	t->cols = palloc(sizeof(char *) * MaxTupleAttributeNumber);
	initStringInfo(&buf);
	for (int i = 0; i < t->ti->nindexes; i++)
	{
		const IndexDef *ix = &t->ti->indexes[i];

		for (int c = 0; c < ix->ncols; c++)
		{
			bool		seen = false;

			for (int k = 0; k < t->ncols && !seen; k++)
				seen = strcmp(t->cols[k], ix->colnames[c]) == 0;
			if (seen)
				continue;
			t->cols[t->ncols++] = ix->colnames[c];
			appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", quote_identifier(ix->colnames[c]));
		}
		/* a sparse index: the columns of its predicate, evaluated in C */
		if (ix->predicate != NULL)
		{
			ListCell   *lc;

			foreach(lc, index_predicate_columns(ix->predicate))
			{
				char	   *name = (char *) lfirst(lc);
				bool		seen = false;

				for (int k = 0; k < t->ncols && !seen; k++)
					seen = strcmp(t->cols[k], name) == 0;
				if (seen)
					continue;
				t->cols[t->ncols++] = name;
				appendStringInfo(&buf, "%s%s", buf.len ? ", " : "", quote_identifier(name));
			}
		}
	}
	if (t->ncols == 0)
	{
		/* no index: the key, so that RETURNING has something to return */
		t->cols[t->ncols++] = (char *) t->pkname;
		t->cols[t->ncols++] = (char *) t->skname;
		appendStringInfo(&buf, "%s, %s", t->pk, t->sk);
	}
	t->returning = buf.data;
	return t;
}

static ApiTable *
api_table(Oid relid)
{
	return api_table_ex(relid, true);
}

/* ----------------------------------------------------------------------
 * Index maintenance from returned base rows
 * ----------------------------------------------------------------------
 */

typedef struct ApiWriters
{
	ApiTable   *t;
	int			n;
	const IndexDef **ix;
	IndexWriter **w;
	Counts	  **counts;
	IndexPredicateState **pred; /* of a sparse index, over the base table */
	TupleTableSlot *slot;		/* a returned row, for the predicates */
	AdjlistRoleSwitch role;
	bool		became;			/* acting as the indexes' owner */
} ApiWriters;

static ApiWriters *
api_writers_begin(ApiTable *t, bool bulk)
{
	ApiWriters *aw = palloc0(sizeof(ApiWriters));

	aw->t = t;
	aw->ix = palloc(sizeof(IndexDef *) * t->ti->nindexes);
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
		aw->w[aw->n] = index_writer_begin(ix->indexrel, ix->colnames, ix->ncols, ix->nkeys,
										  WRITE_UPSERT, bulk);
		if (OidIsValid(ix->counterrel))
			aw->counts[aw->n] = counts_create(ix);
		if (ix->predicate != NULL)
		{
			Relation	rel = table_open(t->relid, AccessShareLock);

			aw->pred[aw->n] = index_predicate_begin(ix->predicate, rel);
			if (aw->slot == NULL)
				aw->slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsVirtual);
			table_close(rel, NoLock);
		}
		aw->n++;
	}
	return aw;
}

static void
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

/* The values of ix's registry columns in row r of a RETURNING t->returning. */
static void
api_base_values(ApiTable *t, const IndexDef *ix, SPITupleTable *tt, uint64 r,
				Datum *base, bool *basenull)
{
	for (int c = 0; c < ix->ncols; c++)
	{
		int			k = 0;

		while (strcmp(t->cols[k], ix->colnames[c]) != 0)
			k++;
		base[c] = SPI_getbinval(tt->vals[r], tt->tupdesc, k + 1, &basenull[c]);
	}
	base[ix->ncols] = BoolGetDatum(true);
	basenull[ix->ncols] = false;
}

/*
 * The predicate of a sparse index (aw->ix[i]) on row r of a RETURNING
 * t->returning, as index_row() reads it: base[ix->ncols].
 */
static void
api_predicate(ApiWriters *aw, int i, SPITupleTable *tt, uint64 r, Datum *base, bool *basenull)
{
	ApiTable   *t = aw->t;
	TupleTableSlot *slot = aw->slot;

	if (aw->pred[i] == NULL)
		return;
	ExecClearTuple(slot);
	for (int a = 0; a < slot->tts_tupleDescriptor->natts; a++)
	{
		slot->tts_values[a] = (Datum) 0;
		slot->tts_isnull[a] = true;
	}
	for (int k = 0; k < t->ncols; k++)
	{
		AttrNumber	a = get_attnum(t->relid, t->cols[k]);

		if (a > 0)
			slot->tts_values[a - 1] = SPI_getbinval(tt->vals[r], tt->tupdesc, k + 1,
													&slot->tts_isnull[a - 1]);
	}
	ExecStoreVirtualTuple(slot);
	base[aw->ix[i]->ncols] = BoolGetDatum(index_predicate_check(aw->pred[i], slot));
	basenull[aw->ix[i]->ncols] = false;
}

/*
 * Apply the rows an INSERT/UPDATE/DELETE ... RETURNING t->returning gave:
 * put (or remove) their index rows.  counted[] says which rows the
 * counters count (new rows, or removed ones), or NULL for all.
 */
static void
api_apply(ApiWriters *aw, SPITupleTable *tt, uint64 n, bool add, const bool *counted)
{
	ApiTable   *t = aw->t;
	MemoryContext rowcxt;

	if (aw->n == 0)
		return;
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist api row",
								   ALLOCSET_DEFAULT_SIZES);
	for (uint64 r = 0; r < n; r++)
	{
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		for (int i = 0; i < aw->n; i++)
		{
			const IndexDef *ix = aw->ix[i];
			Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
			bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));
			Datum	   *row = palloc(sizeof(Datum) * ix->ncols);
			bool	   *rownull = palloc(sizeof(bool) * ix->ncols);
			Datum		logical;

			api_base_values(t, ix, tt, r, base, basenull);
			api_predicate(aw, i, tt, r, base, basenull);
			if (!index_row(ix, base, basenull, row, rownull, &logical))
				continue;
			if (add)
				index_writer_put(aw->w[i], row, rownull);
			else
				(void) index_writer_remove(aw->w[i], row, rownull);
			if (aw->counts[i] && (counted == NULL || counted[r]))
				counts_add(aw->counts[i], logical, row[1], add ? 1 : -1);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
}

/*
 * One base row replaced: oldtt and newtt (one row each, RETURNING
 * t->returning) are its versions before and after.  An index row whose key
 * changed is removed and the new one put, with its counters; one whose key
 * stayed is replaced (its projections may have changed).
 */
static void
api_replace(ApiWriters *aw, SPITupleTable *oldtt, SPITupleTable *newtt)
{
	ApiTable   *t = aw->t;

	for (int i = 0; i < aw->n; i++)
	{
		const IndexDef *ix = aw->ix[i];
		Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
		bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));
		Datum	   *oldrow = palloc(sizeof(Datum) * ix->ncols);
		bool	   *oldnull = palloc(sizeof(bool) * ix->ncols);
		Datum	   *newrow = palloc(sizeof(Datum) * ix->ncols);
		bool	   *newnull = palloc(sizeof(bool) * ix->ncols);
		Datum		oldlogical;
		Datum		newlogical;
		bool		was;
		bool		is;
		bool		same;

		api_base_values(t, ix, oldtt, 0, base, basenull);
		api_predicate(aw, i, oldtt, 0, base, basenull);
		was = index_row(ix, base, basenull, oldrow, oldnull, &oldlogical);
		api_base_values(t, ix, newtt, 0, base, basenull);
		api_predicate(aw, i, newtt, 0, base, basenull);
		is = index_row(ix, base, basenull, newrow, newnull, &newlogical);
		same = was && is && index_row_equal(ix, 0, ix->nkeys, oldrow, oldnull, newrow, newnull);
		if (was && !same)
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
 * Can rewriting a row's non-key columns move any of its rows in the indexes
 * the write API keeps?  Not when every such index is keyed by the base key
 * columns alone (the usual (sk, pk) index): then an update only replaces
 * the index rows' projections, and the counters stay.
 */
static bool
api_index_keys_fixed(ApiTable *t)
{
	for (int i = 0; i < t->ti->nindexes; i++)
	{
		const IndexDef *ix = &t->ti->indexes[i];

		if (ix->mode != INDEX_MODE_API || !t->no_triggers)
			continue;
		for (int c = 0; c < ix->nkeys; c++)
			if (strcmp(ix->colnames[c], t->pkname) != 0 && strcmp(ix->colnames[c], t->skname) != 0)
				return false;
	}
	return true;
}

/* ----------------------------------------------------------------------
 * The statements
 * ----------------------------------------------------------------------
 */

/*
 * Upsert rows given as arrays $1 (pk), $2 (sk), $3 (data) into the base
 * table, returning what each index needs and whether the row is new.
 */
static char *
upsert_sql(ApiTable *t)
{
	const char *nsp = adjlist_catalog()->nspname;
	char	   *source = psprintf("SELECT DISTINCT ON (u.k, u.s) u.k, u.s%s FROM "
								  "ROWS FROM (pg_catalog.unnest($1::%s.adjkey[]), pg_catalog.unnest($2::%s.adjkey[]), "
								  "pg_catalog.unnest($3::pg_catalog.jsonb[])) WITH ORDINALITY AS u(k, s, d, o) "
								  "ORDER BY u.k, u.s, u.o DESC",
								  t->has_data ? ", u.d" : "", nsp, nsp);
	char	   *target = psprintf("%s, %s%s", t->pk, t->sk, t->has_data ? ", data" : "");

	if (t->unique_key)
		return psprintf("INSERT INTO %s AS b (%s) %s ON CONFLICT (%s, %s) DO %s "
						"RETURNING %s, (b.xmax OPERATOR(pg_catalog.=) 0)",
						t->qname, target, source, t->pk, t->sk,
						t->set_list[0] ? psprintf("UPDATE SET %s", t->set_list) : "NOTHING",
						t->returning);
	/* no unique index (foreign partitions): replace by delete and insert */
	return psprintf("WITH d AS (DELETE FROM %s b USING (%s) n WHERE b.%s OPERATOR(%s.=) n.k "
					"AND b.%s OPERATOR(%s.=) n.s RETURNING b.%s, b.%s) "
					"INSERT INTO %s AS b (%s) %s RETURNING %s, true",
					t->qname, source, t->pk, nsp, t->sk, nsp, t->pk, t->sk,
					t->qname, target, source, t->returning);
}

static int
uint32_cmp(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/*
 * A table with no unique index on its key cannot make a second put of the
 * same new key wait for the first, as an INSERT ... ON CONFLICT does: the
 * write API takes a transaction lock on each key instead (an advisory lock
 * in a space of adjlist's own, in hash order so that two batches never
 * deadlock), so that last writer wins there too.
 */
static void
lock_keys(ApiTable *t, Datum pks, Datum sks)
{
	Datum	   *pv;
	Datum	   *sv;
	bool	   *pn;
	bool	   *sn;
	int			np;
	int			ns;
	uint32	   *hashes;

	deconstruct_array(DatumGetArrayTypeP(pks), adjlist_catalog()->keytype, -1, false,
					  TYPALIGN_INT, &pv, &pn, &np);
	deconstruct_array(DatumGetArrayTypeP(sks), adjlist_catalog()->keytype, -1, false,
					  TYPALIGN_INT, &sv, &sn, &ns);
	hashes = palloc(sizeof(uint32) * Max(np, 1));
	for (int i = 0; i < np && i < ns; i++)
	{
		struct varlena *p = DatumGetAdjkeyPP(pv[i]);
		struct varlena *k = DatumGetAdjkeyPP(sv[i]);

		hashes[i] = hash_combine(hash_bytes((const unsigned char *) ADJKEY_DATA(p), ADJKEY_LEN(p)),
								 hash_bytes((const unsigned char *) ADJKEY_DATA(k), ADJKEY_LEN(k)));
	}
	qsort(hashes, Min(np, ns), sizeof(uint32), uint32_cmp);
	for (int i = 0; i < Min(np, ns); i++)
	{
		LOCKTAG		tag;

		if (i > 0 && hashes[i] == hashes[i - 1])
			continue;
		SET_LOCKTAG_ADVISORY(tag, MyDatabaseId, t->relid, hashes[i], ADJLIST_LOCK_FIELD);
		(void) LockAcquire(&tag, ExclusiveLock, false, false);
	}
}

/* Put rows: arrays of keys and data, all in one statement. */
static int64
put_rows(ApiTable *t, Datum pks, Datum sks, Datum datas)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[3] = {cat->keyarraytype, cat->keyarraytype, JSONBARRAYOID};
	Datum		values[3] = {pks, sks, datas};
	SPITupleTable *tt;
	uint64		n;
	bool	   *counted;
	ApiWriters *aw;
	int			flagcol;

	if (!t->unique_key)
		lock_keys(t, pks, sks);
	adjlist_plan_execute(adjlist_plan(upsert_sql(t), 3, types), values, NULL, false, 0,
						 SPI_OK_INSERT_RETURNING);
	tt = SPI_tuptable;
	n = SPI_processed;
	flagcol = t->ncols + 1;
	counted = palloc(sizeof(bool) * Max(n, 1));
	for (uint64 r = 0; r < n; r++)
	{
		bool		isnull;
		Datum		v = SPI_getbinval(tt->vals[r], tt->tupdesc, flagcol, &isnull);

		counted[r] = !isnull && DatumGetBool(v);
	}
	aw = api_writers_begin(t, n > 1);
	api_apply(aw, tt, n, true, counted);
	api_writers_end(aw);
	SPI_freetuptable(tt);
	return (int64) n;
}

/* Delete the base rows a condition selects, and their index rows. */
static int64
delete_rows(ApiTable *t, const char *where, int nargs, Oid *types, Datum *values)
{
	char	   *sql = psprintf("DELETE FROM %s b WHERE %s RETURNING %s",
							   t->qname, where, t->returning);
	SPITupleTable *tt;
	uint64		n;
	ApiWriters *aw;

	adjlist_plan_execute(adjlist_plan(sql, nargs, types), values, NULL, false, 0,
						 SPI_OK_DELETE_RETURNING);
	tt = SPI_tuptable;
	n = SPI_processed;
	aw = api_writers_begin(t, n > 1);
	api_apply(aw, tt, n, false, NULL);
	api_writers_end(aw);
	SPI_freetuptable(tt);
	return (int64) n;
}

static Datum
one_elem_array(Datum d, Oid type, bool isnull)
{
	int16		len;
	bool		byval;
	char		align;
	int			dims[1] = {1};
	int			lbs[1] = {1};

	get_typlenbyvalalign(type, &len, &byval, &align);
	return PointerGetDatum(construct_md_array(&d, &isnull, 1, dims, lbs, type, len, byval, align));
}

/* Run body(arg) connected to SPI.  Every entry point goes through here. */
static int64
in_write_api(int64 (*body) (void *), void *arg)
{
	int64		result;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	result = body(arg);
	SPI_finish();
	return result;
}

typedef struct PutArgs
{
	ApiTable   *t;
	Datum		pks;
	Datum		sks;
	Datum		datas;
} PutArgs;

static int64
put_body(void *arg)
{
	PutArgs    *a = (PutArgs *) arg;

	return put_rows(a->t, a->pks, a->sks, a->datas);
}

typedef struct DeleteArgs
{
	ApiTable   *t;
	const char *where;
	int			nargs;
	Oid		   *types;
	Datum	   *values;
} DeleteArgs;

static int64
delete_body(void *arg)
{
	DeleteArgs *a = (DeleteArgs *) arg;

	return delete_rows(a->t, a->where, a->nargs, a->types, a->values);
}

static void
require_args(FunctionCallInfo fcinfo, int n, const char *what)
{
	for (int i = 0; i < n; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s", what)));
}

/* put_edge(tbl regclass, pk adjkey, sk adjkey, data jsonb) */
Datum
adjlist_put_edge(PG_FUNCTION_ARGS)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t;

	require_args(fcinfo, 3, "put_edge needs a table, a pk and an sk");
	t = api_table(PG_GETARG_OID(0));
	if (!PG_ARGISNULL(3) && !t->has_data)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("table \"%s\" has no jsonb column \"data\"", get_rel_name(t->relid))));
	{
		PutArgs		a;

		a.t = t;
		a.pks = one_elem_array(PG_GETARG_DATUM(1), cat->keytype, false);
		a.sks = one_elem_array(PG_GETARG_DATUM(2), cat->keytype, false);
		a.datas = one_elem_array(PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3), JSONBOID,
								 PG_ARGISNULL(3));
		(void) in_write_api(put_body, &a);
	}
	PG_RETURN_VOID();
}

/* The value of a member of a JSON object, whatever the case of its name. */
static JsonbValue *
member_ci(Jsonb *obj, const char *name, JsonbValue *buf)
{
	JsonbIterator *it = JsonbIteratorInit(&obj->root);
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		want = false;
	JsonbValue *found = NULL;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			want = (v.val.string.len == (int) strlen(name) &&
					pg_strncasecmp(v.val.string.val, name, v.val.string.len) == 0);
		else if (tok == WJB_VALUE && want)
		{
			*buf = v;
			found = buf;
			want = false;
		}
	}
	return found;
}

/*
 * put_edges(tbl regclass, edges jsonb) RETURNS bigint: put_edge for each
 * element of a JSON array of {"pk": ..., "sk": ..., "data": ...} (member
 * names in any case), in one statement; a key given twice: the last wins.
 */
Datum
adjlist_put_edges(PG_FUNCTION_ARGS)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Jsonb	   *edges;
	ApiTable   *t;
	ArrayBuildState *pks;
	ArrayBuildState *sks;
	ArrayBuildState *datas;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int64		n = 0;

	require_args(fcinfo, 2, "put_edges needs a table and an array of edges");
	edges = PG_GETARG_JSONB_P(1);
	if (!JB_ROOT_IS_ARRAY(edges) || JB_ROOT_IS_SCALAR(edges))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("edges must be a JSON array of {\"pk\": ..., \"sk\": ..., \"data\": ...}")));
	t = api_table(PG_GETARG_OID(0));
	pks = initArrayResult(cat->keytype, CurrentMemoryContext, false);
	sks = initArrayResult(cat->keytype, CurrentMemoryContext, false);
	datas = initArrayResult(JSONBOID, CurrentMemoryContext, false);
	it = JsonbIteratorInit(&edges->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		Jsonb	   *obj;
		JsonbValue	buf;
		JsonbValue *k;
		JsonbValue *s;
		JsonbValue *d;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("element %lld of edges is not a JSON object", (long long) n + 1)));
		obj = JsonbValueToJsonb(&v);
		k = member_ci(obj, "pk", &buf);
		if (k == NULL || k->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("element %lld of edges has no string \"pk\"", (long long) n + 1)));
		accumArrayResult(pks, PointerGetDatum(adjkey_from_server(k->val.string.val, k->val.string.len, NULL)),
						 false, cat->keytype, CurrentMemoryContext);
		s = member_ci(obj, "sk", &buf);
		if (s == NULL || s->type != jbvString)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("element %lld of edges has no string \"sk\"", (long long) n + 1)));
		accumArrayResult(sks, PointerGetDatum(adjkey_from_server(s->val.string.val, s->val.string.len, NULL)),
						 false, cat->keytype, CurrentMemoryContext);
		d = member_ci(obj, "data", &buf);
		if (d != NULL && d->type != jbvNull && !t->has_data)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("table \"%s\" has no jsonb column \"data\"", get_rel_name(t->relid))));
		accumArrayResult(datas, (d == NULL || d->type == jbvNull) ? (Datum) 0 :
						 JsonbPGetDatum(JsonbValueToJsonb(d)),
						 d == NULL || d->type == jbvNull, JSONBOID, CurrentMemoryContext);
		n++;
	}
	if (n == 0)
		PG_RETURN_INT64(0);
	{
		PutArgs		a;

		a.t = t;
		a.pks = makeArrayResult(pks, CurrentMemoryContext);
		a.sks = makeArrayResult(sks, CurrentMemoryContext);
		a.datas = makeArrayResult(datas, CurrentMemoryContext);
		(void) in_write_api(put_body, &a);
	}
	PG_RETURN_INT64(n);
}

/* delete_edge(tbl regclass, pk adjkey, sk adjkey) RETURNS boolean */
Datum
adjlist_delete_edge(PG_FUNCTION_ARGS)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t;
	Oid			types[2] = {cat->keytype, cat->keytype};
	Datum		values[2];
	int64		n = 0;

	require_args(fcinfo, 3, "delete_edge needs a table, a pk and an sk");
	t = api_table(PG_GETARG_OID(0));
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	{
		DeleteArgs	a;

		a.t = t;
		a.where = psprintf("b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) $2",
						   t->pk, cat->nspname, t->sk, cat->nspname);
		a.nargs = 2;
		a.types = types;
		a.values = values;
		n = in_write_api(delete_body, &a);
	}
	PG_RETURN_BOOL(n > 0);
}

/* ----------------------------------------------------------------------
 * Conditional writes (DynamoDB's ConditionExpression)
 * ----------------------------------------------------------------------
 */

typedef struct CondArgs
{
	ApiTable   *t;
	Datum		pk;
	Datum		sk;
	Datum		data;
	bool		data_null;
	Jsonb	   *expected;
} CondArgs;

/* Take the key lock of a table without a unique key (see lock_keys()). */
static void
cond_lock_key(CondArgs *a)
{
	Oid			keytype = adjlist_catalog()->keytype;

	if (!a->t->unique_key)
		lock_keys(a->t, one_elem_array(a->pk, keytype, false),
				  one_elem_array(a->sk, keytype, false));
}

/* "b.pk = $1 AND b.sk = $2" */
static char *
cond_key_where(ApiTable *t)
{
	const char *nsp = adjlist_catalog()->nspname;

	return psprintf("b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) $2", t->pk, nsp, t->sk, nsp);
}

/*
 * The condition on an existing item: its data contains the expected value
 * ($n); an item without data (NULL) is an item without attributes, so '{}'
 * means only "the item exists".
 */
static char *
cond_expected(int param)
{
	return psprintf("COALESCE(b.data, '{}'::pg_catalog.jsonb) OPERATOR(pg_catalog.@>) $%d",
					param);
}

static int64
put_absent_body(void *arg)
{
	CondArgs   *a = (CondArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t = a->t;
	Oid			types[3] = {cat->keytype, cat->keytype, JSONBOID};
	Datum		values[3] = {a->pk, a->sk, a->data};
	char		nulls[3] = {' ', ' ', a->data_null ? 'n' : ' '};
	const char *target = psprintf("%s, %s%s", t->pk, t->sk, t->has_data ? ", data" : "");
	const char *vals = t->has_data ? "$1, $2, $3" : "$1, $2";
	char	   *sql;
	SPITupleTable *tt;
	uint64		n;
	ApiWriters *aw;

	cond_lock_key(a);
	if (t->unique_key)
		sql = psprintf("INSERT INTO %s AS b (%s) VALUES (%s) ON CONFLICT (%s, %s) DO NOTHING "
					   "RETURNING %s",
					   t->qname, target, vals, t->pk, t->sk, t->returning);
	else
		sql = psprintf("INSERT INTO %s AS b (%s) SELECT %s WHERE NOT EXISTS "
					   "(SELECT FROM %s b WHERE %s) RETURNING %s",
					   t->qname, target, vals, t->qname, cond_key_where(t), t->returning);
	adjlist_plan_execute(adjlist_plan(sql, t->has_data ? 3 : 2, types), values, nulls, false, 0,
						 SPI_OK_INSERT_RETURNING);
	tt = SPI_tuptable;
	n = SPI_processed;
	aw = api_writers_begin(t, false);
	api_apply(aw, tt, n, true, NULL);
	api_writers_end(aw);
	SPI_freetuptable(tt);
	return (int64) n;
}

static int64
put_if_body(void *arg)
{
	CondArgs   *a = (CondArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t = a->t;
	Oid			types[4] = {cat->keytype, cat->keytype, JSONBOID, JSONBOID};
	Datum		values[4] = {a->pk, a->sk, a->data, JsonbPGetDatum(a->expected)};
	char		nulls[4] = {' ', ' ', a->data_null ? 'n' : ' ', ' '};
	char	   *update;
	SPITupleTable *oldtt = NULL;
	SPITupleTable *tt;
	uint64		n;
	ApiWriters *aw;

	cond_lock_key(a);
	if (t->no_triggers && !api_index_keys_fixed(t))
	{
		/*
		 * An index keyed by another column (a generated one) may move: read
		 * the item's index columns first, locking it, so that its old index
		 * rows can be removed.
		 */
		char	   *sql = psprintf("SELECT %s, %s FROM %s b WHERE %s FOR UPDATE OF b",
								   t->returning, cond_expected(4), t->qname, cond_key_where(t));
		bool		isnull;
		Datum		ok;

		adjlist_plan_execute(adjlist_plan(sql, 4, types), values, nulls, false, 0, SPI_OK_SELECT);
		oldtt = SPI_tuptable;
		if (SPI_processed == 0)
			return 0;
		ok = SPI_getbinval(oldtt->vals[0], oldtt->tupdesc, t->ncols + 1, &isnull);
		if (isnull || !DatumGetBool(ok))
			return 0;
		update = psprintf("UPDATE %s AS b SET data = $3%s WHERE %s RETURNING %s",
						  t->qname, t->default_list, cond_key_where(t), t->returning);
	}
	else
		update = psprintf("UPDATE %s AS b SET data = $3%s WHERE %s AND %s RETURNING %s",
						  t->qname, t->default_list, cond_key_where(t), cond_expected(4),
						  t->returning);
	adjlist_plan_execute(adjlist_plan(update, 4, types), values, nulls, false, 0,
						 SPI_OK_UPDATE_RETURNING);
	tt = SPI_tuptable;
	n = SPI_processed;
	aw = api_writers_begin(t, false);
	if (oldtt != NULL && n == 1)
		api_replace(aw, oldtt, tt);
	else
	{
		/* the index rows keep their keys: replace them, counters stay */
		bool	   *counted = palloc0(sizeof(bool) * Max(n, 1));

		api_apply(aw, tt, n, true, counted);
	}
	api_writers_end(aw);
	SPI_freetuptable(tt);
	return (int64) n;
}

static int64
delete_if_body(void *arg)
{
	CondArgs   *a = (CondArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[3] = {cat->keytype, cat->keytype, JSONBOID};
	Datum		values[3] = {a->pk, a->sk, JsonbPGetDatum(a->expected)};

	cond_lock_key(a);
	return delete_rows(a->t, psprintf("%s AND %s", cond_key_where(a->t), cond_expected(3)),
					   3, types, values);
}

/* The expected value of a conditional write: a JSON object. */
static Jsonb *
expected_arg(FunctionCallInfo fcinfo, int n, ApiTable *t)
{
	Jsonb	   *e;

	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the expected value of a conditional write must not be null"),
				 errhint("Pass '{}' to require only that the item exists.")));
	e = PG_GETARG_JSONB_P(n);
	if (!JB_ROOT_IS_OBJECT(e))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the expected value of a conditional write must be a JSON object"),
				 errdetail("The condition is that the item's data contains it (@>).")));
	if (!t->has_data)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("table \"%s\" has no jsonb column \"data\"", get_rel_name(t->relid))));
	return e;
}

static void
cond_args(FunctionCallInfo fcinfo, CondArgs *a, const char *what, bool with_data)
{
	require_args(fcinfo, 3, what);
	memset(a, 0, sizeof(*a));
	a->t = api_table(PG_GETARG_OID(0));
	a->pk = PG_GETARG_DATUM(1);
	a->sk = PG_GETARG_DATUM(2);
	a->data_null = true;
	if (with_data && !PG_ARGISNULL(3))
	{
		if (!a->t->has_data)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("table \"%s\" has no jsonb column \"data\"", get_rel_name(a->t->relid))));
		a->data = PG_GETARG_DATUM(3);
		a->data_null = false;
	}
}

/*
 * put_edge_if_absent(tbl regclass, pk adjkey, sk adjkey, data jsonb)
 * RETURNS boolean: PutItem with attribute_not_exists: insert the item
 * unless one with its key exists; true if it was inserted.
 */
Datum
adjlist_put_edge_if_absent(PG_FUNCTION_ARGS)
{
	CondArgs	a;

	cond_args(fcinfo, &a, "a conditional put needs a table, a pk and an sk", true);
	PG_RETURN_BOOL(in_write_api(put_absent_body, &a) > 0);
}

/*
 * put_edge_if(tbl regclass, pk adjkey, sk adjkey, data jsonb, expected
 * jsonb) RETURNS boolean: replace the item only if it exists and its data
 * contains expected; true if it was replaced.
 */
Datum
adjlist_put_edge_if(PG_FUNCTION_ARGS)
{
	CondArgs	a;

	cond_args(fcinfo, &a, "a conditional put needs a table, a pk and an sk", true);
	a.expected = expected_arg(fcinfo, 4, a.t);
	PG_RETURN_BOOL(in_write_api(put_if_body, &a) > 0);
}

/*
 * delete_edge_if(tbl regclass, pk adjkey, sk adjkey, expected jsonb)
 * RETURNS boolean: delete the item only if its data contains expected;
 * true if it was deleted.
 */
Datum
adjlist_delete_edge_if(PG_FUNCTION_ARGS)
{
	CondArgs	a;

	cond_args(fcinfo, &a, "a conditional delete needs a table, a pk and an sk", false);
	a.expected = expected_arg(fcinfo, 3, a.t);
	PG_RETURN_BOOL(in_write_api(delete_if_body, &a) > 0);
}

/* ----------------------------------------------------------------------
 * For import_dynamodb (dynamo_io.c)
 * ----------------------------------------------------------------------
 */

ApiTable *
adjlist_api_table(Oid relid)
{
	return api_table_ex(relid, false);
}

const char *
adjlist_api_key_name(ApiTable *t, int i)
{
	return i == 0 ? t->pkname : t->skname;
}

bool
adjlist_api_has_data(ApiTable *t)
{
	return t->has_data;
}

int64
adjlist_api_put(ApiTable *t, Datum pks, Datum sks, Datum datas)
{
	PutArgs		a;

	a.t = t;
	a.pks = pks;
	a.sks = sks;
	a.datas = datas;
	return in_write_api(put_body, &a);
}

typedef struct NodeArgs
{
	ApiTable   *t;
	const IndexDef *flip;
	struct varlena *node;
	Datum	   *pdat;
	bool	   *pnull;
	int			np;
} NodeArgs;

/* The sources of the edges pointing at node under one prefix, or NULL. */
static Datum
edge_sources(NodeArgs *a, const char *sk, int sklen, bool *found)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	const IndexDef *flip = a->flip;
	int			nshards = Max(flip->write_shards, 1);
	Datum	   *shardkeys = palloc(sizeof(Datum) * nshards);
	Oid			atypes[1] = {cat->keyarraytype};
	Datum		arg;
	char	   *sql;
	AdjlistRoleSwitch role;
	Datum		sources;
	bool		isnull;

	for (int s = 0; s < nshards; s++)
		shardkeys[s] = PointerGetDatum(flip->write_shards > 0 ?
									   write_shard_key(sk, sklen, s) :
									   adjkey_from_utf8(sk, sklen));
	arg = PointerGetDatum(construct_array(shardkeys, nshards, cat->keytype, -1, false,
										  TYPALIGN_INT));
	sql = psprintf("SELECT pg_catalog.array_agg(i.%s) FROM %s i WHERE i.%s OPERATOR(%s.=) ANY ($1)",
				   quote_identifier(flip->colnames[1]), adjlist_qualified_name(flip->indexrel),
				   quote_identifier(flip->colnames[0]), cat->nspname);
	/* the index is read as its owner; the base rows are deleted as the caller */
	adjlist_become(a->t->ti->owner, &role);
	adjlist_plan_execute(adjlist_plan(sql, 1, atypes), &arg, NULL, true, 0, SPI_OK_SELECT);
	adjlist_unbecome(&role);
	sources = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	*found = !isnull;
	return isnull ? (Datum) 0 : PointerGetDatum(DatumGetArrayTypePCopy(sources));
}

static int64
node_body(void *arg)
{
	NodeArgs   *a = (NodeArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t = a->t;
	Oid			types[2] = {cat->keytype, cat->keyarraytype};
	Datum		values[2];
	int64		n = 0;

	for (int i = 0; i < a->np; i++)
	{
		int			plen;
		const char *p;
		char	   *sk;
		int			sklen;
		bool		found;

		if (a->pnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("edge prefixes must not be null")));
		p = adjkey_edge_prefix(DatumGetTextPP(a->pdat[i]), &plen);
		sklen = plen + ADJKEY_LEN(a->node);
		sk = palloc(sklen);
		memcpy(sk, p, plen);
		memcpy(sk + plen, ADJKEY_DATA(a->node), ADJKEY_LEN(a->node));
		adjkey_check_bytes(sk, sklen, NULL);
		values[1] = edge_sources(a, sk, sklen, &found);
		if (!found)
			continue;
		values[0] = PointerGetDatum(adjkey_from_utf8(sk, sklen));
		n += delete_rows(t, psprintf("b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) ANY ($2)",
									 t->sk, cat->nspname, t->pk, cat->nspname),
						 2, types, values);
	}
	values[0] = PointerGetDatum(a->node);
	n += delete_rows(t, psprintf("b.%s OPERATOR(%s.=) $1", t->pk, cat->nspname), 1, types, values);
	return n;
}

/*
 * delete_node(tbl regclass, node adjkey, edge_prefixes text[]) RETURNS
 * bigint: the node's item collection (pk = node) and, for each edge prefix,
 * the edges that point at it (sk = prefix || node), found through the
 * inverted index that flips (pk, sk), across its write shards.
 */
Datum
adjlist_delete_node(PG_FUNCTION_ARGS)
{
	NodeArgs	a;
	ArrayType  *prefixes;

	require_args(fcinfo, 3, "delete_node needs a table, a node and edge prefixes");
	a.t = api_table(PG_GETARG_OID(0));
	a.node = PG_GETARG_ADJKEY_PP(1);
	prefixes = PG_GETARG_ARRAYTYPE_P(2);
	deconstruct_array(prefixes, TEXTOID, -1, false, TYPALIGN_INT, &a.pdat, &a.pnull, &a.np);
	a.flip = registry_find_flip(a.t->ti, a.t->ti->indexes[0].base_key[0],
								a.t->ti->indexes[0].base_key[1]);
	/* an index created after this transaction's snapshot holds rows it cannot see */
	if (a.np > 0 && a.flip != NULL && ActiveSnapshotSet() &&
		!registry_visible(a.flip, GetActiveSnapshot()))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no inverted index", get_rel_name(a.t->relid)),
				 errdetail("Its inverted index was created after this transaction's snapshot."),
				 errhint("Run delete_node() in a new transaction.")));
	if (a.np > 0 && a.flip != NULL && !a.flip->ready)
		registry_not_ready(a.flip->indexrel);
	if (a.np > 0 && a.flip == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no inverted index that flips its key",
						get_rel_name(a.t->relid))));
	PG_RETURN_INT64(in_write_api(node_body, &a));
}
