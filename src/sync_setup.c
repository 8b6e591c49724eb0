/*-------------------------------------------------------------------------
 *
 * sync_setup.c
 *	  What a sync trigger call sets up on a relation before it reads a
 *	  row, kept per relation and backend.
 *
 * sync_begin() (index_sync.c) starts every trigger call with
 * sync_setup_get(): the registry's indexes of the firing relation (a copy),
 * each one's columns in the relation, and whether its writers need SPI or
 * run code.  All of it follows from the registry entry, the relation's
 * columns and the index and counter tables' catalog facts (writer_info.c),
 * which a relcache invalidation of any of them changes, and each
 * invalidation changes registry_stamp_now() (registry.c): a setup is used
 * again while the stamp is the one taken before it was built.  That stamp,
 * not a callback of its own clearing the entries' valid flags as the other
 * users of rel_cache.c have, is what a setup is checked against: it
 * depends on more relations than the one it is kept under, and the stamp
 * moves at an invalidation of any of them.  Building it again cost a
 * single-row DELETE 3,000 instructions, an eighth of its trigger call.
 *
 * The setups are a RelCache (rel_cache.c) of SYNC_SETUPS_MAX relations; an
 * entry's valid flag says it was built whole and kept.  A setup is never
 * changed once built, and one replaced (built again, or dropped when the
 * cache starts over) is moved under TopTransactionContext rather than
 * freed: a call still running (an outer trigger call, whose writes fired
 * the one that found it stale) keeps reading it until the transaction
 * ends.  A setup is built in memory of the transaction and kept only once
 * whole, so an error during the build leaves no entry behind.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "storage/lmgr.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "index_rule.h"
#include "index_write.h"
#include "registry.h"
#include "rel_cache.h"
#include "sync_setup.h"

#define SYNC_SETUPS_MAX 256		/* relations; then all are dropped */

static void setup_retire(RelCacheEntry *e);

static RelCache sync_setups = REL_CACHE_INIT("adjlist sync setups", SyncSetup,
											 SYNC_SETUPS_MAX, setup_retire);

static char *counter_columns[] = {"node", "edge", "direction", "n"};

/* Retire a setup: freed at the end of the transaction (see above). */
static void
setup_retire(RelCacheEntry *e)
{
	if (e->cxt != NULL)
		MemoryContextSetParent(e->cxt, TopTransactionContext);
	e->cxt = NULL;
	e->valid = false;
}

/* Lock the index and counter tables of the setup's indexes. */
static void
setup_lock(const SyncSetup *su)
{
	for (int i = 0; i < su->nindexes; i++)
	{
		LockRelationOid(su->ix[i]->indexrel, RowExclusiveLock);
		if (OidIsValid(su->ix[i]->counterrel))
			LockRelationOid(su->ix[i]->counterrel, RowExclusiveLock);
	}
}

/*
 * Build the setup of rel into su, in the current memory context: the
 * indexes of the firing relation, with their tables locked.  The triggers
 * keep every index, whatever its mode (the write API writes index rows
 * itself only where no trigger runs: Citus), except on the SQL objects of
 * 0.1 and 0.2 not yet updated, whose write API still writes the indexes in
 * API mode itself: all_modes is then false but for TRUNCATE.  The tables
 * are locked before the registry entry is trusted; if an invalidation
 * arrives while they are being locked, the lookup is repeated.
 */
static void
setup_build(SyncSetup *su, Relation rel, bool all_modes)
{
	TableIndexes *ti = NULL;

	for (int attempt = 0;; attempt++)
	{
		ti = registry_lookup(RelationGetRelid(rel));
		su->ti = ti;
		su->nindexes = 0;
		su->ix = palloc(sizeof(IndexDef *) * Max(ti->nindexes, 1));
		for (int i = 0; i < ti->nindexes; i++)
			if (all_modes || ti->indexes[i].mode == INDEX_MODE_TRIGGER)
				su->ix[su->nindexes++] = &ti->indexes[i];
		setup_lock(su);
		if (!registry_changed(ti) || attempt >= 3)
			break;
	}
	su->all_modes = all_modes;
	su->spi = false;
	su->pin_path = false;
	su->attnos = palloc(sizeof(AttrNumber *) * Max(su->nindexes, 1));
	for (int i = 0; i < su->nindexes; i++)
	{
		const IndexDef *ix = su->ix[i];
		bool		runs_code;

		su->attnos[i] = index_row_attnos(ix, RelationGetDescr(rel));
		if (index_writer_needs_spi(ix->indexrel, ix->colnames, ix->nkeys, WRITE_UPSERT,
								   &runs_code))
			su->spi = true;
		su->pin_path |= runs_code || ix->predicate != NULL;
		if (OidIsValid(ix->counterrel) &&
			index_writer_needs_spi(ix->counterrel, counter_columns, 3, WRITE_APPEND,
								   &runs_code))
			su->spi = true;
		/* counters of 0.1 and 0.2 are written through SQL (index_rule.c) */
		su->pin_path |= runs_code || (OidIsValid(ix->counterrel) && ix->counter_legacy);
	}
}

/*
 * The setup of a trigger call on rel, its tables locked: the one kept if
 * no invalidation came since it was built (also none while its tables were
 * being locked), else built again, and kept if none came meanwhile.
 */
const SyncSetup *
sync_setup_get(Relation rel, bool all_modes)
{
	Oid			relid = RelationGetRelid(rel);
	SyncSetup  *su;
	SyncSetup	fresh;
	uint64		stamp;
	MemoryContext cxt;
	MemoryContext old;

	su = (SyncSetup *) rel_cache_find(&sync_setups, relid);
	if (su != NULL && su->head.valid && su->stamp == registry_stamp_now() &&
		su->all_modes == all_modes)
	{
		setup_lock(su);
		if (su->stamp == registry_stamp_now())
			return su;
	}

	stamp = registry_stamp_now();
	/* (in the transaction's memory until kept: an error frees it) */
	cxt = AllocSetContextCreate(TopTransactionContext, "adjlist sync setup",
								ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	memset(&fresh, 0, sizeof(fresh));
	setup_build(&fresh, rel, all_modes);
	MemoryContextSwitchTo(old);
	fresh.head.relid = relid;
	fresh.head.cxt = cxt;
	if (registry_stamp(relid) != stamp || stamp == 0)
	{
		/* an invalidation came during the build: used once, not kept */
		su = MemoryContextAlloc(cxt, sizeof(SyncSetup));
		*su = fresh;
		return su;
	}
	/* (the cache may start over here, releasing every entry) */
	su = (SyncSetup *) rel_cache_enter(&sync_setups, relid);
	rel_cache_release(&sync_setups, &su->head);
	fresh.head.valid = true;
	fresh.stamp = stamp;
	MemoryContextSetParent(cxt, CacheMemoryContext);
	*su = fresh;
	return su;
}
