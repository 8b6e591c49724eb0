/*-------------------------------------------------------------------------
 *
 * write_api_put.c
 *	  The statements of a put and a delete: the upserts, the key lock of a
 *	  table without a unique key, and the puts that need the old versions
 *	  of the items they replace (moving index keys: put_one_tracked(); no
 *	  unique key: put_by_delete()) or must tell new items from replaced
 *	  ones without xmax (a partitioned table: put_insert_update()).  See
 *	  write_api.c for how the files fit.
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
 * The statements
 * ----------------------------------------------------------------------
 */

/* ", <payload column>" to follow the key in a target list, or "" */
const char *
payload_target(ApiTable *t)
{
	return t->payload ? psprintf(", %s", t->payload) : "";
}

/* A table without its payload column given an item's attributes: 42703 */
void
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
 * What a put writes besides the key: the payload column and, on an import
 * (t->ttl), the expiry column.  put_cols(): ", payload, ttl" to follow the
 * key in a target list; put_vals(t, d, e): their values, d and e the
 * payload's and the expiry's spellings ("u.d" and "u.e", or "$3" and "$4");
 * put_set(t, d, e): the SET list of an UPDATE that replaces an item, every
 * other column back to its default.
 */
static const char *
put_cols(ApiTable *t)
{
	return t->ttl ? psprintf("%s, %s", payload_target(t), t->ttl) : payload_target(t);
}

static const char *
put_vals(ApiTable *t, const char *d, const char *e)
{
	return psprintf("%s%s%s%s", t->payload ? ", " : "", t->payload ? d : "",
					t->ttl ? ", " : "", t->ttl ? e : "");
}

static const char *
put_set(ApiTable *t, const char *d, const char *e)
{
	char	   *set = psprintf("%s%s%s", t->payload ? psprintf(", %s = %s", t->payload, d) : "",
							   t->default_list, t->ttl ? psprintf(", %s = %s", t->ttl, e) : "");

	return set[0] ? set + 2 : set;
}

/* The parameters of a put's statements: $1 pk, $2 sk, $3 data, $4 expiry */
static int
put_nargs(ApiTable *t)
{
	return t->ttl ? 4 : t->payload ? 3 : 2;
}

/* The types of those parameters: of one item, or arrays (put_unnest()) */
static void
put_types(ApiTable *t, bool arrays, Oid *types)
{
	const AdjlistCatalog *cat = adjlist_catalog();

	types[0] = types[1] = arrays ? cat->keyarraytype : cat->keytype;
	types[2] = arrays ? JSONBARRAYOID : JSONBOID;
	types[3] = !t->ttl ? InvalidOid : arrays ? get_array_type(t->ttl_type) : t->ttl_type;
}

/*
 * Whether an upsert inserted its row (xmax 0), which the counters the
 * write API keeps need (where no trigger runs); elsewhere the triggers
 * count, and a constant will do.  A partitioned table cannot return a
 * system column (nor can Citus's shard of one): where no trigger runs, a
 * put into it inserts and updates in separate statements
 * (put_insert_update()), and the only upsert left, put_one_tracked()'s
 * last resort on a row it holds locked, cannot insert: false.
 */
static const char *
inserted_flag(ApiTable *t)
{
	if (!t->no_triggers)
		return "true";
	return t->partitioned ? "false" : "(b.xmax OPERATOR(pg_catalog.=) 0)";
}

/*
 * The unnested arrays $1 (pk), $2 (sk), $3 (data) and on an import $4
 * (expiry), as u(k, s, d[, e]) followed by tail.
 */
static char *
put_unnest(ApiTable *t, const char *tail)
{
	const char *nsp = adjlist_catalog()->nspname;

	return psprintf("ROWS FROM (pg_catalog.unnest($1::%s.adjkey[]), pg_catalog.unnest($2::%s.adjkey[]), "
					"pg_catalog.unnest($3::pg_catalog.jsonb[])%s%s%s)%s AS u(k, s, d%s%s)",
					nsp, nsp, t->ttl ? ", pg_catalog.unnest($4::" : "",
					t->ttl ? adjlist_type_sql(get_array_type(t->ttl_type)) : "",
					t->ttl ? ")" : "", tail[0] ? " WITH ORDINALITY" : "",
					t->ttl ? ", e" : "", tail);
}

