/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  The registry of inverted indexes (adjlist_inverted_indexes): reading it,
 *	  checking what it says against the catalogs, caching it, and writing it.
 *
 * Trust.  The registry decides which table the sync triggers write, and as
 * whom: they write an index table as its owner.  So nobody but this file
 * writes it (the table grants PUBLIC only SELECT), and only on behalf of
 * create_inverted_index() and drop_inverted_index(), which have checked
 * that the caller owns both tables, and of the DDL event triggers.  On top
 * of that every reader and writer re-checks, at use, what could have
 * changed since: the index table still exists, is a table, still has the
 * base table's owner, and still has every registered column with the type
 * that column has in the base table.  A mismatch is an error that names the
 * index, never a crash and never a write into the wrong table.  Those checks
 * are registry_check.c's; this file reads, caches and writes.
 *
 * A sparse index's predicate is kept twice: as text in the registry (what
 * pg_dump carries) and bound, in adjlist_index_predicates (not dumped),
 * which this file writes and reads alongside (index_predicate.c says why).
 * A registration whose predicate has no bound form is a problem, like a
 * missing column: nothing ever parses the text to evaluate it.  A bound
 * form made in another cluster (pg_upgrade copied it with OIDs that are not
 * this cluster's) is never used either: registry_read() has it bound again
 * from the text (index_predicate_rebind()), and it is a problem only if
 * that fails.
 *
 * Caching.  Lookups are cached per base table (and per partition, pointing
 * at its registered ancestor) in one hash table whose entries own their
 * memory context; a relcache invalidation of any table an entry mentions,
 * or of the registry itself, marks it stale, and it is rebuilt (its memory
 * freed) at the next lookup.  Callers get a copy in their own memory, so a
 * nested call that rebuilds an entry can never pull memory from under an
 * outer one.  The cache holds at most REGISTRY_CACHE_MAX entries.
 *
 * Snapshots.  The registry is read with SnapshotSelf: every committed row,
 * no predicate locks (a SERIALIZABLE writer gets no serialization failure
 * from the registry).  Registry rows change only while the base table is
 * locked against writers (its triggers are re-created), so a writer that
 * holds its lock sees the registry as it is.  Readers, whose snapshot may
 * be older, skip an index whose registry row they cannot see
 * (registry_visible()).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/transam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/catalog.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_predicate.h"
#include "registry.h"
#include "registry_int.h"
#include "rel_cache.h"

#define REGISTRY_CACHE_MAX	1024

typedef struct RegistryEntry
{
	RelCacheEntry head;			/* relid: a base table or a member; cxt owns
								 * indexes and what they point to */
	Oid			baserel;		/* the registered table relid belongs to */
	TableIndexes ti;			/* unchecked */
	char	   *problem;		/* why an index cannot be used, or NULL */
	char	   *problem_detail;
	char	   *problem_ddl;	/* the same, said of the DDL that caused it
								 * (a column dropped or renamed), or NULL */
	char	   *problem_ddl_detail;
	Oid			problem_index;
} RegistryEntry;

static void entry_release(RelCacheEntry *head);

static RelCache registry_cache = REL_CACHE_INIT("adjlist registry cache", RegistryEntry,
												REGISTRY_CACHE_MAX, entry_release);
static uint64 registry_generation = 1;

/*
 * The indexes whose predicates an entry build bound again (pg_upgrade,
 * index_predicate.c): written back once the build is done, not during it
 * (writing runs statements, which could look up, or evict, entries).
 */
static Oid *rebound = NULL;
static int	nrebound = 0;
static int	rebound_cap = 0;

/*
 * Whether an entry build left a predicate unbound only because another
 * role holds a lock on its table (index_predicate_rebind()): the entry is
 * then not kept, and the next lookup binds it again.
 */
static bool rebind_deferred = false;

static void
rebound_note(Oid indexrel)
{
	if (nrebound >= rebound_cap)
	{
		rebound_cap = Max(8, rebound_cap * 2);
		rebound = rebound ? repalloc(rebound, sizeof(Oid) * rebound_cap) :
			MemoryContextAlloc(TopMemoryContext, sizeof(Oid) * rebound_cap);
	}
	rebound[nrebound++] = indexrel;
}

static void registry_columns_forget(Oid relid);
static struct RegistryEntry *entry_get(Oid relid);

void
registry_relcache_invalidate(Oid relid)
{
	HASH_SEQ_STATUS status;
	RegistryEntry *e;

	registry_columns_forget(relid);
	if (registry_cache.hash == NULL)
		return;
	registry_generation++;
	hash_seq_init(&status, registry_cache.hash);
	while ((e = (RegistryEntry *) hash_seq_search(&status)) != NULL)
	{
		bool		stale = !OidIsValid(relid) || e->head.relid == relid ||
			e->baserel == relid || relid == adjlist_registry_oid_if_loaded();

		for (int i = 0; !stale && i < e->ti.nindexes; i++)
			stale = (e->ti.indexes[i].indexrel == relid ||
					 e->ti.indexes[i].counterrel == relid);
		if (stale)
			e->head.valid = false;
	}
}

/* ----------------------------------------------------------------------
 * Reading the registry
 * ----------------------------------------------------------------------
 */

typedef struct RegistryColumns
{
	AttrNumber	indexrel;
	AttrNumber	baserel;
	AttrNumber	columns;
	AttrNumber	nkeys;
	AttrNumber	counterrel;
	AttrNumber	base_key;
	AttrNumber	mode;
	AttrNumber	created;
	AttrNumber	write_shards;	/* 0 in a 0.1 catalog */
	AttrNumber	counter_shards;
	AttrNumber	ready;			/* 0 before 0.3 */
	AttrNumber	predicate;		/* 0 before 0.3 */
	Oid			bound;			/* adjlist_index_predicates, or 0 before 0.3 */
	AttrNumber	bound_cluster;	/* its system_identifier */
	Oid			bound_by_indexrel;	/* its btree on (indexrel) */
	Oid			by_indexrel;	/* the registry's btree on (indexrel), or 0 */
	Oid			by_baserel;		/* its btree on (baserel), or 0 */
} RegistryColumns;

/*
 * The registry's column numbers and indexes, looked up once per registry
 * table: forgotten by any relcache invalidation of the registry (ALTER
 * EXTENSION adjlist UPDATE adds columns; a dropped and re-created
 * extension has a new registry).
 */
static RegistryColumns rc_cache;
static Oid	rc_cache_reg = InvalidOid;

static void
registry_columns_forget(Oid relid)
{
	if (!OidIsValid(relid) || relid == rc_cache_reg)
		rc_cache_reg = InvalidOid;
}

static Oid
index_am(Oid indexid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(indexid));
	Oid			am = InvalidOid;

	if (HeapTupleIsValid(tp))
	{
		am = ((Form_pg_class) GETSTRUCT(tp))->relam;
		ReleaseSysCache(tp);
	}
	return am;
}

