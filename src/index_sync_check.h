/*-------------------------------------------------------------------------
 *
 * index_sync_check.h
 *	  Checks of the triggers that keep inverted indexes (index_sync_check.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_SYNC_CHECK_H
#define ADJLIST_INDEX_SYNC_CHECK_H

#include "commands/trigger.h"
#include "utils/relcache.h"

/* Does rel have a trigger of that name? */
extern bool rel_has_trigger(Relation rel, const char *name);

/* Refuse a trigger calling adjlist_sync_trigger() that adjlist did not install. */
extern void sync_check_trigger(TriggerData *td);

/*
 * Refuse a write to a table with sync triggers but no registered index, or
 * with an index table of its own that is not registered.
 */
extern void sync_refuse_unregistered(Relation rel);

/* called by the library's relcache callback (catalog.c) */
extern void sync_check_relcache_invalidate(Oid relid);

/* Install the executor and utility hooks of sync_guard.c (_PG_init). */
extern void sync_guard_init(void);

/* Refuse CREATE TRIGGER adjlist_sync_replica in a form that misses changes. */
extern void sync_check_replica_trigger(Oid relid);

#endif							/* ADJLIST_INDEX_SYNC_CHECK_H */
