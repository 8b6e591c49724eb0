/*-------------------------------------------------------------------------
 *
 * registry_read.c
 *	  Reading the registry table (adjlist_inverted_indexes) and the bound
 *	  predicates beside it: the rows of one base table, for the cache
 *	  (registry.c), and the registry-wide questions that go to the table
 *	  itself: which base table an index or counter table belongs to, every
 *	  registration, whether a new row makes a table serve twice.
 *
 * The registry's column numbers and indexes are looked up once per
 * registry table (registry_columns()); registry.c's relcache callback has
 * them forgotten (registry_columns_forget()), since ALTER EXTENSION adjlist
 * UPDATE adds columns and a re-created extension has a new registry.  A
 * registry of an older version lacks the newer columns: ready, predicate,
 * write_shards read as their defaults.
 *
 * A sparse index's predicate is kept twice: as text in the registry (what
 * pg_dump carries) and bound, in adjlist_index_predicates (not dumped),
 * which registry_write.c writes and this file reads alongside
 * (index_predicate.c says why).  A registration whose predicate has no
 * bound form is a problem, like a missing column: nothing ever parses the
 * text to evaluate it.  A bound form made in another cluster (pg_upgrade
 * copied it with OIDs that are not this cluster's) is never used either:
 * registry_read() has it bound again from the text
 * (index_predicate_rebind()), and it is a problem only if that fails;
 * registry.c writes the new form back once its cache entry is built.
 *
 * Snapshots.  The registry is read with SnapshotSelf: every committed row,
 * no predicate locks (a SERIALIZABLE writer gets no serialization failure
 * from the registry).  Registry rows change only while the base table is
 * locked against writers (its triggers are re-created), so a writer that
 * holds its lock sees the registry as it is.  Readers, whose snapshot may
 * be older, skip an index whose registry row they cannot see
 * (registry_visible(), registry.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xlog.h"
#include "catalog/partition.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_predicate.h"
#include "registry.h"
#include "registry_int.h"

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

void
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

/* Is the index a valid plain btree whose only key column is *arg? */
static bool
index_is_btree_on(HeapTuple tp, const void *arg)
{
	Form_pg_index idx = (Form_pg_index) GETSTRUCT(tp);
	AttrNumber	attno = *(const AttrNumber *) arg;

	return idx->indnkeyatts == 1 && idx->indkey.values[0] == attno && idx->indisvalid &&
		idx->indisready && heap_attisnull(tp, Anum_pg_index_indpred, NULL) &&
		heap_attisnull(tp, Anum_pg_index_indexprs, NULL) &&
		index_am(idx->indexrelid) == BTREE_AM_OID;
}

/* The btree of the registry whose only key column is attno, or InvalidOid. */
static Oid
registry_index_on(Relation reg, AttrNumber attno)
{
	return adjlist_index_where(reg, index_is_btree_on, &attno);
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
 * A scan (SnapshotSelf) of the rows of rel whose OID column attno is value,
 * by rel's btree index on it when there is one.
 */
static SysScanDesc
scan_by(Relation rel, AttrNumber attno, Oid index, Oid value)
{
	ScanKeyData key;

	/* (systable_beginscan() copies the key) */
	ScanKeyInit(&key, attno, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(value));
	return systable_beginscan(rel, index, OidIsValid(index), SnapshotSelf, 1, &key);
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
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *expr = NULL;

	if (!OidIsValid(rc->bound))
		return NULL;
	rel = table_open(rc->bound, AccessShareLock);
	scan = scan_by(rel, 1, rc->bound_by_indexrel, indexrel);
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

int
registry_read(Oid baserel, IndexDef **out, List **rebound, bool *deferred)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	reg = table_open(cat->registry, AccessShareLock);
	TupleDesc	desc = RelationGetDescr(reg);
	RegistryColumns rc;
	SysScanDesc scan;
	HeapTuple	tup;
	RawIndex   *raw = NULL;
	int			n = 0;
	int			cap = 0;
	bool		elsewhere = false;

	registry_columns(reg, &rc);
	scan = scan_by(reg, rc.baserel, rc.by_baserel, baserel);
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
			bool		later;

			raw[i].def.predicate_expr = index_predicate_rebind(&raw[i].def, &later);
			*deferred |= later;
			if (raw[i].def.predicate_expr != NULL)
				*rebound = lappend_oid(*rebound, raw[i].def.indexrel);
		}
	if (n > 1)
		qsort(raw, n, sizeof(RawIndex), raw_index_cmp);
	*out = palloc(sizeof(IndexDef) * Max(n, 1));
	for (int i = 0; i < n; i++)
		(*out)[i] = raw[i].def;
	return n;
}

