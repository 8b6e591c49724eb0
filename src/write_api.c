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
 * Index rows follow from the base rows a statement returns: a delete
 * returns the old versions, an upsert only the new ones.  That is enough
 * when a replaced item's index rows keep their keys (an index keyed by the
 * base key, or by generated columns computed from it alone): the index row
 * is upserted and its counters stay.  Where no trigger runs and an index
 * is keyed by a column a replacement can change (one generated from data,
 * a plain column reset to its default), or a sparse index's predicate
 * reads one, each item is read first, locked, and then replaced
 * (put_one_tracked()), so that its old index rows can be removed; without
 * a unique key, a put deletes and inserts, and the DELETE returns the old
 * versions (put_by_delete()).
 *
 * On Citus every statement of put_edge and delete_edge names one key: the
 * base row's upsert is an INSERT ... VALUES, each index row's too, so
 * Citus plans each as a router query on one shard (its fast path).
 * put_edges writes the base rows in one INSERT ... SELECT over unnested
 * arrays, and the index rows and counter deltas likewise, one statement a
 * table (index_write.c), which Citus splits by shard.
 *
 * An item's attributes go to the table's payload column: "data" unless
 * set_payload_column() names another (table_options.c); a table with
 * neither takes items without attributes only.  put_edges names the
 * members of its elements as put_edge's parameters (pk, sk, data) or as
 * the table's columns (its key columns, its payload column): a column's
 * name as it is first, then a parameter's, then either in any case; an
 * unknown or ambiguous member, or a part given twice, is an error.
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

/*
 * The fourth field of adjlist's advisory lock tags: pg_advisory_lock() uses
 * 1 and 2, so its locks never meet these.
 */
#define ADJLIST_LOCK_FIELD 0xAD1

/*
 * Index rows written one statement each (a router query on Citus) up to
 * this many; more are buffered and written a statement a table.
 */
#define API_FEW 16

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
	const char *payload;		/* the payload column, quoted, or NULL: none */
	const char *payload_name;	/* its name as it is: "data" unless set */
	bool		unique_key;		/* a unique index on (pk, sk): upsert */
	char	  **cols;			/* every column any index needs, for RETURNING */
	int			ncols;
	char	   *returning;
	char	   *set_list;		/* "c = EXCLUDED.c, ..." of the non-key columns */
	char	   *default_list;	/* ", c = DEFAULT, ..." of the non-key columns
								 * but the payload column */
	bool		no_triggers;	/* no trigger keeps the indexes: Citus */

	/* Where no trigger runs: what a replacement does to the index rows */
	char	   *breturning;		/* the returning list, "b.c, ..." */
	int			pkcol;			/* where pk and sk stand in cols */
	int			skcol;
	bool		multiset;		/* an index table has a deferrable key */
	AttrNumber *attnos;			/* the attribute of each of cols */
	int			nmoving;		/* index key columns a replacement can change */
	int		   *moving;			/* their positions in cols */
};

/* The position of column name in t->cols, added if it is not there. */
static int
api_col(ApiTable *t, const char *name)
{
	for (int k = 0; k < t->ncols; k++)
		if (strcmp(t->cols[k], name) == 0)
			return k;
	t->cols[t->ncols] = (char *) name;
	return t->ncols++;
}

/*
 * Is attnum of rel a generated column computed from the columns a1 and a2
 * alone (and constants)?  Its value then depends on the key of the row only.
 */
static bool
generated_from(Relation rel, AttrNumber attnum, AttrNumber a1, AttrNumber a2)
{
	TupleDesc	desc = RelationGetDescr(rel);
	TupleConstr *constr = desc->constr;
	Bitmapset  *used = NULL;
	int			k = -1;

	if (!TupleDescAttr(desc, attnum - 1)->attgenerated || constr == NULL)
		return false;
	for (int i = 0; i < constr->num_defval; i++)
	{
		if (constr->defval[i].adnum != attnum)
			continue;
		pull_varattnos(stringToNode(constr->defval[i].adbin), 1, &used);
		while ((k = bms_next_member(used, k)) >= 0)
		{
			AttrNumber	a = k + FirstLowInvalidHeapAttributeNumber;

			if (a != a1 && a != a2)
				return false;	/* another column, or the whole row */
		}
		return true;
	}
	return false;
}

/* Add column name of rel to t->moving, unless it cannot move or is listed. */
static void
api_moving_col(ApiTable *t, Relation rel, const char *name, AttrNumber a1, AttrNumber a2)
{
	AttrNumber	a = attnameAttNum(rel, name, false);
	int			k = api_col(t, name);

	if (a == a1 || a == a2 || generated_from(rel, a, a1, a2))
		return;
	for (int m = 0; m < t->nmoving; m++)
		if (t->moving[m] == k)
			return;
	t->moving[t->nmoving++] = k;
}

/*
 * Where no trigger runs, the write API writes the index rows itself, from
 * the base rows a statement returns.  A put that replaces an item returns
 * only its new version, which is enough when the index rows of the item
 * keep their keys: the upsert of the index row replaces its projections,
 * and the counters stay.  That holds for an index keyed by the base key
 * columns (the usual flip) or by generated columns computed from them (a
 * derived key such as CASE WHEN sk ^@ 'BILL#' THEN sk END), and whose
 * predicate (a sparse index) reads only such columns.  An index keyed by
 * any other column (a plain one, which a replacement resets to its
 * default, or one generated from data), or whose predicate reads one, may
 * move: its old row must be removed, so the old version must be read.
 * Such columns are listed in t->moving.  An index table whose key is
 * deferrable holds a multiset, where a row is replaced by removing it and
 * putting it again: that needs the old version too (t->multiset).
 */
