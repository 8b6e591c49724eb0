/*-------------------------------------------------------------------------
 *
 * graph_meta.c
 *	  What a table looks like to the graph functions: its key columns and
 *	  their btree, its payload column, and the inverted index that flips its
 *	  key (from the registry), cached per session.
 *
 * Cache entries own a memory context each: a relcache invalidation of the
 * base table, of its index table or of the registry marks an entry stale,
 * and the next lookup deletes its context and builds it again, so nothing
 * leaks however often tables are invalidated.  Callers get a copy in their
 * own memory: a nested call (a row-level security policy calling a graph
 * function) that rebuilds an entry cannot free what an outer call holds.
 *
 * An inverted index whose registry row the caller's snapshot cannot see
 * (created after a REPEATABLE READ transaction took its snapshot) is not
 * used: that transaction would read its table empty.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/objectaddress.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "storage/sinval.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "graph.h"
#include "registry.h"
#include "rel_cache.h"
#include "table_options.h"

#define GRAPH_CACHE_MAX 1024

typedef struct GraphCacheEntry
{
	RelCacheEntry head;
	uint64		stamp;			/* which build: see graph_meta_unchanged() */
	GraphTable *g;
	GraphTable *flat;			/* g in one chunk (graph_table_flatten) */
	Size		flatlen;
} GraphCacheEntry;

static RelCache graph_cache = REL_CACHE_INIT("adjlist graph cache", GraphCacheEntry,
											 GRAPH_CACHE_MAX, NULL);
static uint64 graph_builds = 0;

void
graph_meta_relcache_invalidate(Oid relid)
{
	HASH_SEQ_STATUS status;
	GraphCacheEntry *e;
	bool		all;

	if (graph_cache.hash == NULL)
		return;
	/* a change of the registry invalidates the registry table: drop all */
	all = !OidIsValid(relid) || relid == adjlist_registry_oid_if_loaded();

	hash_seq_init(&status, graph_cache.hash);
	while ((e = (GraphCacheEntry *) hash_seq_search(&status)) != NULL)
	{
		if (all || e->head.relid == relid || (e->g != NULL && e->g->inv_rel == relid))
			e->head.valid = false;
	}
}

/* Forget what is known of relid's graph: it is built again at next use. */
static void
graph_meta_forget(Oid relid)
{
	RelCacheEntry *e = rel_cache_find(&graph_cache, relid);

	if (e != NULL)
		e->valid = false;
}

static Oid
index_relam(Oid indexid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(indexid));
	Oid			am;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for relation %u", indexid);
	am = ((Form_pg_class) GETSTRUCT(tp))->relam;
	ReleaseSysCache(tp);
	return am;
}

/*
 * The first two key columns of rel and the btree on them (its primary key,
 * or a unique index with those leading columns); InvalidOid if none.
 */
static Oid
key_columns(Relation rel, AttrNumber *first, AttrNumber *second, int *nkeys)
{
	Oid			pkindex = adjlist_primary_key_index(rel);
	HeapTuple	tp;
	Form_pg_index idx;

	if (!OidIsValid(pkindex))
		return InvalidOid;
	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pkindex));
	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for index %u", pkindex);
	idx = (Form_pg_index) GETSTRUCT(tp);
	if (idx->indnkeyatts < 2 || index_relam(pkindex) != BTREE_AM_OID)
	{
		ReleaseSysCache(tp);
		return InvalidOid;
	}
	*first = idx->indkey.values[0];
	*second = idx->indkey.values[1];
	if (nkeys != NULL)
		*nkeys = idx->indnkeyatts;
	ReleaseSysCache(tp);
	return pkindex;
}

static AttrNumber
jsonb_column(Oid relid, const char *name)
{
	AttrNumber	a = get_attnum(relid, name);

	return (a > 0 && get_atttype(relid, a) == JSONBOID) ? a : 0;
}