/* The base table an index table belongs to, from the registry. */
static Oid
base_of_index(Oid indexrel)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	reg = table_open(cat->registry, AccessShareLock);
	RegistryColumns rc;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			base = InvalidOid;

	registry_columns(reg, &rc);
	scan = scan_by(reg, rc.indexrel, rc.by_indexrel, indexrel);
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

/*
 * A scan of every registry row (SnapshotSelf), for the registry-wide
 * questions below: each row's index, base and counter table.
 */
typedef struct RowScan
{
	Relation	reg;
	RegistryColumns rc;
	SysScanDesc scan;
} RowScan;

static void
rows_begin(RowScan *rs)
{
	rs->reg = table_open(adjlist_catalog()->registry, AccessShareLock);
	registry_columns(rs->reg, &rs->rc);
	rs->scan = systable_beginscan(rs->reg, InvalidOid, false, SnapshotSelf, 0, NULL);
}

/* The next row's tables (counterrel InvalidOid for none); false at the end. */
static bool
rows_next(RowScan *rs, Oid *indexrel, Oid *baserel, Oid *counterrel)
{
	TupleDesc	desc = RelationGetDescr(rs->reg);
	HeapTuple	tup = systable_getnext(rs->scan);
	bool		isnull;
	Datum		v;

	if (!HeapTupleIsValid(tup))
		return false;
	*indexrel = DatumGetObjectId(heap_getattr(tup, rs->rc.indexrel, desc, &isnull));
	*baserel = DatumGetObjectId(heap_getattr(tup, rs->rc.baserel, desc, &isnull));
	v = heap_getattr(tup, rs->rc.counterrel, desc, &isnull);
	*counterrel = isnull ? InvalidOid : DatumGetObjectId(v);
	return true;
}

static void
rows_end(RowScan *rs)
{
	systable_endscan(rs->scan);
	table_close(rs->reg, AccessShareLock);
}

/* The base table of the index or counter table relid, or InvalidOid. */
static Oid
base_of_derived(Oid relid)
{
	RowScan		rs;
	Oid			indexrel;
	Oid			baserel;
	Oid			counterrel;
	Oid			base = InvalidOid;

	rows_begin(&rs);
	while (!OidIsValid(base) && rows_next(&rs, &indexrel, &baserel, &counterrel))
		if (indexrel == relid || (OidIsValid(counterrel) && counterrel == relid))
			base = baserel;
	rows_end(&rs);
	return base;
}

int
registry_all(Oid **indexes, Oid **bases, Oid **counters)
{
	RowScan		rs;
	int			n = 0;
	int			cap = 16;

	rows_begin(&rs);
	*indexes = palloc(sizeof(Oid) * cap);
	*bases = palloc(sizeof(Oid) * cap);
	*counters = palloc(sizeof(Oid) * cap);
	for (;;)
	{
		if (n >= cap)
		{
			cap *= 2;
			*indexes = repalloc(*indexes, sizeof(Oid) * cap);
			*bases = repalloc(*bases, sizeof(Oid) * cap);
			*counters = repalloc(*counters, sizeof(Oid) * cap);
		}
		if (!rows_next(&rs, &(*indexes)[n], &(*bases)[n], &(*counters)[n]))
			break;
		n++;
	}
	rows_end(&rs);
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
	RowScan		rs;
	Oid			indexrel;
	Oid			baserel;
	Oid			counterrel;
	int			n = 0;

	rows_begin(&rs);
	while (rows_next(&rs, &indexrel, &baserel, &counterrel))
	{
		if (indexrel == relid)
			n++;
		if (OidIsValid(counterrel) && counterrel == relid)
			n++;
	}
	rows_end(&rs);
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