/*
 * Upsert rows given as arrays $1 (pk), $2 (sk), $3 (the payload) and $4
 * (an import's expiries) into the base table (one with a unique key),
 * returning what each index needs and whether the row is new.
 */
static char *
upsert_sql(ApiTable *t)
{
	char	   *source = psprintf("SELECT DISTINCT ON (u.k, u.s) u.k, u.s%s FROM %s "
								  "ORDER BY u.k, u.s, u.o DESC",
								  put_vals(t, "u.d", "u.e"), put_unnest(t, ", o"));
	char	   *target = psprintf("%s, %s%s", t->pk, t->sk, put_cols(t));

	Assert(t->unique_key);
	return psprintf("INSERT INTO %s AS b (%s) %s ON CONFLICT (%s, %s) DO %s "
					"RETURNING %s, %s",
					t->qname, target, source, t->pk, t->sk,
					t->set_list[0] ? psprintf("UPDATE SET %s", t->set_list) : "NOTHING",
					t->returning, inserted_flag(t));
}

/* The same for one item: $1 (pk), $2 (sk)[, $3 (data)][, $4], as VALUES */
static char *
upsert_one_sql(ApiTable *t)
{
	Assert(t->unique_key);
	return psprintf("INSERT INTO %s AS b (%s, %s%s) VALUES ($1, $2%s) ON CONFLICT (%s, %s) DO %s "
					"RETURNING %s, %s",
					t->qname, t->pk, t->sk, put_cols(t),
					put_vals(t, "$3", "$4"), t->pk, t->sk,
					t->set_list[0] ? psprintf("UPDATE SET %s", t->set_list) : "NOTHING",
					t->returning, inserted_flag(t));
}