/* The btree of the registry whose only key column is attno, or InvalidOid. */
static Oid
registry_index_on(Relation reg, AttrNumber attno)
{
	List	   *indexes = RelationGetIndexList(reg);
	ListCell   *lc;
	Oid			result = InvalidOid;

	foreach(lc, indexes)
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index idx;

		if (!HeapTupleIsValid(tp))
			continue;
		idx = (Form_pg_index) GETSTRUCT(tp);
		if (idx->indnkeyatts == 1 && idx->indkey.values[0] == attno && idx->indisvalid &&
			idx->indisready && heap_attisnull(tp, Anum_pg_index_indpred, NULL) &&
			heap_attisnull(tp, Anum_pg_index_indexprs, NULL) &&
			index_am(lfirst_oid(lc)) == BTREE_AM_OID)
			result = lfirst_oid(lc);
		ReleaseSysCache(tp);
		if (OidIsValid(result))
			break;
	}
	list_free(indexes);
	return result;
}

static void
registry_columns_lookup(Relation reg, RegistryColumns *c)
{
	Oid			regid = RelationGetRelid(reg);

	c->indexrel = get_attnum(regid, "indexrel");
	c->baserel = get_attnum(regid, "baserel");
	c->columns = get_attnum(regid, "columns");
	c->nkeys = get_attnum(regid, "nkeys");
	c->counterrel = get_attnum(regid, "counterrel");
	c->base_key = get_attnum(regid, "base_key");
	c->mode = get_attnum(regid, "mode");
	c->created = get_attnum(regid, "created");
	c->write_shards = get_attnum(regid, "write_shards");
	c->counter_shards = get_attnum(regid, "counter_shards");
	if (c->indexrel <= 0 || c->baserel <= 0 || c->columns <= 0 || c->nkeys <= 0 ||
		c->counterrel <= 0 || c->base_key <= 0 || c->mode <= 0 || c->created <= 0 ||
		c->counter_shards <= 0)
		elog(ERROR, "the registry of extension adjlist lacks a column");
	if (c->write_shards < 0)
		c->write_shards = 0;
	c->ready = get_attnum(regid, "ready");
	if (c->ready < 0)
		c->ready = 0;
	c->predicate = get_attnum(regid, "predicate");
	if (c->predicate < 0)
		c->predicate = 0;
	c->by_indexrel = registry_index_on(reg, c->indexrel);
	c->by_baserel = registry_index_on(reg, c->baserel);
	c->bound = get_relname_relid("adjlist_index_predicates", adjlist_catalog()->namespace);
	c->bound_by_indexrel = InvalidOid;
	c->bound_cluster = 0;
	if (OidIsValid(c->bound))
	{
		Relation	bound = table_open(c->bound, AccessShareLock);

		c->bound_by_indexrel = registry_index_on(bound, 1);
		table_close(bound, AccessShareLock);
		if (!OidIsValid(c->bound_by_indexrel))
			elog(ERROR, "the bound predicates of extension adjlist have no index");
		c->bound_cluster = get_attnum(c->bound, "system_identifier");
		if (c->bound_cluster <= 0)
			elog(ERROR, "the bound predicates of extension adjlist lack a column");
	}
}

/*
 * The bound predicate of indexrel (adjlist_index_predicates: indexrel,
 * expr, system_identifier), or NULL.  Read with SnapshotSelf, as the
 * registry is.  *elsewhere: it was bound in another cluster, whose OIDs
 * it names (pg_upgrade copied the table's file; index_predicate.c).
 */
