/*-------------------------------------------------------------------------
 *
 * write_api_table.c
 *	  The write API's view of a table (ApiTable): its key and payload
 *	  columns, the columns its indexes need back from a write, and which
 *	  index keys a replacement can move where no trigger runs.  Kept per
 *	  backend for put_edge, put_edges and delete_edge (api_table()); see
 *	  write_api.c for how the files fit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_index.h"
#include "catalog/pg_trigger.h"
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
#include "index_admin.h"
#include "index_sync_check.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "index_write.h"
#include "plan_cache.h"
#include "registry.h"
#include "rel_cache.h"
#include "table_options.h"
#include "write_api_int.h"

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
		bool		is_ttl = t->ttl != NULL && strcmp(name, t->ttl_name) == 0;

		if (att->attisdropped || att->attgenerated)
			continue;
		if (strcmp(name, t->pkname) == 0 || strcmp(name, t->skname) == 0)
			continue;
		appendStringInfo(&buf, "%s%s = EXCLUDED.%s", buf.len ? ", " : "",
						 quote_identifier(name), quote_identifier(name));
		if (!is_payload && !is_ttl)
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
 * Does the upsert of a put (ON CONFLICT (pk, sk) DO UPDATE SET c =
 * EXCLUDED.c for every column but the key and generated ones: set_list)
 * ask, without its RETURNING, for all that RETURNING asks for?  That
 * upsert needs SELECT on the key (its arbiter) and on each column it sets,
 * and where it needs SELECT the table's SELECT policies apply to the rows
 * it writes, as core adds them for SELECT rights, not for RETURNING as
 * such.  RETURNING t->cols needs SELECT on those: implied where each is
 * the key or a column the upsert sets, so not where one is generated (an
 * index may project one), nor where nothing is set (DO NOTHING needs no
 * SELECT).  The write_api_cache test holds both sides to this.
 */
static bool
api_returning_implied(ApiTable *t, Relation rel)
{
	if (t->set_list[0] == '\0')
		return false;
	for (int k = 0; k < t->ncols; k++)
		if (t->attnos[k] <= 0 ||
			TupleDescAttr(RelationGetDescr(rel), t->attnos[k] - 1)->attgenerated)
			return false;
	return true;
}

/*
 * Does a trigger keep the indexes of rel, so that the write API writes only
 * the base rows?  adjlist's sync triggers (index_admin.c) are on every base
 * table with an index, except where they cannot run: a table Citus
 * distributes, and a table whose indexes are all in API mode in a database
 * where Citus is installed (Citus refuses to distribute a table with
 * triggers, so that one may be distributed later).  In such a database it
 * is decided from the triggers rel has, not from the rule that installs
 * them: a table indexed before Citus was installed keeps its triggers, and
 * is not indexed twice (api_table_ex()).  One disabled by ALTER TABLE ...
 * DISABLE TRIGGER still counts: whoever disabled it stopped the index
 * maintenance of every write on purpose (rebuild_inverted_index() mends
 * the index).  The replica trigger (adjlist_sync_replica) fires only in
 * replica mode, next to the others.
 */
static bool
api_triggers_keep(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td != NULL && i < td->numtriggers; i++)
		if (sync_trigger_keeps_inserts(td->triggers[i].tgtype, td->triggers[i].tgenabled,
									   td->triggers[i].tgfoid))
			return true;
	return false;
}

/*
 * What the write API needs to know about relid.  need_index: refuse a table
 * without an inverted index (the write API exists to keep them); without
 * it (import_dynamodb) such a table is keyed by its primary key, which must
 * be two adjkey columns.  with_ttl (import_dynamodb): its puts write the
 * expiry column, if the table has one, from each item's expiry.
 */
static ApiTable *
api_table_ex(Oid relid, bool need_index, bool with_ttl)
{
	ApiTable   *t = palloc0(sizeof(ApiTable));
	StringInfoData buf;
	Relation	rel;

	/* a regclass outlives its relation: the read functions' error */
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	t->relid = relid;
	t->ti = registry_lookup(relid);
	if (t->ti->nindexes == 0)
		adjlist_citus_moved_check(relid);
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

	/* the item's attributes: the payload column (table_options.c) */
	{
		TableOptions *o = table_options(relid);

		/* copied: api_table() keeps t longer than o's cache keeps o */
		t->payload_name = o->payload ? pstrdup(o->payload) : NULL;
		t->payload = o->payload_attno != InvalidAttrNumber ? quote_identifier(o->payload) : NULL;
		if (with_ttl && o->ttl != NULL)
		{
			t->ttl_name = pstrdup(o->ttl);
			t->ttl = quote_identifier(o->ttl);
			t->ttl_type = o->ttl_type;
		}
	}

	rel = table_open(relid, AccessShareLock);
	/*
	 * Without Citus every indexed table has the triggers, but for a moment
	 * in a concurrent build (registered, triggers not yet installed), when
	 * the build's backfill and its triggers take care of the writes.
	 */
	t->no_triggers = adjlist_is_citus_table(relid) ||
		(admin_citus_installed() && !api_triggers_keep(rel));
	t->partitioned = rel->rd_rel->relkind == RELKIND_PARTITIONED_TABLE;
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
	t->returning_implied = api_returning_implied(t, rel);
	if (t->no_triggers)
		api_replacement_moves(t, rel);
	t->shared_placements = api_placements_shared(t);
	table_close(rel, NoLock);
	return t;
}