static void
api_replacement_moves(ApiTable *t, Relation rel)
{
	AttrNumber	a1 = attnameAttNum(rel, t->pkname, false);
	AttrNumber	a2 = attnameAttNum(rel, t->skname, false);

	t->moving = palloc(sizeof(int) * MaxTupleAttributeNumber);
	for (int i = 0; i < t->ti->nindexes; i++)
	{
		const IndexDef *ix = &t->ti->indexes[i];

		if (ix->mode != INDEX_MODE_API)
			continue;
		if (index_writer_key_deferrable(ix->indexrel, ix->colnames, ix->nkeys))
			t->multiset = true;
		for (int c = 0; c < ix->nkeys; c++)
			api_moving_col(t, rel, ix->colnames[c], a1, a2);
		if (ix->predicate != NULL)
		{
			ListCell   *lc;

			foreach(lc, index_predicate_columns(ix->predicate))
				api_moving_col(t, rel, (char *) lfirst(lc), a1, a2);
		}
	}
	/* a replacement that sets no column changes none */
	if (t->set_list[0] == '\0')
		t->nmoving = 0;
}

/*
 * The key columns the write API writes by: the registered key of the
 * table's indexes, or a primary key of two adjkey columns (a table with no
 * index yet, for import_dynamodb).
 */
static void
api_key_columns(ApiTable *t, Oid relid)
{
	Relation	rel;

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
}

/*
 * The SET lists of an upsert (every column but the key from EXCLUDED; every
 * column but the key and the payload back to its default), and whether a
 * unique index on exactly the key (either order) makes ON CONFLICT usable.
 */
static void
api_set_lists(ApiTable *t, Relation rel)
{
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData buf;
	StringInfoData defaults;
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	AttrNumber	a1 = get_attnum(t->relid, t->pkname);
	AttrNumber	a2 = get_attnum(t->relid, t->skname);

	initStringInfo(&buf);
	initStringInfo(&defaults);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const char *name = NameStr(att->attname);
		bool		is_payload = t->payload != NULL && strcmp(name, t->payload_name) == 0;

		if (att->attisdropped || att->attgenerated)
			continue;
		if (strcmp(name, t->pkname) == 0 || strcmp(name, t->skname) == 0)
			continue;
		appendStringInfo(&buf, "%s%s = EXCLUDED.%s", buf.len ? ", " : "",
						 quote_identifier(name), quote_identifier(name));
		if (!is_payload)
			appendStringInfo(&defaults, ", %s = DEFAULT", quote_identifier(name));
	}
	t->default_list = defaults.data;
	t->set_list = buf.data;

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

	t->relid = relid;
	t->ti = registry_lookup(relid);
	if ((t->ti->nindexes == 0 && need_index) ||
		(t->ti->nindexes > 0 && t->ti->baserel != relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no inverted index", get_rel_name(relid)),
				 errhint("The write API keeps the inverted indexes of a table; create one first.")));
	api_key_columns(t, relid);
	t->pk = quote_identifier(t->pkname);
	t->sk = quote_identifier(t->skname);
	t->qname = adjlist_qualified_name(relid);
	t->no_triggers = adjlist_is_citus_table(relid);

	/* the item's attributes: the payload column (table_options.c) */
	{
		TableOptions *o = table_options(relid);

		t->payload_name = o->payload;
		t->payload = o->payload_attno != InvalidAttrNumber ? quote_identifier(o->payload) : NULL;
	}

	rel = table_open(relid, AccessShareLock);
	api_set_lists(t, rel);

	/* RETURNING every column an index needs, and the key */
	t->cols = palloc(sizeof(char *) * MaxTupleAttributeNumber);
	for (int i = 0; i < t->ti->nindexes; i++)
	{
		const IndexDef *ix = &t->ti->indexes[i];

		for (int c = 0; c < ix->ncols; c++)
			(void) api_col(t, ix->colnames[c]);
		/* a sparse index: the columns of its predicate, evaluated in C */
		if (ix->predicate != NULL)
		{
			ListCell   *lc;

			foreach(lc, index_predicate_columns(ix->predicate))
				(void) api_col(t, (char *) lfirst(lc));
		}
	}
	t->pkcol = api_col(t, t->pkname);
	t->skcol = api_col(t, t->skname);
	initStringInfo(&buf);
	for (int k = 0; k < t->ncols; k++)
		appendStringInfo(&buf, "%s%s", k ? ", " : "", quote_identifier(t->cols[k]));
	t->returning = buf.data;
	initStringInfo(&buf);
	for (int k = 0; k < t->ncols; k++)
		appendStringInfo(&buf, "%sb.%s", k ? ", " : "", quote_identifier(t->cols[k]));
	t->breturning = buf.data;
	t->attnos = palloc(sizeof(AttrNumber) * t->ncols);
	for (int k = 0; k < t->ncols; k++)
		t->attnos[k] = attnameAttNum(rel, t->cols[k], false);
	if (t->no_triggers)
		api_replacement_moves(t, rel);
	table_close(rel, NoLock);
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
	int		  **colmap;			/* ix's registry columns: positions in t->cols */
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