static char *
bound_predicate(const RegistryColumns *rc, Oid indexrel, bool *elsewhere)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *expr = NULL;

	if (!OidIsValid(rc->bound))
		return NULL;
	rel = table_open(rc->bound, AccessShareLock);
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(indexrel));
	scan = systable_beginscan(rel, rc->bound_by_indexrel, true, SnapshotSelf, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		v = heap_getattr(tup, 2, RelationGetDescr(rel), &isnull);

		if (!isnull)
			expr = TextDatumGetCString(v);
		v = heap_getattr(tup, rc->bound_cluster, RelationGetDescr(rel), &isnull);
		*elsewhere = isnull || (uint64) DatumGetInt64(v) != GetSystemIdentifier();
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return expr;
}

/* The column numbers of reg, the open registry table (locked). */
static void
registry_columns(Relation reg, RegistryColumns *c)
{
	if (rc_cache_reg != RelationGetRelid(reg))
	{
		RegistryColumns fresh;

		registry_columns_lookup(reg, &fresh);
		rc_cache = fresh;
		rc_cache_reg = RelationGetRelid(reg);
	}
	*c = rc_cache;
}

bool
registry_predicate_bound_elsewhere(Oid indexrel)
{
	Relation	reg = table_open(adjlist_catalog()->registry, AccessShareLock);
	RegistryColumns rc;
	bool		elsewhere = false;

	registry_columns(reg, &rc);
	table_close(reg, AccessShareLock);
	(void) bound_predicate(&rc, indexrel, &elsewhere);
	return elsewhere;
}

