/*-------------------------------------------------------------------------
 *
 * query_table.c
 *	  The key of a table that query(), query_count(), query_count_page(),
 *	  explain_query(), batch_get() and export_dynamodb() read, and the
 *	  statements query() runs on it, cached per session.
 *
 * What a call needs of its table (key columns and types, the ordering
 * operators of each, write shards and readiness of an index table, whether
 * adjlist keeps its keys within DynamoDB's limits, the time-to-live
 * condition) comes from the catalogs, the registry and the
 * table options; graph_dynamo_query.c turns it into SQL once per shape of
 * call, and the text is remembered here with the table.  The plan of that
 * text is saved by plan_cache.c, prepared as the role that runs it.
 *
 * Invalidation.  The caller's table is locked before its entry is read,
 * which processes the invalidations other sessions committed.  An entry is
 * stale after a relcache invalidation of its table, of the base table whose
 * options it applies, of the registry or of the options table (every write
 * of those sends one), and after any change of a schema (a rename changes
 * the qualified name in its statements) or of an operator class; the next
 * use builds it again (its memory freed).  Privileges are not cached: the
 * caller's right to read the table is checked on every call, and the plans
 * are keyed by role.
 *
 * Callers get a copy.  A call keeps its table while user code runs (the
 * input function of a key column's type, a domain's CHECK, a policy), and
 * that code may invalidate the entry and call query() again, or fill the
 * cache to its bound: either frees the entry's memory.  So nothing outside
 * this file holds a pointer into an entry; the statements remembered with
 * it are looked up again by the build number the copy carries.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/relation.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_index.h"
#include "commands/defrem.h"
#include "storage/lmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "adjlist.h"
#include "catalog.h"
#include "graph.h"
#include "query_table.h"
#include "registry.h"
#include "rel_cache.h"
#include "table_options.h"

#define QUERY_CACHE_MAX 256

typedef struct QueryEntry
{
	RelCacheEntry head;			/* its cxt owns q, sql and what they point to */
	bool		ready;			/* false: an index table being built */
	uint64		build;			/* which build q is (0: none) */
	QueryTable *q;
	char	   *sql[QUERY_SHAPES];	/* statements built so far, or NULL */
} QueryEntry;

static RelCache query_cache = REL_CACHE_INIT("adjlist query tables", QueryEntry,
											 QUERY_CACHE_MAX, NULL);

/* Builds so far in this backend: numbers every build of an entry. */
static uint64 query_builds = 0;

void
query_table_relcache_invalidate(Oid relid)
{
	HASH_SEQ_STATUS status;
	QueryEntry *e;
	bool		all;

	if (query_cache.hash == NULL)
		return;
	all = !OidIsValid(relid) || relid == adjlist_registry_oid_if_loaded() ||
		relid == adjlist_options_oid_if_loaded();
	hash_seq_init(&status, query_cache.hash);
	while ((e = (QueryEntry *) hash_seq_search(&status)) != NULL)
		if (all || e->head.relid == relid || (e->q != NULL && e->q->optrel == relid))
			e->head.valid = false;
}

/*
 * Key column i's btree operator family and the input type of its operator
 * class: opclass, the primary key index's (the order its rows are in),
 * else, without an index, the type's default class as the type cache finds
 * it.  That input type is often not the column's own: text for a varchar
 * column (text_ops), the base type for a domain, a pseudo-type (anyenum,
 * anyarray, record) for the classes of all enums, arrays or composites.
 * The family's operators are declared on it, so that is the type they are
 * looked up by, as core does for an index key (rd_opfamily, rd_opcintype).
 */
static void
key_opclass(QueryTable *q, int i, Oid opclass)
{
	TypeCacheEntry *tce;

	if (OidIsValid(opclass))
	{
		q->opfamilies[i] = get_opclass_family(opclass);
		q->opcintypes[i] = get_opclass_input_type(opclass);
		return;
	}
	tce = lookup_type_cache(q->types[i], TYPECACHE_BTREE_OPFAMILY);
	if (!OidIsValid(tce->btree_opf))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("data type %s has no default operator class for access method \"btree\"",
						format_type_be(q->types[i]))));
	q->opfamilies[i] = tce->btree_opf;
	q->opcintypes[i] = tce->btree_opintype;
}