/* The inverted index part of g: the index that flips (pk, sk). */
static void
build_inverted(GraphTable *g, const IndexDef *ix)
{
	Relation	inv;
	AttrNumber	a1 = InvalidAttrNumber;
	AttrNumber	a2 = InvalidAttrNumber;

	/* a concurrent drop_inverted_index() may have dropped it while we waited */
	LockRelationOid(ix->indexrel, AccessShareLock);
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(ix->indexrel)))
	{
		g->inv_gone = true;
		return;
	}
	inv = table_open(ix->indexrel, NoLock);

	g->inv_rel = ix->indexrel;
	g->inv_ready = ix->ready;
	g->inv_xmin = ix->xmin;
	g->inv_shards = ix->write_shards;
	g->inv_relkind = inv->rd_rel->relkind;
	g->inv_owner = inv->rd_rel->relowner;
	g->inv_sk = get_attnum(ix->indexrel, ix->colnames[0]);
	g->inv_pk = get_attnum(ix->indexrel, ix->colnames[1]);
	g->inv_keyindex = key_columns(inv, &a1, &a2, NULL);
	if (OidIsValid(g->inv_keyindex) && (a1 != g->inv_sk || a2 != g->inv_pk))
		g->inv_keyindex = InvalidOid;	/* not ordered by (sk, pk): use SQL */
	table_close(inv, AccessShareLock);
	g->inv_direct = OidIsValid(g->inv_keyindex) && g->inv_relkind == RELKIND_RELATION &&
		adjlist_storage(ix->indexrel) == STORAGE_LOCAL;
	g->inv_name = adjlist_qualified_name(ix->indexrel);
	g->inv_pk_name = pstrdup(quote_identifier(ix->colnames[1]));
	g->inv_sk_name = pstrdup(quote_identifier(ix->colnames[0]));
	g->inv_data = jsonb_column(ix->indexrel, g->payload);
}

static GraphTable *
graph_table_build(Oid relid)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	GraphTable *g = palloc0(sizeof(GraphTable));
	TableIndexes *ti = registry_lookup(relid);
	const IndexDef *flip = NULL;
	Relation	rel;
	bool		has_pk;
	int			nkeys = 0;
	TableOptions *opts;

	if (ti->baserel != relid)
		ti->nindexes = 0;		/* a partition: its registered ancestor is the graph */
	rel = table_open(relid, AccessShareLock);
	g->baserel = relid;
	g->keytype = cat->keytype;
	g->relkind = rel->rd_rel->relkind;
	if (g->relkind != RELKIND_RELATION && g->relkind != RELKIND_PARTITIONED_TABLE &&
		g->relkind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", RelationGetRelationName(rel))));
	g->base_keyindex = key_columns(rel, &g->base_pk, &g->base_sk, &nkeys);
	g->base_key_is_edge = OidIsValid(g->base_keyindex) && nkeys == 2;
	has_pk = OidIsValid(adjlist_primary_key_index(rel));
	table_close(rel, AccessShareLock);
	if (!OidIsValid(g->base_keyindex))
	{
		/* no primary key (foreign partitions): the key it was registered with */
		if (ti->nindexes == 0 || ti->indexes[0].nbasekey < 2)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
					 errmsg("table \"%s\" is not an adjacency list", get_rel_name(relid)),
					 has_pk ? errdetail("Its primary key has fewer than two columns.")
					 : errdetail("It has no primary key."),
					 errhint("An adjacency list has PRIMARY KEY (partition key, sort key), both of type adjkey.")));
		g->base_pk = get_attnum(relid, ti->indexes[0].base_key[0]);
		g->base_sk = get_attnum(relid, ti->indexes[0].base_key[1]);
		nkeys = ti->indexes[0].nbasekey;
	}
	g->key_shared = nkeys > 2;
	if (get_atttype(relid, g->base_pk) != cat->keytype ||
		get_atttype(relid, g->base_sk) != cat->keytype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the first two key columns of \"%s\" must be of type adjkey",
						get_rel_name(relid))));
	g->direct = OidIsValid(g->base_keyindex) && g->relkind == RELKIND_RELATION &&
		adjlist_storage(relid) == STORAGE_LOCAL;
	opts = table_options(relid);
	g->payload = opts->payload;
	g->ttl = opts->ttl;
	g->ttl_type = opts->ttl_type;
	g->base_data = jsonb_column(relid, g->payload);
	g->base_name = adjlist_qualified_name(relid);
	g->pk_name = pstrdup(quote_identifier(get_attname(relid, g->base_pk, false)));
	g->sk_name = pstrdup(quote_identifier(get_attname(relid, g->base_sk, false)));
	g->data_name = g->base_data ? pstrdup(quote_identifier(g->payload)) : NULL;

	g->eq_op = cat->eq_op;
	g->eq_proc = cat->eq_proc;
	g->lt_proc = cat->lt_proc;
	g->gt_proc = cat->gt_proc;
	g->ge_proc = cat->ge_proc;
	g->op_schema = pstrdup(cat->nspname);

	flip = registry_find_flip(ti, get_attname(relid, g->base_pk, false),
							  get_attname(relid, g->base_sk, false), &g->inv_sparse_only);
	if (flip != NULL)
		build_inverted(g, flip);
	return g;
}

