/*-------------------------------------------------------------------------
 *
 * registry.c
 *	  The registry of inverted indexes (adjlist_inverted_indexes) as the
 *	  rest of adjlist sees it: the per-backend cache of what each table's
 *	  indexes are, its invalidation and stamps, and the lookups and
 *	  visibility checks answered from it.
 *
 * The registry's code is in four files, which share registry_int.h:
 *
 *	registry.c			the cache and the lookups (this file)
 *	registry_read.c		reading the registry table and the bound predicates
 *	registry_check.c	a registered index checked against the catalogs
 *	registry_write.c	writing the registry, as its owner
 *
 * Trust.  The registry decides which table the sync triggers write, and as
 * whom: they write an index table as its owner.  So nobody but
 * registry_write.c writes it (the table grants PUBLIC only SELECT), and
 * only on behalf of create_inverted_index() and drop_inverted_index(),
 * which have checked that the caller owns both tables, and of the DDL event
 * triggers.  On top of that every reader and writer re-checks, at use, what
 * could have changed since: the index table still exists, is a table, still
 * has the base table's owner, and still has every registered column with
 * the type that column has in the base table.  A mismatch is an error that
 * names the index, never a crash and never a write into the wrong table.
 * Those checks are registry_check.c's; this file runs them when it builds
 * an entry and keeps the outcome with it.
 *
 * Caching.  Lookups are cached per base table (and per partition, pointing
 * at its registered ancestor) in one hash table whose entries own their
 * memory context; a relcache invalidation of any table an entry mentions,
 * or of the registry itself, marks it stale, and it is rebuilt (its memory
 * freed) at the next lookup.  Callers get a copy in their own memory, so a
 * nested call that rebuilds an entry can never pull memory from under an
 * outer one.  The cache holds at most REGISTRY_CACHE_MAX entries.  A
 * predicate the build had bound again (pg_upgrade, registry_read.c) is
 * written back once the build is done.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/transam.h"
#include "access/xact.h"
#include "catalog/partition.h"
#include "nodes/pg_list.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"

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

/*
 * The rows of relid from the registry, noting for the build the predicates
 * bound again.
 */
static int
read_noting(Oid relid, IndexDef **defs)
{
	List	   *now = NIL;
	bool		deferred = false;
	ListCell   *lc;
	int			n = registry_read(relid, defs, &now, &deferred);

	foreach(lc, now)
		rebound_note(lfirst_oid(lc));
	rebind_deferred |= deferred;
	list_free(now);
	return n;
}

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

	*n = read_noting(relid, defs);
	if (*n > 0 || !get_rel_relispartition(relid))
		return relid;
	ancestors = get_partition_ancestors(relid);
	foreach(lc, ancestors)
	{
		Oid			a = lfirst_oid(lc);

		*n = read_noting(a, defs);
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

/* ----------------------------------------------------------------------
 * Lookups, answered from the cache
 * ----------------------------------------------------------------------
 */

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

Oid
registry_base_of(Oid relid)
{
	RegistryEntry *e = entry_get(relid);

	return e->ti.nindexes > 0 ? e->baserel : InvalidOid;
}

/* ----------------------------------------------------------------------
 * What a reader may use: visibility, readiness, the full flip index
 * ----------------------------------------------------------------------
 */

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

void
registry_not_ready(Oid indexrel)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("inverted index \"%s\" is not ready", get_rel_name(indexrel)),
			 errdetail("It is being built by CALL create_inverted_index(..., concurrently => true), or such a build failed, or it was restored before the triggers of its base table (pg_restore's post-data section makes them)."),
			 errhint("Wait for the build or the restore to finish; after a failed build, or writes to the base table before its triggers were restored, run rebuild_inverted_index() or drop_inverted_index().")));
}