/* upsert_one_sql() without RETURNING, where it is implied (put_one_kept()) */
static char *
upsert_bare_sql(ApiTable *t)
{
	Assert(t->unique_key && t->set_list[0]);
	return psprintf("INSERT INTO %s AS b (%s, %s%s) VALUES ($1, $2%s) ON CONFLICT (%s, %s) DO "
					"UPDATE SET %s",
					t->qname, t->pk, t->sk, put_cols(t),
					put_vals(t, "$3", "$4"), t->pk, t->sk, t->set_list);
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
void
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
	Datum		ttl;			/* an import's expiry (t->ttl) */
	bool		ttl_null;
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

/*
 * The items of a put: sorted by key, the last one given of each key.  Each
 * sort key keeps DynamoDB's limit, on any table the write API writes,
 * indexed or not (partition keys keep it as adjkeys).
 */
static PutItem *
put_items(ApiTable *t, Datum pks, Datum sks, Datum datas, Datum ttls, int *nitems)
{
	Oid			keytype = adjlist_catalog()->keytype;
	Datum	   *pv;
	Datum	   *sv;
	Datum	   *dv;
	bool	   *pn;
	bool	   *sn;
	bool	   *dn;
	Datum	   *ev = NULL;
	bool	   *en = NULL;
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
	if (t->ttl != NULL)
	{
		int16		len;
		bool		byval;
		char		align;
		int			ne;

		get_typlenbyvalalign(t->ttl_type, &len, &byval, &align);
		deconstruct_array(DatumGetArrayTypeP(ttls), t->ttl_type, len, byval, align, &ev, &en, &ne);
		n = Min(n, ne);
	}
	items = palloc0(sizeof(PutItem) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		if (pn[i] || sn[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("the key of an item must not be null")));
		check_base_sort_key(t->relid, t->skname, sv[i]);
		items[i].pk = DatumGetAdjkeyPP(pv[i]);
		items[i].sk = DatumGetAdjkeyPP(sv[i]);
		items[i].data = dv[i];
		items[i].data_null = dn[i];
		items[i].ttl = ev ? ev[i] : (Datum) 0;
		items[i].ttl_null = ev ? en[i] : true;
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
	for (int pass = 0; pass < 2 && api_writers_any(aw); pass++)
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
	for (int i = 0; i < n && api_writers_any(aw); i++)
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
/*
 * The arrays $1 (pk), $2 (sk), $3 (data) and on an import $4 (expiry) of
 * the items that pick[] selects (of every item: NULL), and what they select
 * when unnested: u(k, s, d[, e]).  Returns how many were picked.
 */
static int
items_arrays(ApiTable *t, PutItem *items, int n, const bool *pick, Datum *values,
			 char **source)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Datum	   *pk = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *sk = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *d = palloc(sizeof(Datum) * Max(n, 1));
	Datum	   *e = palloc(sizeof(Datum) * Max(n, 1));
	bool	   *nn = palloc0(sizeof(bool) * Max(n, 1));
	bool	   *dn = palloc(sizeof(bool) * Max(n, 1));
	bool	   *en = palloc(sizeof(bool) * Max(n, 1));
	int			m = 0;

	for (int i = 0; i < n; i++)
	{
		if (pick != NULL && !pick[i])
			continue;
		pk[m] = PointerGetDatum(items[i].pk);
		sk[m] = PointerGetDatum(items[i].sk);
		d[m] = items[i].data;
		dn[m] = items[i].data_null;
		e[m] = items[i].ttl;
		en[m] = items[i].ttl_null;
		m++;
	}
	values[0] = datum_array(pk, nn, m, cat->keytype);
	values[1] = datum_array(sk, nn, m, cat->keytype);
	values[2] = datum_array(d, dn, m, JSONBOID);
	values[3] = t->ttl ? datum_array(e, en, m, t->ttl_type) : (Datum) 0;
	*source = put_unnest(t, "");
	return m;
}

static void
put_by_delete(ApiTable *t, PutItem *items, int n)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	const char *nsp = cat->nspname;
	Oid			types[4];
	Datum		values[4];
	char	   *source;
	PutResult	res = {0};

	put_types(t, true, types);
	(void) items_arrays(t, items, n, NULL, values, &source);
	/* the ANY terms let Citus prune to the shards of the keys */
	adjlist_plan_execute(adjlist_plan(psprintf("DELETE FROM %s b USING %s WHERE "
											   "b.%s OPERATOR(%s.=) ANY ($1::%s.adjkey[]) AND b.%s OPERATOR(%s.=) ANY ($2::%s.adjkey[]) "
											   "AND b.%s OPERATOR(%s.=) u.k AND b.%s OPERATOR(%s.=) u.s RETURNING %s",
											   t->qname, source, t->pk, nsp, nsp, t->sk, nsp, nsp,
											   t->pk, nsp, t->sk, nsp, t->breturning),
									  t->ttl ? 4 : 3, types),
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
											   t->qname, t->pk, t->sk, put_cols(t),
											   put_vals(t, "u.d", "u.e"), source, t->returning),
									  t->ttl ? 4 : 3, types),
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
 * runs, on a table with a unique key: insert it, unless a row has its key:
 * ON CONFLICT DO UPDATE ... WHERE false, which needs the privileges the
 * upsert needs and locks that row without changing it (DO NOTHING, where
 * there is nothing to set, locks nothing: the read below locks it).  Only
 * then read its current version, locking it (SELECT ... FOR UPDATE of one
 * key: a router query on Citus), and replace it by an UPDATE; a row gone
 * meanwhile is inserted again, once.  Inserting first keeps a new item
 * from being read: in SERIALIZABLE, a read that finds no row takes a
 * predicate lock on the key's place in the btree, so two transactions
 * putting different new items on one node would fail (40001) where the
 * upserts alone commit.  A row the insert met that the read still does
 * not see is one row-level security hides from the caller: the common
 * upsert refuses it, as it would on a local table.  In REPEATABLE READ and
 * SERIALIZABLE a row written since the snapshot makes the insert or the
 * read fail with a serialization failure, as the upsert would.  One
 * statement for a new item, three for a replaced one, five at most, each
 * on one key.
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
						 put_set(t, "$3", "$4"), where, t->returning);
	q->insert = psprintf("INSERT INTO %s AS b (%s, %s%s) VALUES ($1, $2%s) "
						 "ON CONFLICT (%s, %s) DO %s RETURNING %s",
						 t->qname, t->pk, t->sk, put_cols(t),
						 put_vals(t, "$3", "$4"), t->pk, t->sk,
						 t->set_list[0] ? psprintf("UPDATE SET %s WHERE false", t->set_list) :
						 "NOTHING",
						 t->returning);
	q->upsert = upsert_one_sql(t);
}

