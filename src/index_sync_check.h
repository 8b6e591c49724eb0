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

/*
 * Is this session restoring a dump (check_function_bodies off, an empty
 * search_path)?
 */
extern bool restoring_dump(void);

/*
 * Plain writes of tables that no trigger keeps (api_guard.c): the
 * post_parse_analyze_hook (api_guard_init(), from sync_guard_init()), and
 * the checks sync_guard.c's executor and utility hooks call.
 */
extern void api_guard_init(void);
extern void api_guard_check_plan(struct PlannedStmt *ps, const char *sql);
extern void api_guard_check_utility(struct Node *stmt);
extern void api_guard_relcache_invalidate(Oid relid);

/* Refuse CREATE TRIGGER adjlist_sync_replica in a form that misses changes. */
extern void sync_check_replica_trigger(Oid relid);

/*
 * Is a trigger of this type, enabled state and function an adjlist sync
 * trigger that indexes inserts in ordinary sessions (AFTER INSERT,
 * adjlist_sync_trigger() of the extension's schema, not replica-only)?
 */
extern bool sync_trigger_keeps_inserts(int16 tgtype, char tgenabled, Oid tgfoid);

#endif							/* ADJLIST_INDEX_SYNC_CHECK_H */