/*
 * The values of t->cols in row r of a result whose columns first ..
 * first + t->ncols - 1 are t->returning.
 */
static void
api_row(ApiTable *t, SPITupleTable *tt, uint64 r, int first, Datum *vals, bool *nulls)
{
	for (int k = 0; k < t->ncols; k++)
		vals[k] = SPI_getbinval(tt->vals[r], tt->tupdesc, first + k, &nulls[k]);
}

/*
 * The row of the i-th index for a base row (values of t->cols), as
 * index_row() makes it; false when the base row is not indexed.
 */
static bool
api_index_row(ApiWriters *aw, int i, Datum *vals, bool *nulls,
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
	return index_row(ix, base, basenull, row, rownull, logical);
}

/*
 * A base row (values of t->cols) was added (add) or removed: put or remove
 * its index rows; counted: and count it (+1 or -1).
 */
static void
api_row_apply(ApiWriters *aw, Datum *vals, bool *nulls, bool add, bool counted)
{
	for (int i = 0; i < aw->n; i++)
	{
		const IndexDef *ix = aw->ix[i];
		Datum	   *row = palloc(sizeof(Datum) * ix->ncols);
		bool	   *rownull = palloc(sizeof(bool) * ix->ncols);
		Datum		logical;

		if (!api_index_row(aw, i, vals, nulls, row, rownull, &logical))
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
static void
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

		was = api_index_row(aw, i, oldv, oldn, oldrow, oldnull, &oldlogical);
		is = api_index_row(aw, i, newv, newn, newrow, newnull, &newlogical);
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
static void
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

/* ----------------------------------------------------------------------
 * The statements
 * ----------------------------------------------------------------------
 */

/* ", <payload column>" to follow the key in a target list, or "" */
static const char *
payload_target(ApiTable *t)
{
	return t->payload ? psprintf(", %s", t->payload) : "";
}

/* A table without its payload column given an item's attributes: 42703 */
static void
no_payload_column(ApiTable *t)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_COLUMN),
			 errmsg("table \"%s\" has no jsonb column \"%s\"", get_rel_name(t->relid),
					t->payload_name),
			 errdetail("An item's attributes are kept in its payload column (\"data\" unless set_payload_column() names another)."),
			 errhint("Name the table's jsonb column of attributes with set_payload_column(), or give the item none (NULL).")));
}

/*
 * Whether an upsert inserted its row (xmax 0), which the counters the
 * write API keeps need (where no trigger runs); elsewhere the triggers
 * count, and a constant spares a partitioned table, which cannot return a
 * system column.
 */
static const char *
inserted_flag(ApiTable *t)
{
	return t->no_triggers ? "(b.xmax OPERATOR(pg_catalog.=) 0)" : "true";
}

/*
 * Upsert rows given as arrays $1 (pk), $2 (sk), $3 (the payload) into the base
 * table (one with a unique key), returning what each index needs and
 * whether the row is new.
 */
static char *
upsert_sql(ApiTable *t)
{
	const char *nsp = adjlist_catalog()->nspname;
	char	   *source = psprintf("SELECT DISTINCT ON (u.k, u.s) u.k, u.s%s FROM "
								  "ROWS FROM (pg_catalog.unnest($1::%s.adjkey[]), pg_catalog.unnest($2::%s.adjkey[]), "
								  "pg_catalog.unnest($3::pg_catalog.jsonb[])) WITH ORDINALITY AS u(k, s, d, o) "
								  "ORDER BY u.k, u.s, u.o DESC",
								  t->payload ? ", u.d" : "", nsp, nsp);
	char	   *target = psprintf("%s, %s%s", t->pk, t->sk, payload_target(t));

	Assert(t->unique_key);
	return psprintf("INSERT INTO %s AS b (%s) %s ON CONFLICT (%s, %s) DO %s "
					"RETURNING %s, %s",
					t->qname, target, source, t->pk, t->sk,
					t->set_list[0] ? psprintf("UPDATE SET %s", t->set_list) : "NOTHING",
					t->returning, inserted_flag(t));
}