static char **
name_array(Datum d, int *n)
{
	ArrayType  *arr = DatumGetArrayTypeP(d);
	Datum	   *elems;
	bool	   *nulls;
	char	  **names;

	deconstruct_array(arr, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR,
					  &elems, &nulls, n);
	names = palloc(sizeof(char *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			elog(ERROR, "the registry of extension adjlist has a null column name");
		names[i] = pstrdup(NameStr(*DatumGetName(elems[i])));
	}
	return names;
}

typedef struct RawIndex
{
	IndexDef	def;
	TimestampTz created;
	bool		elsewhere;		/* its predicate was bound in another cluster */
} RawIndex;

static int
raw_index_cmp(const void *a, const void *b)
{
	const RawIndex *x = (const RawIndex *) a;
	const RawIndex *y = (const RawIndex *) b;

	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	if (x->def.indexrel != y->def.indexrel)
		return x->def.indexrel < y->def.indexrel ? -1 : 1;
	return 0;
}

/*
 * The registry rows of baserel, in creation order (ties broken by the index
 * table's OID), allocated in the current memory context.
 */
static int
registry_read(Oid baserel, IndexDef **out)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	reg = table_open(cat->registry, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(reg);
	RegistryColumns rc;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	RawIndex   *raw = NULL;
	int			n = 0;
	int			cap = 0;
	bool		elsewhere = false;

	registry_columns(reg, &rc);
	ScanKeyInit(&key, rc.baserel, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(baserel));
	scan = systable_beginscan(reg, rc.by_baserel, OidIsValid(rc.by_baserel), SnapshotSelf,
							  1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		IndexDef   *d;
		bool		isnull;
		Datum		v;
		char	   *mode;
		int			nbk;

		if (n >= cap)
		{
			cap = Max(4, cap * 2);
			raw = raw ? repalloc(raw, sizeof(RawIndex) * cap) : palloc(sizeof(RawIndex) * cap);
		}
		memset(&raw[n], 0, sizeof(RawIndex));
		d = &raw[n].def;
		d->indexrel = DatumGetObjectId(heap_getattr(tup, rc.indexrel, desc, &isnull));
		d->baserel = baserel;
		d->colnames = name_array(heap_getattr(tup, rc.columns, desc, &isnull), &d->ncols);
		d->nkeys = DatumGetInt32(heap_getattr(tup, rc.nkeys, desc, &isnull));
		v = heap_getattr(tup, rc.counterrel, desc, &isnull);
		d->counterrel = isnull ? InvalidOid : DatumGetObjectId(v);
		d->counter_shards = DatumGetInt32(heap_getattr(tup, rc.counter_shards, desc, &isnull));
		d->base_key = name_array(heap_getattr(tup, rc.base_key, desc, &isnull), &nbk);
		d->nbasekey = nbk;
		mode = TextDatumGetCString(heap_getattr(tup, rc.mode, desc, &isnull));
		d->mode = (strcmp(mode, "api") == 0) ? INDEX_MODE_API : INDEX_MODE_TRIGGER;
		if (rc.write_shards > 0)
			d->write_shards = DatumGetInt32(heap_getattr(tup, rc.write_shards, desc, &isnull));
		d->ready = true;
		if (rc.ready > 0)
			d->ready = DatumGetBool(heap_getattr(tup, rc.ready, desc, &isnull));
		d->predicate = NULL;
		if (rc.predicate > 0)
		{
			v = heap_getattr(tup, rc.predicate, desc, &isnull);
			if (!isnull)
				d->predicate = TextDatumGetCString(v);
		}
		d->predicate_expr = d->predicate ?
			bound_predicate(&rc, d->indexrel, &raw[n].elsewhere) : NULL;
		elsewhere |= raw[n].elsewhere;
		d->xmin = HeapTupleHeaderGetXmin(tup->t_data);
		raw[n].created = DatumGetTimestampTz(heap_getattr(tup, rc.created, desc, &isnull));
		if (d->nkeys < 2 || d->nkeys > d->ncols || d->ncols > INDEX_MAX_KEYS * 4)
			elog(ERROR, "the registry of extension adjlist has a malformed row");
		n++;
	}
	systable_endscan(scan);
	table_close(reg, AccessShareLock);

	/* (after the scan: binding reads the catalogs, and may lock the base table) */
	for (int i = 0; elsewhere && i < n; i++)
		if (raw[i].elsewhere)
		{
			bool		deferred;

			raw[i].def.predicate_expr = index_predicate_rebind(&raw[i].def, &deferred);
			rebind_deferred |= deferred;
			if (raw[i].def.predicate_expr != NULL)
				rebound_note(raw[i].def.indexrel);
		}
	if (n > 1)
		qsort(raw, n, sizeof(RawIndex), raw_index_cmp);
	*out = palloc(sizeof(IndexDef) * Max(n, 1));
	for (int i = 0; i < n; i++)
		(*out)[i] = raw[i].def;
	return n;
}

/* ----------------------------------------------------------------------
 * The cache
 * ----------------------------------------------------------------------
 */

/* What rel_cache_release() lets go of besides the entry's memory context. */
static void
entry_release(RelCacheEntry *head)
{
	RegistryEntry *e = (RegistryEntry *) head;

	e->ti.nindexes = 0;
	e->ti.indexes = NULL;
	e->problem = NULL;
	e->problem_detail = NULL;
	e->problem_ddl = NULL;
	e->problem_ddl_detail = NULL;
	e->problem_index = InvalidOid;
}

/*
 * The registered table relid belongs to: itself, or its nearest partition
 * ancestor that has indexes.
 */
static Oid
find_base(Oid relid, IndexDef **defs, int *n)
{
	List	   *ancestors;
	ListCell   *lc;

	*n = registry_read(relid, defs);
	if (*n > 0 || !get_rel_relispartition(relid))
		return relid;
	ancestors = get_partition_ancestors(relid);
	foreach(lc, ancestors)
	{
		Oid			a = lfirst_oid(lc);

		*n = registry_read(a, defs);
		if (*n > 0)
			return a;
	}
	return relid;
}

static void
entry_build(RegistryEntry *e)
{
	MemoryContext oldcxt;
	IndexDef   *defs;
	int			n;
	Oid			base;
	char	   *basename;
	Oid			owner;

	e->head.cxt = AllocSetContextCreate(CacheMemoryContext, "adjlist registry entry",
										ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(e->head.cxt);
	base = find_base(e->head.relid, &defs, &n);
	e->baserel = base;
	e->ti.baserel = base;
	e->ti.nindexes = n;
	e->ti.indexes = defs;
	owner = registry_table_owner(base, &basename);
	e->ti.owner = owner;
	for (int i = 0; i < n; i++)
	{
		IndexDef   *d = &defs[i];
		IndexProblem p = {NULL, NULL, NULL, NULL};

		d->coltypes = palloc0(sizeof(Oid) * d->ncols);
		d->typlens = palloc0(sizeof(int16) * d->ncols);
		d->typbyvals = palloc0(sizeof(bool) * d->ncols);
		if (e->problem == NULL && !registry_check_index(d, owner, basename ? basename : "?", &p))
		{
			e->problem = p.msg;
			e->problem_detail = p.detail;
			e->problem_ddl = p.ddl_msg;
			e->problem_ddl_detail = p.ddl_detail;
			e->problem_index = d->indexrel;
		}
	}
	MemoryContextSwitchTo(oldcxt);
}

/*
 * Write back the predicates entry e's build bound again, from copies (what
 * the writes run may rebuild or evict entries); e again, looked up afresh.
 */
static RegistryEntry *
persist_rebound(RegistryEntry *e)
{
	Oid			relid = e->head.relid;
	List	   *defs = NIL;
	ListCell   *lc;

	for (int i = 0; i < e->ti.nindexes; i++)
		for (int j = 0; j < nrebound; j++)
			if (e->ti.indexes[i].indexrel == rebound[j])
			{
				IndexDef   *d = palloc0(sizeof(IndexDef));

				d->indexrel = e->ti.indexes[i].indexrel;
				d->baserel = e->ti.indexes[i].baserel;
				d->counterrel = e->ti.indexes[i].counterrel;
				d->predicate = pstrdup(e->ti.indexes[i].predicate);
				d->predicate_expr = pstrdup(e->ti.indexes[i].predicate_expr);
				defs = lappend(defs, d);
			}
	nrebound = 0;
	foreach(lc, defs)
		index_predicate_persist((IndexDef *) lfirst(lc));
	e = (RegistryEntry *) rel_cache_find(&registry_cache, relid);
	return e != NULL ? e : entry_get(relid);
}

static RegistryEntry *
entry_get(Oid relid)
{
	RegistryEntry *e = (RegistryEntry *) rel_cache_enter(&registry_cache, relid);

	if (!e->head.valid)
	{
		rel_cache_release(&registry_cache, &e->head);
		e->head.valid = true;	/* an invalidation during the build clears it */
		PG_TRY();
		{
			entry_build(e);
		}
		PG_CATCH();
		{
			rel_cache_release(&registry_cache, &e->head);
			e->head.valid = false;
			nrebound = 0;
			rebind_deferred = false;
			PG_RE_THROW();
		}
		PG_END_TRY();
		if (nrebound > 0)
			e = persist_rebound(e);
		if (rebind_deferred)
		{
			e->head.valid = false;
			rebind_deferred = false;
		}
	}
	return e;
}

static IndexDef
copy_def(const IndexDef *s)
{
	IndexDef	d = *s;

	d.colnames = palloc(sizeof(char *) * s->ncols);
	for (int i = 0; i < s->ncols; i++)
		d.colnames[i] = pstrdup(s->colnames[i]);
	d.coltypes = palloc(sizeof(Oid) * s->ncols);
	memcpy(d.coltypes, s->coltypes, sizeof(Oid) * s->ncols);
	d.typlens = palloc(sizeof(int16) * s->ncols);
	memcpy(d.typlens, s->typlens, sizeof(int16) * s->ncols);
	d.typbyvals = palloc(sizeof(bool) * s->ncols);
	memcpy(d.typbyvals, s->typbyvals, sizeof(bool) * s->ncols);
	d.base_key = palloc(sizeof(char *) * Max(s->nbasekey, 1));
	for (int i = 0; i < s->nbasekey; i++)
		d.base_key[i] = pstrdup(s->base_key[i]);
	d.predicate = s->predicate ? pstrdup(s->predicate) : NULL;
	d.predicate_expr = s->predicate_expr ? pstrdup(s->predicate_expr) : NULL;
	return d;
}

static TableIndexes *
copy_entry(const RegistryEntry *e)
{
	TableIndexes *ti = palloc(sizeof(TableIndexes));

	ti->baserel = e->ti.baserel;
	ti->owner = e->ti.owner;
	ti->nindexes = e->ti.nindexes;
	ti->indexes = palloc(sizeof(IndexDef) * Max(e->ti.nindexes, 1));
	for (int i = 0; i < e->ti.nindexes; i++)
		ti->indexes[i] = copy_def(&e->ti.indexes[i]);
	ti->generation = registry_generation;
	return ti;
}

TableIndexes *
registry_lookup_unchecked(Oid relid)
{
	return copy_entry(entry_get(relid));
}

TableIndexes *
registry_lookup(Oid relid)
{
	RegistryEntry *e = entry_get(relid);

	if (e->problem != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s", e->problem),
				 e->problem_detail ? errdetail("%s", e->problem_detail) : 0,
				 errhint("Repair the index table, or drop the index with drop_inverted_index() and create it again.")));
	return copy_entry(e);
}

void
registry_check_ddl(Oid relid)
{
	RegistryEntry *e = entry_get(relid);

	if (e->problem_ddl != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("%s", e->problem_ddl),
				 errdetail("%s", e->problem_ddl_detail),
				 errhint("Keep the column, or drop the index with drop_inverted_index() first and create it again after the change.")));
	(void) registry_lookup(relid);
}