/* OPERATOR(schema.op) of strategy in key column i's family. */
static char *
btree_operator_sql(QueryTable *q, int i, int strategy)
{
	Oid			type = q->opcintypes[i];
	Oid			op = get_opfamily_member(q->opfamilies[i], type, type, strategy);

	if (!OidIsValid(op))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("the btree operator family of key column \"%s\" has no operator of strategy %d for type %s",
						q->cols[i], strategy, format_type_be(type)),
				 errdetail("query() orders and pages a partition by its key columns, with the operators of their operator classes.")));
	return adjlist_operator_sql(op);
}

/*
 * The cast that gives key column i's values the input type of its
 * operators, as core's generate_operator_clause() adds one, so that the
 * operator named is the one that applies (varchar: ::pg_catalog.text, a
 * domain: its base type); none when that is the column's type or a
 * pseudo-type (anyenum, anyarray, record: the operator takes the actual
 * type, and casting to it would change nothing).
 */
static char *
key_cast_sql(QueryTable *q, int i)
{
	Oid			type = q->opcintypes[i];

	if (type == q->types[i] || get_typtype(type) == TYPTYPE_PSEUDO)
		return "";
	return psprintf("::%s", adjlist_type_sql(type));
}

/*
 * The key columns: the primary key, else the registered key.  Returns the
 * primary key index's operator classes, or NULL when there is none.
 */
static Oid *
key_of(QueryTable *q, Relation rel, IndexDef *ix)
{
	Oid			relid = q->relid;
	Oid			pk = adjlist_primary_key_index(rel);
	Oid		   *opclasses = NULL;

	if (OidIsValid(pk))
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pk));
		Form_pg_index idx;
		oidvector  *indclass;
		bool		isnull;

		if (!HeapTupleIsValid(tp))
			elog(ERROR, "cache lookup failed for index %u", pk);
		idx = (Form_pg_index) GETSTRUCT(tp);
		indclass = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, tp,
																 Anum_pg_index_indclass,
																 &isnull));
		Assert(!isnull);
		q->ncols = idx->indnkeyatts;
		q->cols = palloc(sizeof(char *) * q->ncols);
		q->types = palloc(sizeof(Oid) * q->ncols);
		opclasses = palloc(sizeof(Oid) * q->ncols);
		for (int i = 0; i < q->ncols; i++)
		{
			q->cols[i] = get_attname(relid, idx->indkey.values[i], false);
			q->types[i] = get_atttype(relid, idx->indkey.values[i]);
			opclasses[i] = indclass->values[i];
		}
		ReleaseSysCache(tp);
	}
	else if (ix != NULL)
	{
		/* an index table that can have no primary key (foreign partitions) */
		q->ncols = ix->nkeys;
		q->cols = ix->colnames;
		q->types = palloc(sizeof(Oid) * q->ncols);
		for (int i = 0; i < q->ncols; i++)
			q->types[i] = get_atttype(relid, get_attnum(relid, ix->colnames[i]));
	}
	else
	{
		/* a base table without one, keyed by the key it was registered with */
		TableIndexes *ti = registry_lookup_unchecked(relid);

		if (ti->nindexes > 0 && ti->baserel == relid)
		{
			q->ncols = ti->indexes[0].nbasekey;
			q->cols = ti->indexes[0].base_key;
			q->types = palloc(sizeof(Oid) * q->ncols);
			for (int i = 0; i < q->ncols; i++)
				q->types[i] = get_atttype(relid, get_attnum(relid, q->cols[i]));
		}
	}
	return opclasses;
}

/*
 * t.col for a jsonb object's value: adjkey columns as text.  Both are the
 * same JSON string (adjkey's output is its text), but jsonb_build_object()
 * and to_jsonb() look a type that is not built in up in pg_cast (is there
 * a cast to json?) for every value of every row, and text they know.
 */
static void
append_json_value(StringInfo s, const char *col, Oid type, Oid keytype)
{
	appendStringInfo(s, "t.%s%s", quote_identifier(col),
					 type == keytype ? "::pg_catalog.text" : "");
}

/*
 * The item (every column of t, as to_jsonb(t) gives it: the same object,
 * whose key order jsonb normalizes) and its key, as SQL over t.
 */