/* The same for one item: $1 (pk), $2 (sk)[, $3 (data)], as VALUES */
static char *
upsert_one_sql(ApiTable *t)
{
	Assert(t->unique_key);
	return psprintf("INSERT INTO %s AS b (%s, %s%s) VALUES ($1, $2%s) ON CONFLICT (%s, %s) DO %s "
					"RETURNING %s, %s",
					t->qname, t->pk, t->sk, payload_target(t),
					t->payload ? ", $3" : "", t->pk, t->sk,
					t->set_list[0] ? psprintf("UPDATE SET %s", t->set_list) : "NOTHING",
					t->returning, inserted_flag(t));
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

/* ----------------------------------------------------------------------
 * Puts that need the old versions of the items they replace
 * ----------------------------------------------------------------------
 */

/* One item of a put, once repeated keys are dropped (the last one wins). */
typedef struct PutItem
{
	struct varlena *pk;			/* detoasted */
	struct varlena *sk;
	Datum		data;
	bool		data_null;
	int			ord;			/* position in the request */
	HeapTuple	oldtup;			/* its version before (t->returning), or NULL */
	HeapTuple	newtup;			/* its version after, or NULL */
} PutItem;

/* Rows a put wrote or removed that are no item's versions (put_by_delete()) */
typedef struct PutExtras
{
	HeapTuple  *rows;
	bool	   *add;			/* written; else removed */
	int			n;
	int			size;
} PutExtras;

/* The versions a put read and wrote: rows of t->returning */
typedef struct PutResult
{
	TupleDesc	desc;			/* of t->returning (and what follows) */
	PutExtras	x;
} PutResult;

/* adjkey's order: its bytes */
static int
key_cmp(struct varlena *a, struct varlena *b)
{
	int			la = ADJKEY_LEN(a);
	int			lb = ADJKEY_LEN(b);
	int			c = memcmp(ADJKEY_DATA(a), ADJKEY_DATA(b), Min(la, lb));

	return c != 0 ? c : (la > lb) - (la < lb);
}

static int
item_key_cmp(const PutItem *x, struct varlena *pk, struct varlena *sk)
{
	int			c = key_cmp(x->pk, pk);

	return c != 0 ? c : key_cmp(x->sk, sk);
}

static int
item_cmp(const void *a, const void *b)
{
	const PutItem *x = (const PutItem *) a;
	const PutItem *y = (const PutItem *) b;
	int			c = item_key_cmp(x, y->pk, y->sk);

	return c != 0 ? c : (x->ord > y->ord) - (x->ord < y->ord);
}

/* The items of a put: sorted by key, the last one given of each key. */
static PutItem *
put_items(Datum pks, Datum sks, Datum datas, int *nitems)
{
	Oid			keytype = adjlist_catalog()->keytype;
	Datum	   *pv;
	Datum	   *sv;
	Datum	   *dv;
	bool	   *pn;
	bool	   *sn;
	bool	   *dn;
	int			np;
	int			ns;
	int			nd;
	int			n;
	int			kept = 0;
	PutItem    *items;

	deconstruct_array(DatumGetArrayTypeP(pks), keytype, -1, false, TYPALIGN_INT, &pv, &pn, &np);
	deconstruct_array(DatumGetArrayTypeP(sks), keytype, -1, false, TYPALIGN_INT, &sv, &sn, &ns);
	deconstruct_array(DatumGetArrayTypeP(datas), JSONBOID, -1, false, TYPALIGN_INT, &dv, &dn, &nd);
	n = Min(np, Min(ns, nd));
	items = palloc0(sizeof(PutItem) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		if (pn[i] || sn[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the key of an item must not be null")));
		items[i].pk = DatumGetAdjkeyPP(pv[i]);
		items[i].sk = DatumGetAdjkeyPP(sv[i]);
		items[i].data = dv[i];
		items[i].data_null = dn[i];
		items[i].ord = i;
	}
	qsort(items, n, sizeof(PutItem), item_cmp);
	for (int i = 0; i < n; i++)
		if (i + 1 == n || item_key_cmp(&items[i + 1], items[i].pk, items[i].sk) != 0)
			items[kept++] = items[i];
	*nitems = kept;
	return items;
}

/* The item with the key of row r of tt (columns 1..: t->cols), or NULL. */
static PutItem *
put_item_of(ApiTable *t, PutItem *items, int n, SPITupleTable *tt, uint64 r)
{
	bool		pnull;
	bool		snull;
	Datum		pk = SPI_getbinval(tt->vals[r], tt->tupdesc, t->pkcol + 1, &pnull);
	Datum		sk = SPI_getbinval(tt->vals[r], tt->tupdesc, t->skcol + 1, &snull);
	int			lo = 0;
	int			hi = n - 1;

	if (pnull || snull)
		return NULL;
	while (lo <= hi)
	{
		int			mid = (lo + hi) / 2;
		int			c = item_key_cmp(&items[mid], DatumGetAdjkeyPP(pk), DatumGetAdjkeyPP(sk));

		if (c == 0)
			return &items[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

static void
put_extra(PutExtras *x, HeapTuple tup, bool add)
{
	if (x->n == x->size)
	{
		x->size = Max(16, x->size * 2);
		x->rows = x->rows ? repalloc(x->rows, sizeof(HeapTuple) * x->size) :
			palloc(sizeof(HeapTuple) * x->size);
		x->add = x->add ? repalloc(x->add, sizeof(bool) * x->size) :
			palloc(sizeof(bool) * x->size);
	}
	x->rows[x->n] = tup;
	x->add[x->n] = add;
	x->n++;
}

/* Row r of SPI_tuptable, copied out of SPI's memory; its shape kept once. */
static HeapTuple
put_keep(PutResult *res, uint64 r)
{
	if (res->desc == NULL)
		res->desc = CreateTupleDescCopy(SPI_tuptable->tupdesc);
	return SPI_copytuple(SPI_tuptable->vals[r]);
}

/* The values of t->cols in a row kept by put_keep(). */
static void
api_tuple(ApiTable *t, TupleDesc desc, HeapTuple tup, Datum *vals, bool *nulls)
{
	for (int k = 0; k < t->ncols; k++)
		vals[k] = heap_getattr(tup, k + 1, desc, &nulls[k]);
}

/*
 * Apply what became of the items (their old and new versions) and of the
 * extra rows to the indexes, with counters.
 */
static void
put_items_apply(ApiTable *t, PutItem *items, int n, PutResult *res)
{
	PutExtras  *x = &res->x;
	ApiWriters *aw = api_writers_begin(t, n + x->n > API_FEW);
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist api row",
												 ALLOCSET_DEFAULT_SIZES);
	Datum	   *oldv = palloc(sizeof(Datum) * t->ncols);
	bool	   *oldn = palloc(sizeof(bool) * t->ncols);
	Datum	   *newv = palloc(sizeof(Datum) * t->ncols);
	bool	   *newn = palloc(sizeof(bool) * t->ncols);

	/* removals first, so that a row put again under the same key stays */
	for (int pass = 0; pass < 2 && aw->n > 0; pass++)
		for (int i = 0; i < x->n; i++)
		{
			MemoryContext old;

			if (x->add[i] != (pass == 1))
				continue;
			old = MemoryContextSwitchTo(rowcxt);
			api_tuple(t, res->desc, x->rows[i], oldv, oldn);
			api_row_apply(aw, oldv, oldn, x->add[i], true);
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
		}
	for (int i = 0; i < n && aw->n > 0; i++)
	{
		PutItem    *it = &items[i];
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		CHECK_FOR_INTERRUPTS();
		if (it->oldtup != NULL)
			api_tuple(t, res->desc, it->oldtup, oldv, oldn);
		if (it->newtup != NULL)
			api_tuple(t, res->desc, it->newtup, newv, newn);
		if (it->oldtup != NULL && it->newtup != NULL)
			api_row_replace(aw, oldv, oldn, newv, newn);
		else if (it->oldtup != NULL)
			api_row_apply(aw, oldv, oldn, false, true);
		else if (it->newtup != NULL)
			api_row_apply(aw, newv, newn, true, true);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
	api_writers_end(aw);
}

static Datum
datum_array(Datum *d, bool *nulls, int n, Oid type)
{
	int16		len;
	bool		byval;
	char		align;
	int			dims[1] = {n};
	int			lbs[1] = {1};

	get_typlenbyvalalign(type, &len, &byval, &align);
	return PointerGetDatum(construct_md_array(d, nulls, 1, dims, lbs, type, len, byval, align));
}

/*
 * Put by delete and insert, where no unique index on the key can be named
 * (or an index holds a multiset and no trigger runs): the DELETE returns
 * the old versions, for the indexes the write API keeps.  Two statements,
 * so that where triggers run each statement's triggers see one change of
 * the key (a writable CTE deleting and inserting the same key in one
 * statement trips them).  The caller holds the key locks (lock_keys()).
 */
static void
put_by_delete(ApiTable *t, PutItem *items, int n)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	const char *nsp = cat->nspname;
	Oid			types[3] = {cat->keyarraytype, cat->keyarraytype, JSONBARRAYOID};
	Datum		values[3];
	Datum	   *pk = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *sk = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nn = palloc0(sizeof(bool) * Max(n, 1));
	bool	   *dn = palloc(sizeof(bool) * Max(n, 1));
	char	   *source = psprintf("ROWS FROM (pg_catalog.unnest($1::%s.adjkey[]), pg_catalog.unnest($2::%s.adjkey[]), "
								  "pg_catalog.unnest($3::pg_catalog.jsonb[])) AS u(k, s, d)", nsp, nsp);
	PutResult	res = {0};

	for (int i = 0; i < n; i++)
	{
		pk[i] = PointerGetDatum(items[i].pk);
		sk[i] = PointerGetDatum(items[i].sk);
		d[i] = items[i].data;
		dn[i] = items[i].data_null;
	}
	values[0] = datum_array(pk, nn, n, cat->keytype);
	values[1] = datum_array(sk, nn, n, cat->keytype);
	values[2] = datum_array(d, dn, n, JSONBOID);
	/* the ANY terms let Citus prune to the shards of the keys */
	adjlist_plan_execute(adjlist_plan(psprintf("DELETE FROM %s b USING %s WHERE "
											   "b.%s OPERATOR(%s.=) ANY ($1::%s.adjkey[]) AND b.%s OPERATOR(%s.=) ANY ($2::%s.adjkey[]) "
											   "AND b.%s OPERATOR(%s.=) u.k AND b.%s OPERATOR(%s.=) u.s RETURNING %s",
											   t->qname, source, t->pk, nsp, nsp, t->sk, nsp, nsp,
											   t->pk, nsp, t->sk, nsp, t->breturning),
									  3, types),
						 values, NULL, false, 0, SPI_OK_DELETE_RETURNING);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		PutItem    *it = put_item_of(t, items, n, SPI_tuptable, r);

		/* a second row of a key: a table without a unique key may have one */
		if (it != NULL && it->oldtup == NULL)
			it->oldtup = put_keep(&res, r);
		else
			put_extra(&res.x, put_keep(&res, r), false);
	}
	SPI_freetuptable(SPI_tuptable);
	adjlist_plan_execute(adjlist_plan(psprintf("INSERT INTO %s AS b (%s, %s%s) SELECT u.k, u.s%s FROM %s "
											   "RETURNING %s",
											   t->qname, t->pk, t->sk, payload_target(t),
											   t->payload ? ", u.d" : "", source, t->returning),
									  3, types),
						 values, NULL, false, 0, SPI_OK_INSERT_RETURNING);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		PutItem    *it = put_item_of(t, items, n, SPI_tuptable, r);

		/* a row whose key a BEFORE trigger changed is no item's */
		if (it != NULL && it->newtup == NULL)
			it->newtup = put_keep(&res, r);
		else
			put_extra(&res.x, put_keep(&res, r), true);
	}
	SPI_freetuptable(SPI_tuptable);
	put_items_apply(t, items, n, &res);
}

/*
 * Put one item whose index rows may move (t->moving), where no trigger
 * runs, on a table with a unique key: read its current version, locking it
 * (SELECT ... FOR UPDATE of one key: a router query on Citus) and replace
 * it by an UPDATE; where there is none, insert it, unless a row appeared
 * meanwhile: ON CONFLICT DO UPDATE ... WHERE false, which needs the
 * privileges the upsert needs and locks that row without changing it, so
 * that a second read sees it as it stays.  A row the insert met that the
 * second read still does not see is one row-level security hides from the
 * caller: the common upsert refuses it, as it would on a local table.  In
 * REPEATABLE READ and SERIALIZABLE a row written since the snapshot makes
 * the read or the insert fail with a serialization failure, as the upsert
 * would.  Four statements at most, each on one key.
 */
typedef struct TrackedSql
{
	char	   *read;
	char	   *update;
	char	   *insert;
	char	   *upsert;
} TrackedSql;

static void
tracked_sql(ApiTable *t, TrackedSql *q)
{
	const char *nsp = adjlist_catalog()->nspname;
	char	   *where = psprintf("b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) $2",
								 t->pk, nsp, t->sk, nsp);

	q->read = psprintf("SELECT %s FROM %s b WHERE %s FOR UPDATE OF b",
					   t->breturning, t->qname, where);
	q->update = psprintf("UPDATE %s AS b SET %s WHERE %s RETURNING %s", t->qname,
						 t->payload ? psprintf("%s = $3%s", t->payload, t->default_list) :
						 t->default_list + (t->default_list[0] ? 2 : 0),
						 where, t->returning);
	q->insert = psprintf("INSERT INTO %s AS b (%s, %s%s) VALUES ($1, $2%s) "
						 "ON CONFLICT (%s, %s) DO %s RETURNING %s",
						 t->qname, t->pk, t->sk, payload_target(t),
						 t->payload ? ", $3" : "", t->pk, t->sk,
						 t->set_list[0] ? psprintf("UPDATE SET %s WHERE false", t->set_list) :
						 "NOTHING",
						 t->returning);
	q->upsert = upsert_one_sql(t);
}

static void
put_one_tracked(ApiTable *t, const TrackedSql *q, PutItem *it, PutResult *res)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[3] = {cat->keytype, cat->keytype, JSONBOID};
	Datum		values[3] = {PointerGetDatum(it->pk), PointerGetDatum(it->sk), it->data};
	char		nulls[3] = {' ', ' ', it->data_null ? 'n' : ' '};
	int			nargs = t->payload ? 3 : 2;

	for (int round = 0; round < 2; round++)
	{
		adjlist_plan_execute(adjlist_plan(q->read, 2, types), values, nulls, false, 0, SPI_OK_SELECT);
		if (SPI_processed > 0)
		{
			it->oldtup = put_keep(res, 0);
			SPI_freetuptable(SPI_tuptable);
			if (t->set_list[0] == '\0')
			{
				it->newtup = it->oldtup;	/* nothing to set */
				return;
			}
			adjlist_plan_execute(adjlist_plan(q->update, nargs, types),
								 values, nulls, false, 0, SPI_OK_UPDATE_RETURNING);
			/* none: a BEFORE trigger skipped the row, which stays as it was */
			if (SPI_processed == 0)
				it->oldtup = NULL;
			else
				it->newtup = put_keep(res, 0);
			SPI_freetuptable(SPI_tuptable);
			return;
		}
		SPI_freetuptable(SPI_tuptable);
		if (round == 1)
			break;
		adjlist_plan_execute(adjlist_plan(q->insert, nargs, types),
							 values, nulls, false, 0, SPI_OK_INSERT_RETURNING);
		if (SPI_processed > 0)
		{
			it->newtup = put_keep(res, 0);
			SPI_freetuptable(SPI_tuptable);
			return;
		}
		SPI_freetuptable(SPI_tuptable);
	}

	/* there, locked, and not visible to the caller: the common upsert */
	adjlist_plan_execute(adjlist_plan(q->upsert, nargs, types), values, nulls, false, 0,
						 SPI_OK_INSERT_RETURNING);
	if (SPI_processed > 0)
	{
		bool		isnull;
		Datum		inserted = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
											 t->ncols + 1, &isnull);

		if (isnull || !DatumGetBool(inserted))
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to concurrent update"),
					 errdetail("An item put into table \"%s\" changed while it was read.",
							   get_rel_name(t->relid)),
					 errhint("Retry the transaction.")));
		it->newtup = put_keep(res, 0);
	}
	SPI_freetuptable(SPI_tuptable);
}