bool
registry_changed(const TableIndexes *ti)
{
	RegistryEntry *e;

	if (ti->generation == registry_generation)
		return false;
	e = (RegistryEntry *) rel_cache_find(&registry_cache, ti->baserel);
	return e == NULL || !e->head.valid;
}

/*
 * A stamp of what registry_lookup(relid) returns: it changes at every
 * relcache invalidation this backend takes in, of any relation (the only
 * way an entry, or the catalog facts a caller derived along with it, goes
 * stale), and is 0 while relid's entry is not kept as it is (not looked
 * up yet, or to be built again at its next lookup).  A caller may keep
 * what it derived from a lookup for as long as the stamp stays the same
 * (sync_setup.c).
 */
uint64
registry_stamp(Oid relid)
{
	RegistryEntry *e = (RegistryEntry *) rel_cache_find(&registry_cache, relid);

	if (e == NULL || !e->head.valid)
		return 0;
	return registry_generation;
}

/* The stamp now, whatever relid's entry: a hit compares with it. */
uint64
registry_stamp_now(void)
{
	return registry_generation;
}

/* The base table an index table belongs to, from the registry. */
static Oid
base_of_index(Oid indexrel)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	reg = table_open(cat->registry, AccessShareLock);
	RegistryColumns rc;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			base = InvalidOid;

	registry_columns(reg, &rc);
	ScanKeyInit(&key, rc.indexrel, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(indexrel));
	scan = systable_beginscan(reg, rc.by_indexrel, OidIsValid(rc.by_indexrel), SnapshotSelf,
							  1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;

		base = DatumGetObjectId(heap_getattr(tup, rc.baserel, RelationGetDescr(reg), &isnull));
	}
	systable_endscan(scan);
	table_close(reg, AccessShareLock);
	return base;
}

