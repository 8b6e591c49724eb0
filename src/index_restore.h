/*-------------------------------------------------------------------------
 *
 * index_restore.h
 *	  What pg_restore brings back: registry rows (adjlist_registry_restored,
 *	  a trigger of the registry) and the base tables' sync triggers.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_RESTORE_H
#define ADJLIST_INDEX_RESTORE_H

/*
 * Someone other than adjlist made trigger name on relid: when it is one of
 * adjlist's sync triggers and completes its base table's triggers, the
 * indexes a restore left not ready are made exact and ready.
 */
extern void index_restore_triggers_made(Oid relid, const char *name);

#endif							/* ADJLIST_INDEX_RESTORE_H */