/*
 * Put rows: arrays of keys and data.  With a unique key, where triggers
 * keep the indexes or no index row of a replaced item can move, one
 * upsert (INSERT ... VALUES for one item: a router query on Citus);
 * where rows can move, put_one_tracked() item by item, in key order.
 * Without a unique key (or where an index holds a multiset and no trigger
 * runs), put_by_delete().
 */
static int64
put_rows(ApiTable *t, Datum pks, Datum sks, Datum datas)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	SPITupleTable *tt;
	uint64		n;
	bool	   *counted;
	ApiWriters *aw;
	int			flagcol;
	bool		by_delete = !t->unique_key || (t->no_triggers && t->multiset);
	int			nitems;
	PutItem    *items;

	if (by_delete)
		lock_keys(t, pks, sks);
	items = put_items(pks, sks, datas, &nitems);
	if (nitems == 0)
		return 0;
	if (by_delete)
	{
		put_by_delete(t, items, nitems);
		return nitems;
	}
	if (t->no_triggers && t->nmoving > 0)
	{
		PutResult	res = {0};
		TrackedSql	q;

		tracked_sql(t, &q);
		for (int i = 0; i < nitems; i++)
		{
			CHECK_FOR_INTERRUPTS();
			put_one_tracked(t, &q, &items[i], &res);
		}
		put_items_apply(t, items, nitems, &res);
		return nitems;
	}
	if (nitems == 1)
	{
		Oid			types[3] = {cat->keytype, cat->keytype, JSONBOID};
		Datum		values[3] = {PointerGetDatum(items[0].pk), PointerGetDatum(items[0].sk),
		items[0].data};
		char		nulls[3] = {' ', ' ', items[0].data_null ? 'n' : ' '};

		adjlist_plan_execute(adjlist_plan(upsert_one_sql(t), t->payload ? 3 : 2, types),
							 values, nulls, false, 0, SPI_OK_INSERT_RETURNING);
	}
	else
	{
		Oid			types[3] = {cat->keyarraytype, cat->keyarraytype, JSONBARRAYOID};
		Datum		values[3] = {pks, sks, datas};

		adjlist_plan_execute(adjlist_plan(upsert_sql(t), 3, types), values, NULL, false, 0,
							 SPI_OK_INSERT_RETURNING);
	}
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
	aw = api_writers_begin(t, n > API_FEW);
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
	aw = api_writers_begin(t, n > API_FEW);
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
	if (!PG_ARGISNULL(3) && t->payload == NULL)
		no_payload_column(t);
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

