/*-------------------------------------------------------------------------
 *
 * ddl_collected.h
 *	  The relations a DDL command changed, as PostgreSQL collected them
 *	  (ddl_collected.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_DDL_COLLECTED_H
#define ADJLIST_DDL_COLLECTED_H

#include "nodes/parsenodes.h"

/* One command that the statement whose event is firing ran. */
typedef struct DdlCommand
{
	Node	   *stmt;			/* its statement, as collected (a copy) */
	Oid			relid;			/* the relation it made, altered or renamed
								 * (or the one its trigger, constraint,
								 * policy or rule belongs to; an index for
								 * CREATE INDEX) */
	List	   *subcmds;		/* ALTER TABLE: its CollectedATSubcmd *s */
} DdlCommand;

/*
 * The commands of the statement whose ddl_command_end or sql_drop event is
 * firing that name a relation, in the order they ran; valid until the
 * event trigger function returns.
 */
extern List *ddl_collected_commands(void);

/*
 * ALTER TABLE ... ATTACH or DETACH PARTITION stmt: its ddl_command_start
 * remembers the command counter (ddl_remember_start()), for its
 * ddl_command_end (ddl_command_started(), once; InvalidCommandId if none
 * was remembered).
 */
extern void ddl_remember_start(Node *stmt);
extern CommandId ddl_command_started(Node *stmt);

/*
 * The partitions that ALTER TABLE relid ATTACH PARTITION name attached:
 * partitions of relid now, so named, whose pg_inherits row this
 * transaction wrote since command since (ddl_command_started(); any, if
 * InvalidCommandId), and that no earlier call has returned.
 */
extern List *ddl_attached_partitions(Oid relid, const RangeVar *name, CommandId since);

/*
 * DETACH PARTITION [FINALIZE] of relid: the partition its ddl_command_start
 * found (ddl_remember_detach()), for its ddl_command_end
 * (ddl_detached_partition(), once, of those remembered since command since;
 * InvalidOid if none was remembered).  ddl_detach_left(): whether one
 * remembered since then is left, which the command's end did not take.
 */
extern void ddl_remember_detach(Oid relid, Oid part);
extern Oid	ddl_detached_partition(Oid relid, CommandId since);
extern bool ddl_detach_left(CommandId since);

/*
 * Is part a partition that a DETACH PARTITION still running detached (its
 * start remembered it, its end has not taken it yet)?
 */
extern bool ddl_detaching(Oid part);

/*
 * DROP TABLE: the partitions whose rows its ddl_command_start took out of
 * their index (ddl_remember_drop()); at its ddl_command_end,
 * ddl_drop_left() forgets those remembered since command since
 * (ddl_command_started()) and returns one that still exists, if any.
 */
extern void ddl_remember_drop(Oid relid);
extern Oid	ddl_drop_left(CommandId since);

/*
 * At sql_drop: the OIDs in the first column of query, a SELECT over
 * pg_event_trigger_dropped_objects(), in the caller's memory.
 */
extern List *ddl_dropped_oids(const char *query);

#endif							/* ADJLIST_DDL_COLLECTED_H */