/* The parameters of one item's statements (put_nargs()) */
static void
item_params(ApiTable *t, PutItem *it, Oid *types, Datum *values, char *nulls)
{
	put_types(t, false, types);
	values[0] = PointerGetDatum(it->pk);
	values[1] = PointerGetDatum(it->sk);
	values[2] = it->data;
	values[3] = it->ttl;
	nulls[0] = nulls[1] = ' ';
	nulls[2] = it->data_null ? 'n' : ' ';
	nulls[3] = it->ttl_null ? 'n' : ' ';
}

/*
 * The last resort of a put of one item that is there, locked by the put,
 * and that its read or UPDATE did not see: the common upsert, which
 * refuses the row if row-level security hides it from the caller, as it
 * would on a local table (and writes nothing if a BEFORE UPDATE trigger
 * skips it).  A row it replaced changed while it was read.
 */
static void
put_one_upsert(ApiTable *t, const TrackedSql *q, PutItem *it, PutResult *res)
{
	Oid			types[4];
	Datum		values[4];
	char		nulls[4];

	item_params(t, it, types, values, nulls);

	adjlist_plan_execute(adjlist_plan(q->upsert, put_nargs(t), types), values, nulls,
						 false, 0, SPI_OK_INSERT_RETURNING);
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

static void
put_one_tracked(ApiTable *t, const TrackedSql *q, PutItem *it, PutResult *res)
{
	Oid			types[4];
	Datum		values[4];
	char		nulls[4];
	int			nargs = put_nargs(t);

	item_params(t, it, types, values, nulls);

	for (int round = 0; round < 2; round++)
	{
		/* a new item: inserted, nothing read (see above) */
		adjlist_plan_execute(adjlist_plan(q->insert, nargs, types),
							 values, nulls, false, 0, SPI_OK_INSERT_RETURNING);
		if (SPI_processed > 0)
		{
			it->newtup = put_keep(res, 0);
			SPI_freetuptable(SPI_tuptable);
			return;
		}
		SPI_freetuptable(SPI_tuptable);
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
	}

	put_one_upsert(t, q, it, res);
}

/*
 * Run sql (a statement of t->returning rows) with one item's $1 (pk), $2
 * (sk) and, if the table has a payload column, $3 (data).
 */
static void
put_one_exec(ApiTable *t, const char *sql, PutItem *it, int expected)
{
	Oid			types[4];
	Datum		values[4];
	char		nulls[4];

	item_params(t, it, types, values, nulls);

	adjlist_plan_execute(adjlist_plan(sql, put_nargs(t), types), values, nulls, false, 0,
						 expected);
}

/*
 * Keep the rows a put statement returned: each as the new version of its
 * item, and as the old one too where replaced (the item's index keys
 * cannot move: its index rows are upserted, its counters stay); a row
 * that is no item's (a BEFORE trigger changed its key) as an extra row.
 */
static void
put_keep_rows(ApiTable *t, PutItem *items, int n, PutResult *res, bool replaced)
{
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		PutItem    *it = put_item_of(t, items, n, SPI_tuptable, r);

		if (it != NULL && it->newtup == NULL)
		{
			it->newtup = put_keep(res, r);
			if (replaced)
				it->oldtup = it->newtup;
		}
		else
			put_extra(&res->x, put_keep(res, r), true);
	}
	SPI_freetuptable(SPI_tuptable);
}

/*
 * Put one item into a partitioned table where no trigger runs: insert it
 * unless its row is there, which is then locked, unchanged (ON CONFLICT
 * ... DO UPDATE ... WHERE false), and replace that row by an UPDATE, which
 * the lock keeps from missing it; a row the UPDATE does not see takes the
 * common upsert (put_one_upsert()).  Each statement names the key: router
 * queries on Citus.
 */