/*
 * The members of an element of put_edges: the two parts of the item's key
 * and its attributes.
 */
#define EDGE_PK		0
#define EDGE_SK		1
#define EDGE_DATA	2
#define EDGE_ROLES	3

static const char *const edge_role_what[EDGE_ROLES] = {"partition key", "sort key", "data"};

/*
 * The names a member of each role may have: the table's column (the key
 * columns, the payload column) and put_edge's parameter (pk, sk, data).
 */
static void
edge_role_names(ApiTable *t, const char *names[EDGE_ROLES][2])
{
	names[EDGE_PK][0] = t->pkname;
	names[EDGE_PK][1] = "pk";
	names[EDGE_SK][0] = t->skname;
	names[EDGE_SK][1] = "sk";
	names[EDGE_DATA][0] = t->payload_name;
	names[EDGE_DATA][1] = "data";
}

static bool
name_is(const char *name, int len, const char *s, bool anycase)
{
	return (int) strlen(s) == len &&
		(anycase ? pg_strncasecmp(name, s, len) == 0 : memcmp(name, s, len) == 0);
}

/* "pk" or "source" (or "pk"): the names of a role, for messages */
static char *
edge_role_spelling(const char *names[EDGE_ROLES][2], int role)
{
	if (strcmp(names[role][0], names[role][1]) == 0)
		return psprintf("\"%s\"", names[role][0]);
	return psprintf("\"%s\" (or \"%s\")", names[role][0], names[role][1]);
}