/* The string fields of a GraphTable, which a copy has its own of. */
static const size_t graph_strings[] = {
	offsetof(GraphTable, base_name), offsetof(GraphTable, pk_name),
	offsetof(GraphTable, sk_name), offsetof(GraphTable, data_name),
	offsetof(GraphTable, payload), offsetof(GraphTable, ttl),
	offsetof(GraphTable, inv_name), offsetof(GraphTable, inv_pk_name),
	offsetof(GraphTable, inv_sk_name), offsetof(GraphTable, op_schema),
};

/*
 * A copy of src in the current memory context, in one chunk of *size bytes:
 * its strings follow the struct (the one-hop calls copy the metadata at
 * every execution, where a palloc per string was a tenth of the lookup).
 * No caller frees a string of it alone.  Made once per build; each lookup
 * copies it with graph_table_clone().
 */
static GraphTable *
graph_table_flatten(const GraphTable *src, Size *size)
{
	Size		total = MAXALIGN(sizeof(GraphTable));
	GraphTable *g;
	char	   *p;

	for (int i = 0; i < (int) lengthof(graph_strings); i++)
	{
		const char *str = *(char *const *) ((const char *) src + graph_strings[i]);

		if (str != NULL)
			total += strlen(str) + 1;
	}
	g = palloc(total);
	*g = *src;
	p = (char *) g + MAXALIGN(sizeof(GraphTable));
	for (int i = 0; i < (int) lengthof(graph_strings); i++)
	{
		char	  **field = (char **) ((char *) g + graph_strings[i]);
		Size		len;

		if (*field == NULL)
			continue;
		len = strlen(*field) + 1;
		memcpy(p, *field, len);
		*field = p;
		p += len;
	}
	*size = total;
	return g;
}

/*
 * A copy of a flattened GraphTable in the current memory context: one
 * memcpy, its string pointers moved to the copy's own strings (the
 * strlen() of each string per lookup was half the cost of the copy).
 */
static GraphTable *
graph_table_clone(const GraphTable *flat, Size len)
{
	GraphTable *g = palloc(len);

	memcpy(g, flat, len);
	for (int i = 0; i < (int) lengthof(graph_strings); i++)
	{
		char	  **field = (char **) ((char *) g + graph_strings[i]);

		if (*field != NULL)
			*field = (char *) g + (*field - (const char *) flat);
	}
	return g;
}

/*
 * The graph metadata of a table, a copy in the caller's memory context.
 * need_inverted: it must have an inverted index (that the caller's
 * snapshot can see).
 */