static void
json_sql(QueryTable *q, Relation rel, Oid keytype)
{
	TupleDesc	desc = RelationGetDescr(rel);
	StringInfoData s;
	int			n = 0;

	for (int i = 0; i < desc->natts; i++)
		if (!TupleDescAttr(desc, i)->attisdropped)
			n++;
	initStringInfo(&s);
	if (n == 0 || n * 2 > FUNC_MAX_ARGS)
		appendStringInfoString(&s, "pg_catalog.to_jsonb(t)");
	else
	{
		appendStringInfoString(&s, "pg_catalog.jsonb_build_object(");
		n = 0;
		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (att->attisdropped)
				continue;
			appendStringInfo(&s, "%s%s, ", n++ ? ", " : "",
							 quote_literal_cstr(NameStr(att->attname)));
			append_json_value(&s, NameStr(att->attname), att->atttypid, keytype);
		}
		appendStringInfoChar(&s, ')');
	}
	q->item_sql = s.data;
	initStringInfo(&s);
	appendStringInfoString(&s, "pg_catalog.jsonb_build_object(");
	for (int i = 0; i < q->ncols; i++)
	{
		appendStringInfo(&s, "%s%s, ", i ? ", " : "", quote_literal_cstr(q->cols[i]));
		append_json_value(&s, q->cols[i], q->types[i], keytype);
	}
	appendStringInfoChar(&s, ')');
	q->key_sql = s.data;
}

/* The entry of relid, built in the current memory context. */
static QueryTable *
query_table_build(Oid relid, bool *ready)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	QueryTable *q = palloc0(sizeof(QueryTable));
	Relation	rel;
	IndexDef   *ix;
	TableOptions *o;
	Oid		   *opclasses;

	rel = table_open(relid, NoLock);	/* locked by the caller */
	ix = registry_index(relid, false);
	q->relid = relid;
	q->qname = adjlist_qualified_name(relid);
	opclasses = key_of(q, rel, ix);
	if (q->ncols < 2 || q->types[0] != cat->keytype || q->types[1] != cat->keytype)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("table \"%s\" needs a primary key whose first two columns are adjkey",
						get_rel_name(relid)),
				 errhint("query() reads a partition by its primary key, for example PRIMARY KEY (pk, sk).")));
	json_sql(q, rel, cat->keytype);
	table_close(rel, NoLock);
	q->lt_sql = palloc0(sizeof(char *) * q->ncols);
	q->gt_sql = palloc0(sizeof(char *) * q->ncols);
	q->eq_sql = palloc0(sizeof(char *) * q->ncols);
	q->cast_sql = palloc0(sizeof(char *) * q->ncols);
	q->type_sql = palloc0(sizeof(char *) * q->ncols);
	q->opfamilies = palloc0(sizeof(Oid) * q->ncols);
	q->opcintypes = palloc0(sizeof(Oid) * q->ncols);
	for (int i = 1; i < q->ncols; i++)
	{
		key_opclass(q, i, opclasses ? opclasses[i] : InvalidOid);
		q->lt_sql[i] = btree_operator_sql(q, i, BTLessStrategyNumber);
		q->gt_sql[i] = btree_operator_sql(q, i, BTGreaterStrategyNumber);
		q->eq_sql[i] = btree_operator_sql(q, i, BTEqualStrategyNumber);
		q->cast_sql[i] = key_cast_sql(q, i);
		q->type_sql[i] = adjlist_type_sql(q->types[i]);
	}
	q->shards = ix ? ix->write_shards : 0;
	q->is_index = ix != NULL;
	q->limited = ix != NULL || registry_lookup_unchecked(relid)->nindexes > 0;
	q->index_xmin = ix ? ix->xmin : InvalidTransactionId;
	*ready = ix == NULL || ix->ready;

	/* time to live: the base table's expiry column, in it or its index */
	q->optrel = ix ? ix->baserel : relid;
	o = table_options(q->optrel);
	if (o->ttl != NULL)
	{
		if (ix != NULL && get_attnum(relid, o->ttl) <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("inverted index \"%s\" does not project the expiry column \"%s\"",
							get_rel_name(relid), o->ttl)));
		q->live = table_options_live_sql(o, "t");
	}
	return q;
}

/* n strings of src (NULL ones stay NULL), in the current memory context. */
static char **
copy_strs(char **src, int n)
{
	char	  **dst = palloc(sizeof(char *) * n);

	for (int i = 0; i < n; i++)
		dst[i] = src[i] ? pstrdup(src[i]) : NULL;
	return dst;
}