/*
 * api_table() per backend.  Building an ApiTable reads the registry, the
 * table's options and its columns and writes a dozen strings: about 6% of
 * a put_edge or a delete_edge, which are a few tens of microseconds.  An
 * entry is built again after a relcache invalidation of its table (a
 * change of its columns, triggers, owner or options: table_options.c and
 * registry_write.c invalidate the table's relcache entry), of every table,
 * or a schema's (qualified names), and when the registry changed
 * (registry_changed()).  Not kept where Citus is installed: whether a
 * table is distributed and where its placements are is not followed here.
 *
 * An entry is never freed while a call may still use it: a nested write
 * (a trigger of the base table calling put_edge) can rebuild the entry its
 * caller holds, so the memory of a replaced entry goes to the transaction,
 * and is freed at its end.
 */
typedef struct ApiTableEntry
{
	RelCacheEntry head;
	ApiTable   *t;
} ApiTableEntry;

static void
api_table_retire(RelCacheEntry *e)
{
	if (e->cxt != NULL)
		MemoryContextSetParent(e->cxt, TopTransactionContext);
	e->cxt = NULL;
	((ApiTableEntry *) e)->t = NULL;
}

static RelCache api_tables = REL_CACHE_INIT("adjlist write API tables", ApiTableEntry, 64,
											api_table_retire);

/* sql, kept as long as t is (a statement built at t's first use) */
char *
api_table_keep(ApiTable *t, char *sql)
{
	return t->cxt != NULL ? MemoryContextStrdup(t->cxt, sql) : sql;
}

/* From catalog.c's callbacks: relid changed (InvalidOid: any table). */
void
adjlist_api_relcache_invalidate(Oid relid)
{
	HASH_SEQ_STATUS status;
	RelCacheEntry *e;

	if (api_tables.hash == NULL)
		return;
	if (OidIsValid(relid))
	{
		if ((e = rel_cache_find(&api_tables, relid)) != NULL)
			e->valid = false;
		return;
	}
	hash_seq_init(&status, api_tables.hash);
	while ((e = (RelCacheEntry *) hash_seq_search(&status)) != NULL)
		e->valid = false;
}

ApiTable *
api_table(Oid relid)
{
	ApiTableEntry *e;
	MemoryContext cxt;
	MemoryContext old;
	ApiTable   *t;

	if (admin_citus_installed())
		return api_table_ex(relid, true, false);
	/* the lock makes the invalidations of committed changes arrive */
	LockRelationOid(relid, AccessShareLock);
	e = (ApiTableEntry *) rel_cache_find(&api_tables, relid);
	if (e != NULL && e->head.valid && !registry_changed(e->t->ti))
		return e->t;
	/* built in the call's memory, kept once built (an error frees it) */
	cxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist write API table",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	t = api_table_ex(relid, true, false);
	MemoryContextSwitchTo(old);
	t->cxt = cxt;
	e = (ApiTableEntry *) rel_cache_enter(&api_tables, relid);
	rel_cache_release(&api_tables, &e->head);
	MemoryContextSetParent(cxt, CacheMemoryContext);
	e->head.cxt = cxt;
	e->t = t;
	e->head.valid = true;
	return t;
}

/* ----------------------------------------------------------------------
 * For sweep_expired (table_options.c)
 * ----------------------------------------------------------------------
 */

/*
 * Does relid, a local table, have inverted indexes that no trigger keeps
 * (all in API mode, in a database where Citus is installed), so that the
 * write API must delete its rows?
 */
bool
adjlist_api_unkept(Oid relid)
{
	TableIndexes *ti;
	Relation	rel;
	bool		unkept;

	if (!admin_citus_installed())
		return false;
	ti = registry_lookup(relid);
	if (ti->nindexes == 0 || ti->baserel != relid)
		return false;
	rel = table_open(relid, AccessShareLock);
	unkept = !api_triggers_keep(rel);
	table_close(rel, NoLock);
	return unkept;
}

/* ----------------------------------------------------------------------
 * For import_dynamodb (dynamo_io.c)
 * ----------------------------------------------------------------------
 */

ApiTable *
adjlist_api_table(Oid relid)
{
	return api_table_ex(relid, false, true);
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

const char *
adjlist_api_ttl(ApiTable *t, Oid *type)
{
	*type = t->ttl_type;
	return t->ttl ? t->ttl_name : NULL;
}