static void
put_one_insert_update(ApiTable *t, const TrackedSql *q, PutItem *items, int n, int i,
					  PutResult *res)
{
	put_one_exec(t, q->insert, &items[i], SPI_OK_INSERT_RETURNING);
	put_keep_rows(t, items, n, res, false);
	if (items[i].newtup != NULL || t->set_list[0] == '\0')
		return;
	put_one_exec(t, q->update, &items[i], SPI_OK_UPDATE_RETURNING);
	put_keep_rows(t, items, n, res, true);
	if (items[i].newtup == NULL)
		put_one_upsert(t, q, &items[i], res);
}

/*
 * Put into a partitioned table where no trigger runs, whose index keys
 * cannot move (put_rows()).  Its upsert cannot tell the rows it inserted
 * (counted) from those it replaced (not counted): a partitioned table
 * cannot return xmax, nor can Citus's shards of one.  So the inserts and
 * the replacements are separate statements.  One item:
 * put_one_insert_update(), one statement for a new item, two for a
 * replaced one.  More: one insert of them all that locks the rows already
 * there without changing them, returning the rows it inserted, then one
 * UPDATE of the others returning those it replaced, each over the
 * unnested arrays; the insert is read through a CTE because Citus counts
 * the rows an INSERT ... SELECT ... ON CONFLICT tried, not those it
 * returned, which SPI refuses.  Any item neither wrote (row-level security
 * hides its row from the UPDATE, or a trigger skipped it) takes
 * put_one_insert_update().  Without columns to set, an item that is there
 * stays as it is, as the upsert's DO NOTHING leaves it.
 */
static void
put_insert_update(ApiTable *t, PutItem *items, int n)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	const char *nsp = cat->nspname;
	Oid			types[4];
	Datum		values[4];
	int			nargs = t->ttl ? 4 : 3;
	char	   *source;
	bool	   *left = palloc(sizeof(bool) * n);
	TrackedSql	q;
	PutResult	res = {0};

	put_types(t, true, types);
	tracked_sql(t, &q);
	if (n > 1)
	{
		(void) items_arrays(t, items, n, NULL, values, &source);
		adjlist_plan_execute(adjlist_plan(psprintf("WITH w AS (INSERT INTO %s AS b (%s, %s%s) SELECT u.k, u.s%s FROM %s "
												   "ON CONFLICT (%s, %s) DO %s RETURNING %s) SELECT * FROM w",
												   t->qname, t->pk, t->sk, put_cols(t),
												   put_vals(t, "u.d", "u.e"), source, t->pk, t->sk,
												   t->set_list[0] ? psprintf("UPDATE SET %s WHERE false", t->set_list) :
												   "NOTHING", t->returning),
										  nargs, types),
							 values, NULL, false, 0, SPI_OK_SELECT);
		put_keep_rows(t, items, n, &res, false);
		for (int i = 0; i < n; i++)
			left[i] = items[i].newtup == NULL;
		if (t->set_list[0] != '\0' && items_arrays(t, items, n, left, values, &source) > 0)
		{
			adjlist_plan_execute(adjlist_plan(psprintf("UPDATE %s AS b SET %s FROM %s WHERE "
													   "b.%s OPERATOR(%s.=) ANY ($1::%s.adjkey[]) AND b.%s OPERATOR(%s.=) ANY ($2::%s.adjkey[]) "
													   "AND b.%s OPERATOR(%s.=) u.k AND b.%s OPERATOR(%s.=) u.s RETURNING %s",
													   t->qname, put_set(t, "u.d", "u.e"),
													   source, t->pk, nsp, nsp, t->sk, nsp, nsp,
													   t->pk, nsp, t->sk, nsp, t->breturning),
											  nargs, types),
								 values, NULL, false, 0, SPI_OK_UPDATE_RETURNING);
			put_keep_rows(t, items, n, &res, true);
		}
	}
	for (int i = 0; i < n; i++)
		if (items[i].newtup == NULL && (n == 1 || t->set_list[0] != '\0'))
		{
			CHECK_FOR_INTERRUPTS();
			put_one_insert_update(t, &q, items, n, i, &res);
		}
	put_items_apply(t, items, n, &res);
}

/*
 * Put rows: arrays of keys and data.  With a unique key, where triggers
 * keep the indexes or no index row of a replaced item can move, one
 * upsert (INSERT ... VALUES for one item: a router query on Citus), or on
 * a partitioned table where no trigger runs put_insert_update(); where
 * rows can move, put_one_tracked() item by item, in key order.
 * Without a unique key (or where an index holds a multiset and no trigger
 * runs), put_by_delete().
 */