IndexDef *
registry_index(Oid indexrel, bool check)
{
	Oid			base = base_of_index(indexrel);
	TableIndexes *ti;

	if (!OidIsValid(base))
		return NULL;
	ti = check ? registry_lookup(base) : registry_lookup_unchecked(base);
	for (int i = 0; i < ti->nindexes; i++)
		if (ti->indexes[i].indexrel == indexrel)
			return &ti->indexes[i];
	return NULL;
}

Oid
registry_base_of(Oid relid)
{
	RegistryEntry *e = entry_get(relid);

	return e->ti.nindexes > 0 ? e->baserel : InvalidOid;
}

/* The base table of the index or counter table relid, or InvalidOid. */
static Oid
base_of_derived(Oid relid)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	reg;
	RegistryColumns rc;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			base = InvalidOid;

	reg = table_open(cat->registry, AccessShareLock);
	registry_columns(reg, &rc);
	scan = systable_beginscan(reg, InvalidOid, false, SnapshotSelf, 0, NULL);
	while (!OidIsValid(base) && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		v;
		bool		match;

		match = DatumGetObjectId(heap_getattr(tup, rc.indexrel, RelationGetDescr(reg),
											  &isnull)) == relid;
		v = heap_getattr(tup, rc.counterrel, RelationGetDescr(reg), &isnull);
		if (!isnull && DatumGetObjectId(v) == relid)
			match = true;
		if (match)
			base = DatumGetObjectId(heap_getattr(tup, rc.baserel, RelationGetDescr(reg),
												 &isnull));
	}
	systable_endscan(scan);
	table_close(reg, AccessShareLock);
	return base;
}

int
registry_all(Oid **indexes, Oid **bases, Oid **counters)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	reg = table_open(cat->registry, AccessShareLock);
	RegistryColumns rc;
	SysScanDesc scan;
	HeapTuple	tup;
	int			n = 0;
	int			cap = 16;

	registry_columns(reg, &rc);
	*indexes = palloc(sizeof(Oid) * cap);
	*bases = palloc(sizeof(Oid) * cap);
	*counters = palloc(sizeof(Oid) * cap);
	scan = systable_beginscan(reg, InvalidOid, false, SnapshotSelf, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		v;

		if (n >= cap)
		{
			cap *= 2;
			*indexes = repalloc(*indexes, sizeof(Oid) * cap);
			*bases = repalloc(*bases, sizeof(Oid) * cap);
			*counters = repalloc(*counters, sizeof(Oid) * cap);
		}
		(*indexes)[n] = DatumGetObjectId(heap_getattr(tup, rc.indexrel, RelationGetDescr(reg), &isnull));
		(*bases)[n] = DatumGetObjectId(heap_getattr(tup, rc.baserel, RelationGetDescr(reg), &isnull));
		v = heap_getattr(tup, rc.counterrel, RelationGetDescr(reg), &isnull);
		(*counters)[n] = isnull ? InvalidOid : DatumGetObjectId(v);
		n++;
	}
	systable_endscan(scan);
	table_close(reg, AccessShareLock);
	return n;
}

bool
registry_involves(Oid relid)
{
	return registry_base_of(relid) == relid || OidIsValid(base_of_derived(relid));
}

Oid
registry_base_of_index(Oid relid)
{
	Oid			base = base_of_derived(relid);
	List	   *ancestors;
	ListCell   *lc;

	if (OidIsValid(base) || !get_rel_relispartition(relid))
		return base;
	ancestors = get_partition_ancestors(relid);
	foreach(lc, ancestors)
	{
		base = base_of_derived(lfirst_oid(lc));
		if (OidIsValid(base))
			break;
	}
	list_free(ancestors);
	return base;
}

/* How many registry rows name relid as their index or counter table. */
static int
derived_uses(Oid relid)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	reg = table_open(cat->registry, AccessShareLock);
	RegistryColumns rc;
	SysScanDesc scan;
	HeapTuple	tup;
	int			n = 0;

	registry_columns(reg, &rc);
	scan = systable_beginscan(reg, InvalidOid, false, SnapshotSelf, 0, NULL);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		v;

		if (DatumGetObjectId(heap_getattr(tup, rc.indexrel, RelationGetDescr(reg), &isnull)) == relid)
			n++;
		v = heap_getattr(tup, rc.counterrel, RelationGetDescr(reg), &isnull);
		if (!isnull && DatumGetObjectId(v) == relid)
			n++;
	}
	systable_endscan(scan);
	table_close(reg, AccessShareLock);
	return n;
}

/* Is relid an existing temporary table? */
static bool
is_temporary(Oid relid)
{
	return OidIsValid(relid) && get_rel_name(relid) != NULL &&
		get_rel_persistence(relid) == RELPERSISTENCE_TEMP;
}