/*
 * A role that may not read any column of relid learns nothing about it,
 * not even its shape: 42501 before anything is looked up.  (The columns a
 * call reads are checked by graph_check_select().)  True when the role may
 * read the whole table.
 */
bool
graph_require_some_select(Oid relid)
{
	char		relkind;

	/*
	 * The table-wide privilege first: it raises the same 42P01 as below for
	 * a relation that does not exist, and a role that has it (the common
	 * case) needs no lookup of the relkind, which only names the object in
	 * the error.
	 */
	if (pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK)
		return true;
	relkind = get_rel_relkind(relid);
	if (relkind == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	if (pg_attribute_aclcheck_all(relid, GetUserId(), ACL_SELECT, ACLMASK_ANY) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, get_relkind_objtype(relkind), get_rel_name(relid));
	return false;
}

/*
 * The cached graph of relid, a copy, built first if invalidated; *entry
 * is its cache entry (which stays in place until the next lookup of
 * another table: invalidations only clear its valid flag).  The caller
 * has locked relid.  A table that is not in the cache (or was invalidated
 * since) may have been dropped while the lock was awaited: 42P01 then.
 * A valid entry is proof enough that the table still exists: its DROP,
 * committed before the lock was granted, sent an invalidation of it that
 * taking the lock processed (and one of this transaction's own was
 * processed at its end of command), so the catalogs are not asked.
 */
static GraphTable *
graph_table_lookup(Oid relid, uint64 *stamp, GraphCacheEntry **entry)
{
	GraphCacheEntry *e;
	GraphTable *g;

	e = (GraphCacheEntry *) rel_cache_enter(&graph_cache, relid);
	*entry = e;

	if (!e->head.valid)
	{
		MemoryContext oldcxt;

		if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_TABLE),
					 errmsg("relation with OID %u does not exist", relid)));

		rel_cache_release(&graph_cache, &e->head);
		e->g = NULL;
		e->flat = NULL;
		e->head.cxt = AllocSetContextCreate(CacheMemoryContext, "adjlist graph table",
											ALLOCSET_SMALL_SIZES);
		oldcxt = MemoryContextSwitchTo(e->head.cxt);
		PG_TRY();
		{
			e->head.valid = true;	/* an invalidation during the build clears it */
			e->stamp = ++graph_builds;
			e->g = graph_table_build(relid);
			e->flat = graph_table_flatten(e->g, &e->flatlen);
		}
		PG_CATCH();
		{
			MemoryContextSwitchTo(oldcxt);
			e->head.valid = false;
			e->g = NULL;
			e->flat = NULL;
			rel_cache_release(&graph_cache, &e->head);
			PG_RE_THROW();
		}
		PG_END_TRY();
		MemoryContextSwitchTo(oldcxt);
	}
	*stamp = e->stamp;
	g = graph_table_clone(e->flat, e->flatlen);
	if (OidIsValid(g->inv_rel) && ActiveSnapshotSet() &&
		TransactionIdIsNormal(g->inv_xmin) &&
		!TransactionIdIsCurrentTransactionId(g->inv_xmin) &&
		XidInMVCCSnapshot(g->inv_xmin, GetActiveSnapshot()))
		g->inv_rel = InvalidOid;	/* created after this snapshot */
	return g;
}

/*
 * Has no invalidation touched the entry since the lookup that returned it
 * and stamp?  Every change that could unregister or replace its inverted
 * index (drop_inverted_index(), DROP TABLE of either table, any registry
 * write) sends a relcache invalidation of one of the tables or of the
 * registry.
 */
static bool
graph_meta_unchanged(GraphCacheEntry *e, uint64 stamp)
{
	return e->head.valid && e->stamp == stamp;
}

