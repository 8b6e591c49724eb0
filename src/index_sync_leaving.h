/*-------------------------------------------------------------------------
 *
 * index_sync_leaving.h
 *	  Partitions whose rows left their index at the start of a DETACH or
 *	  DROP that has not ended yet, and the writes into them that the sync
 *	  trigger refuses meanwhile (index_sync_leaving.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_SYNC_LEAVING_H
#define ADJLIST_INDEX_SYNC_LEAVING_H

#include "commands/trigger.h"

/*
 * Partition relid of base table base: its rows have just left the index
 * (ddl_command_start of DETACH PARTITION, or of a DROP that drops it);
 * detaching tells which, for the message.
 */
extern void sync_leaving_mark(Oid base, Oid relid, bool detaching);

/*
 * The statement that started at command since has ended: the partitions it
 * marked (in this subtransaction, since then) are no longer leaving.
 */
extern void sync_leaving_forget(CommandId since);

/*
 * In the sync trigger of base table base (td: the trigger call): refuse a
 * write that reads or writes a row of a leaving partition of base.  Cheap
 * when no partition is leaving.
 */
extern void sync_refuse_leaving_writes(Oid base, TriggerData *td);

#endif							/* ADJLIST_INDEX_SYNC_LEAVING_H */