char *
registry_row_conflict(Oid indexrel, Oid baserel, Oid counterrel)
{
	if (indexrel == baserel || counterrel == baserel || counterrel == indexrel)
		return pstrdup("An index or counter table cannot be its own base table or index");
	/* (a session's end drops its temporary tables without an event trigger) */
	if (is_temporary(baserel) || is_temporary(indexrel) || is_temporary(counterrel))
		return pstrdup("Temporary tables cannot take part in an inverted index");
	if (OidIsValid(base_of_derived(baserel)))
		return psprintf("Table \"%s\" is an index or counter table itself",
						get_rel_name(baserel));
	if (derived_uses(indexrel) != 1)
		return psprintf("Table \"%s\" is registered more than once",
						get_rel_name(indexrel));
	if (OidIsValid(counterrel) && derived_uses(counterrel) != 1)
		return psprintf("Table \"%s\" is registered more than once",
						get_rel_name(counterrel));
	if (registry_base_of(indexrel) == indexrel ||
		(OidIsValid(counterrel) && registry_base_of(counterrel) == counterrel))
		return pstrdup("An index or counter table cannot be a registered base table");
	return NULL;
}

bool
registry_visible(const IndexDef *ix, Snapshot snapshot)
{
	if (!TransactionIdIsNormal(ix->xmin) || TransactionIdIsCurrentTransactionId(ix->xmin))
		return true;
	return !XidInMVCCSnapshot(ix->xmin, snapshot);
}

void
registry_require_visible(Oid indexrel, TransactionId xmin)
{
	if (!TransactionIdIsNormal(xmin) || TransactionIdIsCurrentTransactionId(xmin) ||
		!ActiveSnapshotSet() || !XidInMVCCSnapshot(xmin, GetActiveSnapshot()))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("inverted index \"%s\" was created after this transaction's snapshot",
					get_rel_name(indexrel)),
			 errdetail("Its rows are not visible to the transaction, as its base table's are."),
			 errhint("Read it in a new transaction.")));
}

/*
 * "The" inverted index of a table answers for every edge pointing at a node
 * (in-edges, delete_node()), so it must hold every row: a sparse index (a
 * predicate) holds some, and is only ever read by name (query(),
 * edge_count()).  Its key is the base table's key columns, which are never
 * NULL, and projections and write shards add to a row, never leave one out;
 * the predicate is the one registered way to be partial.  *sparse (when
 * asked) says whether a sparse index that flips the key was passed over, for
 * the caller's error.
 */
const IndexDef *
registry_find_flip(const TableIndexes *ti, const char *pkname, const char *skname,
				   bool *sparse)
{
	const IndexDef *building = NULL;

	if (sparse != NULL)
		*sparse = false;
	for (int i = 0; i < ti->nindexes; i++)
	{
		const IndexDef *d = &ti->indexes[i];

		if (strcmp(d->colnames[0], skname) != 0 || strcmp(d->colnames[1], pkname) != 0)
			continue;
		if (d->predicate != NULL)
		{
			if (sparse != NULL)
				*sparse = true;
			continue;
		}
		if (d->ready)
			return d;
		if (building == NULL)
			building = d;
	}
	return building;
}

/* ----------------------------------------------------------------------
 * Writing the registry
 * ----------------------------------------------------------------------
 */

static Datum
names_datum(char **names, int n)
{
	Datum	   *elems = palloc(sizeof(Datum) * Max(n, 1));

	for (int i = 0; i < n; i++)
	{
		Name		nm = palloc0(NAMEDATALEN);

		namestrcpy(nm, names[i]);
		elems[i] = NameGetDatum(nm);
	}
	return PointerGetDatum(construct_array(elems, n, NAMEOID, NAMEDATALEN, false,
										   TYPALIGN_CHAR));
}

/* Raised while adjlist writes the registry itself. */
static int	writing_depth = 0;

bool
registry_written_by_adjlist(void)
{
	return writing_depth > 0;
}

void
registry_invalidate(Oid baserel)
{
	CacheInvalidateRelcacheByRelid(adjlist_catalog()->registry);
	if (OidIsValid(baserel))
		CacheInvalidateRelcacheByRelid(baserel);
}

/* Run one statement on the registry as its owner. */
static void
registry_exec(const char *sql, int nargs, Oid *types, Datum *values,
			  const char *nulls, int expected)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	AdjlistRoleSwitch save;
	int			ret;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(cat->registry_owner, &save);
	writing_depth++;
	PG_TRY();
	{
		ret = SPI_execute_with_args(sql, nargs, types, values, nulls, false, 0);
	}
	PG_FINALLY();
	{
		writing_depth--;
	}
	PG_END_TRY();
	adjlist_unbecome(&save);
	if (ret != expected)
		elog(ERROR, "registry update failed: %s", SPI_result_code_string(ret));
	SPI_finish();
	/* writers of the base table must see the change at once */
	CacheInvalidateRelcacheByRelid(cat->registry);
}