/*
 * The graph of relid, read by a caller who may SELECT some of it.  The
 * table is locked first (AccessShareLock, held to the end of the
 * transaction as a SELECT holds it): that processes the invalidations
 * other sessions committed, so the cached entry is as current as the
 * catalogs, and no DROP or ALTER of the table can change it under the
 * call.  The inverted index is locked before it is trusted: a reader that
 * waited for a concurrent drop_inverted_index() finds out, after the lock,
 * that the index is gone, and looks again (another index may serve).  Only
 * when an invalidation arrived since the lookup is the registry read again.
 */
GraphTable *
graph_table_get(Oid relid, bool need_inverted)
{
	GraphTable *g;
	GraphCacheEntry *e;
	uint64		stamp;
	bool		whole = graph_require_some_select(relid);
	uint64		inval = SharedInvalidMessageCounter;

	LockRelationOid(relid, AccessShareLock);
	for (int attempt = 0;; attempt++)
	{
		/* (whether the table still exists: see graph_table_lookup) */
		g = graph_table_lookup(relid, &stamp, &e);
		if (g->inv_gone)
		{
			graph_meta_forget(relid);
			if (attempt >= 3)
				elog(ERROR, "the inverted index of \"%s\" keeps changing", get_rel_name(relid));
			continue;
		}
		if (!OidIsValid(g->inv_rel))
			break;
		LockRelationOid(g->inv_rel, AccessShareLock);
		/* (as for the table, the catalogs only if the entry was invalidated) */
		if (graph_meta_unchanged(e, stamp) ||
			(SearchSysCacheExists1(RELOID, ObjectIdGetDatum(g->inv_rel)) &&
			 registry_index(g->inv_rel, false) != NULL))
			break;
		UnlockRelationOid(g->inv_rel, AccessShareLock);
		graph_meta_forget(relid);
		if (attempt >= 3)
			elog(ERROR, "the inverted index of \"%s\" keeps changing", get_rel_name(relid));
	}
	g->select_role = whole ? GetUserId() : InvalidOid;
	g->select_inval = inval;
	if (OidIsValid(g->inv_rel) && !g->inv_ready)
	{
		if (need_inverted)
			registry_not_ready(g->inv_rel);
		g->inv_rel = InvalidOid;
	}
	if (need_inverted && !OidIsValid(g->inv_rel))
		adjlist_citus_moved_check(relid);
	if (need_inverted && !OidIsValid(g->inv_rel))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no inverted index", get_rel_name(relid)),
				 g->inv_sparse_only ?
				 errdetail("Its inverted indexes are sparse (created with a predicate): they do not hold every edge.") : 0,
				 errhint("Create one with create_inverted_index().")));
	return g;
}

/*
 * A call that reads the edges' data (edge_filter, weights) needs the payload
 * column (a jsonb column "data", or the one set_payload_column() named) and
 * the right to read it.
 */
void
graph_check_data(GraphTable *g, const char *what)
{
	if (g->base_data == 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("table \"%s\" has no jsonb column \"%s\"", get_rel_name(g->baserel),
						g->payload),
				 errdetail("%s reads the data of the edges from that column.", what),
				 errhint("Name the jsonb column that holds the edges' data with set_payload_column().")));
	graph_check_select(g, true);
}

/* The caller may read the table's keys (and data). */
void
graph_check_select(GraphTable *g, bool want_data)
{
	Oid			user = GetUserId();

	/* (what graph_table_get() found, if nothing has changed since) */
	if (user == g->select_role && g->select_inval == SharedInvalidMessageCounter)
		return;
	if (pg_class_aclcheck(g->baserel, user, ACL_SELECT) == ACLCHECK_OK)
		return;
	if (pg_attribute_aclcheck(g->baserel, g->base_pk, user, ACL_SELECT) == ACLCHECK_OK &&
		pg_attribute_aclcheck(g->baserel, g->base_sk, user, ACL_SELECT) == ACLCHECK_OK &&
		(!want_data || g->base_data == 0 ||
		 pg_attribute_aclcheck(g->baserel, g->base_data, user, ACL_SELECT) == ACLCHECK_OK))
		return;
	aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_TABLE, get_rel_name(g->baserel));
}