static Oid *
copy_oids(const Oid *src, int n)
{
	Oid		   *dst = palloc(sizeof(Oid) * n);

	memcpy(dst, src, sizeof(Oid) * n);
	return dst;
}

/*
 * A copy of an entry's table in the current memory context, which no
 * rebuild or eviction of the entry frees (see query_table.h).  A few
 * short strings and arrays: about a microsecond, against the tens of a
 * call.
 */
static QueryTable *
query_table_copy(const QueryTable *src)
{
	QueryTable *q = palloc(sizeof(QueryTable));
	int			n = src->ncols;

	*q = *src;
	q->qname = pstrdup(src->qname);
	q->cols = copy_strs(src->cols, n);
	q->types = copy_oids(src->types, n);
	q->opfamilies = copy_oids(src->opfamilies, n);
	q->opcintypes = copy_oids(src->opcintypes, n);
	q->lt_sql = copy_strs(src->lt_sql, n);
	q->gt_sql = copy_strs(src->gt_sql, n);
	q->eq_sql = copy_strs(src->eq_sql, n);
	q->cast_sql = copy_strs(src->cast_sql, n);
	q->type_sql = copy_strs(src->type_sql, n);
	q->live = src->live ? pstrdup(src->live) : NULL;
	q->item_sql = pstrdup(src->item_sql);
	q->key_sql = pstrdup(src->key_sql);
	return q;
}

/* Build relid's entry e again, in a memory context of its own. */
static void
query_entry_build(QueryEntry *e, Oid relid)
{
	MemoryContext cxt = AllocSetContextCreate(CacheMemoryContext, "adjlist query table",
											  ALLOCSET_SMALL_SIZES);
	MemoryContext oldcxt;
	QueryTable *q = NULL;
	bool		ready = false;

	rel_cache_release(&query_cache, &e->head);
	e->q = NULL;
	e->build = 0;
	memset(e->sql, 0, sizeof(e->sql));
	oldcxt = MemoryContextSwitchTo(cxt);
	e->head.valid = true;		/* an invalidation during the build clears it */
	PG_TRY();
	{
		q = query_table_build(relid, &ready);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(oldcxt);
		MemoryContextDelete(cxt);
		e->head.valid = false;
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(oldcxt);
	e->head.cxt = cxt;
	e->q = q;
	e->ready = ready;
	e->build = q->build = ++query_builds;
}

QueryTable *
query_table_get(Oid relid)
{
	QueryEntry *e;
	QueryTable *q;
	bool		ready;

	graph_require_some_select(relid);
	LockRelationOid(relid, AccessShareLock);
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	e = (QueryEntry *) rel_cache_enter(&query_cache, relid);
	if (!e->head.valid)
		query_entry_build(e, relid);
	/* nothing but the copy is used from here on: e may be freed */
	q = query_table_copy(e->q);
	q->rel = relation_open(relid, NoLock);
	ready = e->ready;
	if (!ready)
		registry_not_ready(relid);
	if (q->is_index)
		registry_require_visible(relid, q->index_xmin);
	return q;
}

void
query_table_release(QueryTable *q)
{
	if (q->rel != NULL)
		relation_close(q->rel, NoLock);
	q->rel = NULL;
}

/* The entry q was copied from, if it is still that build; else NULL. */
static QueryEntry *
query_entry_of(const QueryTable *q)
{
	QueryEntry *e = (QueryEntry *) rel_cache_find(&query_cache, q->relid);

	if (e == NULL || e->q == NULL || e->build != q->build)
		return NULL;
	return e;
}

char *
query_table_sql(QueryTable *q, int shape, char *(*build) (QueryTable *q, const void *arg),
				const void *arg)
{
	QueryEntry *e;
	char	   *sql;

	Assert(shape >= 0 && shape < QUERY_SHAPES);
	e = query_entry_of(q);
	if (e != NULL && e->sql[shape] != NULL)
		return pstrdup(e->sql[shape]);
	sql = build(q, arg);
	/* remembered with the build it was made from, looked up again after */
	e = query_entry_of(q);
	if (e != NULL && e->sql[shape] == NULL)
		e->sql[shape] = MemoryContextStrdup(e->head.cxt, sql);
	return sql;
}