int64
put_rows(ApiTable *t, Datum pks, Datum sks, Datum datas, Datum ttls)
{
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
	items = put_items(t, pks, sks, datas, ttls, &nitems);
	if (nitems == 0)
		return 0;
	if (by_delete)
	{
		put_by_delete(t, items, nitems);
		return nitems;
	}
	if (t->no_triggers && t->partitioned && t->nmoving == 0)
	{
		put_insert_update(t, items, nitems);
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
		Oid			types[4];
		Datum		values[4];
		char		nulls[4];

		item_params(t, &items[0], types, values, nulls);
		if (t->upsert_one == NULL)
			t->upsert_one = api_table_keep(t, upsert_one_sql(t));
		adjlist_plan_execute(adjlist_plan_ref(&t->upsert_plan, t->upsert_one, put_nargs(t), types),
							 values, nulls, false, 0, SPI_OK_INSERT_RETURNING);
	}
	else
	{
		Oid			types[4];
		Datum		values[4] = {pks, sks, datas, ttls};

		put_types(t, true, types);
		adjlist_plan_execute(adjlist_plan(upsert_sql(t), t->ttl ? 4 : 3, types),
							 values, NULL, false, 0, SPI_OK_INSERT_RETURNING);
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

/*
 * put_edge where put_rows() would run the upsert of one item and write no
 * index row itself: a table with a unique key whose indexes the triggers
 * keep, and no expiry to write.
 */
bool
put_one_kept_ok(const ApiTable *t)
{
	return t->unique_key && !t->no_triggers && t->ttl == NULL;
}

/*
 * That put, without put_rows()'s arrays, item sorting and index writers
 * (a tenth of a put_edge's instructions): the same upsert with the same
 * parameters, detoasted as the arrays did.  Its RETURNING, whose rows no
 * index writer reads here, is left out where the upsert asks for all it
 * asks of the caller anyway (t->returning_implied: SELECT on the columns,
 * the SELECT policies; README, The write API); elsewhere it stays, its
 * rows not kept (adjlist_plan_execute_discard()).
 */
void
put_one_kept(ApiTable *t, Oid keytype, Datum pk, Datum sk, Datum data, bool data_null)
{
	Oid			types[3] = {keytype, keytype, JSONBOID};
	Datum		values[3];
	char		nulls[3] = {' ', ' ', data_null ? 'n' : ' '};

	Assert(put_one_kept_ok(t));
	values[0] = PointerGetDatum(PG_DETOAST_DATUM(pk));
	values[1] = PointerGetDatum(PG_DETOAST_DATUM(sk));
	values[2] = data_null ? (Datum) 0 : PointerGetDatum(PG_DETOAST_DATUM(data));
	check_base_sort_key(t->relid, t->skname, values[1]);
	if (t->returning_implied)
	{
		if (t->upsert_bare == NULL)
			t->upsert_bare = api_table_keep(t, upsert_bare_sql(t));
		adjlist_plan_execute(adjlist_plan_ref(&t->upsert_bare_plan, t->upsert_bare, put_nargs(t),
											  types),
							 values, nulls, false, 0, SPI_OK_INSERT);
		return;
	}
	if (t->upsert_one == NULL)
		t->upsert_one = api_table_keep(t, upsert_one_sql(t));
	adjlist_plan_execute_discard(adjlist_plan_ref(&t->upsert_plan, t->upsert_one, put_nargs(t),
												  types),
								 values, nulls, SPI_OK_INSERT_RETURNING);
}

/* Delete the base rows a condition selects, and their index rows. */
int64
delete_rows(ApiTable *t, const char *where, int nargs, Oid *types, Datum *values)
{
	return delete_rows_sql(t, psprintf("DELETE FROM %s b WHERE %s RETURNING %s",
									   t->qname, where, t->returning),
						   nargs, types, values);
}

/* The same with the statement given: DELETE ... RETURNING t->returning */
int64
delete_rows_sql(ApiTable *t, const char *sql, int nargs, Oid *types, Datum *values)
{
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