void
registry_insert(const RegistryRow *row)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[10] = {OIDOID, OIDOID, NAMEARRAYOID, INT4OID, OIDOID,
	NAMEARRAYOID, TEXTOID, INT4OID, BOOLOID, TEXTOID};
	Datum		values[10];
	char		nulls[10] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
	char	   *sql;
	bool		new_columns = !row->ready || row->predicate != NULL;

	values[0] = ObjectIdGetDatum(row->indexrel);
	values[1] = ObjectIdGetDatum(row->baserel);
	values[2] = names_datum(row->colnames, row->ncols);
	values[3] = Int32GetDatum(row->nkeys);
	values[4] = ObjectIdGetDatum(row->counterrel);
	if (!OidIsValid(row->counterrel))
		nulls[4] = 'n';
	values[5] = names_datum(row->base_key, row->nbasekey);
	values[6] = CStringGetTextDatum(row->mode == INDEX_MODE_API ? "api" : "trigger");
	values[7] = Int32GetDatum(row->write_shards);
	values[8] = BoolGetDatum(row->ready);
	values[9] = row->predicate ? CStringGetTextDatum(row->predicate) : (Datum) 0;
	if (row->predicate == NULL)
		nulls[9] = 'n';
	/* (the registry of 0.1 and 0.2 has neither column: ready, no predicate) */
	sql = psprintf("INSERT INTO %s.adjlist_inverted_indexes "
				   "(indexrel, baserel, columns, nkeys, counterrel, counter_shards, "
				   "base_key, mode, write_shards%s) "
				   "VALUES ($1::pg_catalog.regclass, $2::pg_catalog.regclass, $3, $4, "
				   "$5::pg_catalog.regclass, "
				   "CASE WHEN $5 IS NULL THEN 0 ELSE 1 END, $6, $7, $8%s)",
				   cat->nspname, new_columns ? ", ready, predicate" : "",
				   new_columns ? ", $9, $10" : "");
	registry_exec(sql, new_columns ? 10 : 8, types, values, nulls, SPI_OK_INSERT);
	if (row->predicate_expr != NULL)
		registry_bind_predicate(row->indexrel, row->predicate_expr);
	CacheInvalidateRelcacheByRelid(row->baserel);
}

void
registry_bind_predicate(Oid indexrel, const char *bound)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[3] = {OIDOID, PG_NODE_TREEOID, INT8OID};
	Datum		values[3];

	values[0] = ObjectIdGetDatum(indexrel);
	values[1] = CStringGetTextDatum(bound);
	values[2] = Int64GetDatum((int64) GetSystemIdentifier());
	registry_exec(psprintf("DELETE FROM %s.adjlist_index_predicates "
						   "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
						   cat->nspname), 1, types, values, NULL, SPI_OK_DELETE);
	registry_exec(psprintf("INSERT INTO %s.adjlist_index_predicates "
						   "(indexrel, expr, system_identifier) "
						   "VALUES ($1::pg_catalog.regclass, $2, $3)", cat->nspname),
				  3, types, values, NULL, SPI_OK_INSERT);
}

void
registry_set_predicate_text(Oid indexrel, const char *text)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[2] = {OIDOID, TEXTOID};
	Datum		values[2];

	values[0] = ObjectIdGetDatum(indexrel);
	values[1] = CStringGetTextDatum(text);
	registry_exec(psprintf("UPDATE %s.adjlist_inverted_indexes SET predicate = $2 "
						   "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
						   cat->nspname), 2, types, values, NULL, SPI_OK_UPDATE);
}

void
registry_delete(Oid indexrel)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[1] = {OIDOID};
	Datum		values[1];
	char	   *sql;

	values[0] = ObjectIdGetDatum(indexrel);
	sql = psprintf("DELETE FROM %s.adjlist_inverted_indexes "
				   "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
				   cat->nspname);
	registry_exec(sql, 1, types, values, NULL, SPI_OK_DELETE);
	/* (a registry of 0.1 or 0.2 has no bound predicates) */
	if (OidIsValid(get_relname_relid("adjlist_index_predicates", cat->namespace)))
		registry_exec(psprintf("DELETE FROM %s.adjlist_index_predicates "
							   "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							   cat->nspname), 1, types, values, NULL, SPI_OK_DELETE);
}

void
registry_not_ready(Oid indexrel)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("inverted index \"%s\" is not ready", get_rel_name(indexrel)),
			 errdetail("It is being built by CALL create_inverted_index(..., concurrently => true), or such a build failed, or it was restored before the triggers of its base table (pg_restore's post-data section makes them)."),
			 errhint("Wait for the build or the restore to finish; after a failed build, or writes to the base table before its triggers were restored, run rebuild_inverted_index() or drop_inverted_index().")));
}

void
registry_set_ready(Oid indexrel, bool ready)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[1] = {OIDOID};
	Datum		values[1];
	char	   *sql;
	Oid			base = registry_base_of_index(indexrel);

	values[0] = ObjectIdGetDatum(indexrel);
	sql = psprintf("UPDATE %s.adjlist_inverted_indexes SET ready = %s "
				   "WHERE indexrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass "
				   "AND ready OPERATOR(pg_catalog.<>) %s",
				   cat->nspname, ready ? "true" : "false", ready ? "true" : "false");
	registry_exec(sql, 1, types, values, NULL, SPI_OK_UPDATE);
	if (OidIsValid(base))
		CacheInvalidateRelcacheByRelid(base);
}

void
registry_forget_counters(Oid counterrel)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[1] = {OIDOID};
	Datum		values[1];
	char	   *sql;

	values[0] = ObjectIdGetDatum(counterrel);
	sql = psprintf("UPDATE %s.adjlist_inverted_indexes SET counterrel = NULL, counter_shards = 0 "
				   "WHERE counterrel OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
				   cat->nspname);
	registry_exec(sql, 1, types, values, NULL, SPI_OK_UPDATE);
}