/*
 * The role of the member called name (len bytes) of element elem of
 * put_edges.  First a column's name as it is, then a parameter's name as
 * it is, then either in any ASCII case ("PK", "Sk", "Data", "SOURCE").  A
 * name that matches none is refused (22023), and so is one that matches
 * the names of two roles in another case: its role is not clear.
 */
static int
edge_member_role(const char *names[EDGE_ROLES][2], const char *name, int len, int64 elem)
{
	static const char *const kind[2] = {"column", "parameter"};
	int			found = -1;
	int			fpass = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < EDGE_ROLES; r++)
			if (name_is(name, len, names[r][pass], false))
				return r;
	for (int r = 0; r < EDGE_ROLES; r++)
		for (int pass = 0; pass < 2; pass++)
		{
			if (!name_is(name, len, names[r][pass], true))
				continue;
			if (found >= 0 && found != r)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("member \"%s\" of element %lld of edges is ambiguous",
								pnstrdup(name, len), (long long) elem),
						 errdetail("Ignoring case, it matches the %s \"%s\" (the %s) and the %s \"%s\" (the %s).",
								   kind[fpass], names[found][fpass], edge_role_what[found],
								   kind[pass], names[r][pass], edge_role_what[r]),
						 errhint("Spell it exactly as one of them.")));
			if (found < 0)
				fpass = pass;
			found = r;
		}
	if (found < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("element %lld of edges has an unknown member \"%s\"",
						(long long) elem, pnstrdup(name, len)),
				 errdetail("The members of an element are %s, %s and %s, in any case.",
						   edge_role_spelling(names, EDGE_PK), edge_role_spelling(names, EDGE_SK),
						   edge_role_spelling(names, EDGE_DATA))));
	return found;
}

/*
 * put_edges(tbl regclass, edges jsonb) RETURNS bigint: put_edge for each
 * element of a JSON array of {"pk": ..., "sk": ..., "data": ...}, in one
 * statement; a key given twice: the last wins.  The members are named as
 * put_edge's parameters or as the table's columns (key columns, payload
 * column), in any case (edge_member_role()); an element naming a part
 * twice ("pk" and "PK") is refused.
 */
Datum
adjlist_put_edges(PG_FUNCTION_ARGS)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Jsonb	   *edges;
	ApiTable   *t;
	const char *names[EDGE_ROLES][2];
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
	edge_role_names(t, names);
	pks = initArrayResult(cat->keytype, CurrentMemoryContext, false);
	sks = initArrayResult(cat->keytype, CurrentMemoryContext, false);
	datas = initArrayResult(JSONBOID, CurrentMemoryContext, false);
	it = JsonbIteratorInit(&edges->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		JsonbValue	member[EDGE_ROLES];
		char	   *given[EDGE_ROLES] = {NULL, NULL, NULL};
		JsonbIterator *mit;
		JsonbValue	m;
		JsonbIteratorToken mtok;
		int			role = -1;
		JsonbValue *d;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("element %lld of edges is not a JSON object", (long long) n + 1)));
		mit = JsonbIteratorInit(v.val.binary.data);
		while ((mtok = JsonbIteratorNext(&mit, &m, true)) != WJB_DONE)
		{
			if (mtok == WJB_KEY)
			{
				role = edge_member_role(names, m.val.string.val, m.val.string.len, n + 1);
				if (given[role] != NULL)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("element %lld of edges gives its %s twice, as \"%s\" and \"%s\"",
									(long long) n + 1, edge_role_what[role], given[role],
									pnstrdup(m.val.string.val, m.val.string.len))));
				given[role] = pnstrdup(m.val.string.val, m.val.string.len);
			}
			else if (mtok == WJB_VALUE)
				member[role] = m;
		}
		for (role = EDGE_PK; role <= EDGE_SK; role++)
		{
			JsonbValue *k = given[role] ? &member[role] : NULL;

			if (k == NULL || k->type != jbvString)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("element %lld of edges has no string \"%s\"", (long long) n + 1,
								names[role][0])));
			accumArrayResult(role == EDGE_PK ? pks : sks,
							 PointerGetDatum(adjkey_from_server(k->val.string.val, k->val.string.len, NULL)),
							 false, cat->keytype, CurrentMemoryContext);
		}
		d = given[EDGE_DATA] && member[EDGE_DATA].type != jbvNull ? &member[EDGE_DATA] : NULL;
		if (d != NULL && t->payload == NULL)
			no_payload_column(t);
		accumArrayResult(datas, d == NULL ? (Datum) 0 : JsonbPGetDatum(JsonbValueToJsonb(d)),
						 d == NULL, JSONBOID, CurrentMemoryContext);
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
cond_expected(ApiTable *t, int param)
{
	Assert(t->payload != NULL);
	return psprintf("COALESCE(b.%s, '{}'::pg_catalog.jsonb) OPERATOR(pg_catalog.@>) $%d",
					t->payload, param);
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
	const char *target = psprintf("%s, %s%s", t->pk, t->sk, payload_target(t));
	const char *vals = t->payload ? "$1, $2, $3" : "$1, $2";
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
	adjlist_plan_execute(adjlist_plan(sql, t->payload ? 3 : 2, types), values, nulls, false, 0,
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
	if (t->no_triggers && (t->nmoving > 0 || t->multiset))
	{
		/*
		 * An index keyed by another column (a generated one) may move, or a
		 * multiset's row is replaced by removing it: read the item's index
		 * columns first, locking it, so that its old index rows can be
		 * removed (one key: Citus runs the FOR UPDATE on its shard).
		 */
		char	   *sql = psprintf("SELECT %s, %s FROM %s b WHERE %s FOR UPDATE OF b",
								   t->returning, cond_expected(t, 4), t->qname, cond_key_where(t));
		bool		isnull;
		Datum		ok;

		adjlist_plan_execute(adjlist_plan(sql, 4, types), values, nulls, false, 0, SPI_OK_SELECT);
		oldtt = SPI_tuptable;
		if (SPI_processed == 0)
			return 0;
		ok = SPI_getbinval(oldtt->vals[0], oldtt->tupdesc, t->ncols + 1, &isnull);
		if (isnull || !DatumGetBool(ok))
			return 0;
		update = psprintf("UPDATE %s AS b SET %s = $3%s WHERE %s RETURNING %s",
						  t->qname, t->payload, t->default_list, cond_key_where(t), t->returning);
	}
	else
		update = psprintf("UPDATE %s AS b SET %s = $3%s WHERE %s AND %s RETURNING %s",
						  t->qname, t->payload, t->default_list, cond_key_where(t), cond_expected(t, 4),
						  t->returning);
	adjlist_plan_execute(adjlist_plan(update, 4, types), values, nulls, false, 0,
						 SPI_OK_UPDATE_RETURNING);
	tt = SPI_tuptable;
	n = SPI_processed;
	aw = api_writers_begin(t, false);
	if (oldtt != NULL && n == 1)
	{
		Datum	   *oldv = palloc(sizeof(Datum) * t->ncols);
		bool	   *oldn = palloc(sizeof(bool) * t->ncols);
		Datum	   *newv = palloc(sizeof(Datum) * t->ncols);
		bool	   *newn = palloc(sizeof(bool) * t->ncols);

		api_row(t, oldtt, 0, 1, oldv, oldn);
		api_row(t, tt, 0, 1, newv, newn);
		api_row_replace(aw, oldv, oldn, newv, newn);
	}
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
	return delete_rows(a->t, psprintf("%s AND %s", cond_key_where(a->t), cond_expected(a->t, 3)),
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
	if (t->payload == NULL)
		no_payload_column(t);
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
		if (a->t->payload == NULL)
			no_payload_column(a->t);
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

const char *
adjlist_api_payload(ApiTable *t)
{
	return t->payload ? t->payload_name : NULL;
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
