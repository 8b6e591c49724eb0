/*-------------------------------------------------------------------------
 *
 * index_guard_int.h
 *	  What adjlist's three event triggers share: index_guard.c (the
 *	  ddl_command_start guards and refusals, and the dispatch of every
 *	  command at its start), index_guard_drop.c (DROP of partitions, schemas
 *	  and owned objects at the start; the sql_drop trigger) and
 *	  index_guard_end.c (the ddl_command_end follow-ups); with
 *	  index_guard_cascade.c (what a DROP takes by a dependency, at sql_drop)
 *	  and index_guard_foreign.c (foreign tables' options, at the start).
 *	  Not for other modules.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_GUARD_INT_H
#define ADJLIST_INDEX_GUARD_INT_H

#include "fmgr.h"
#include "commands/event_trigger.h"
#include "nodes/parsenodes.h"
#include "nodes/pg_list.h"

/* index_guard.c */
extern EventTriggerData *guard_event_data(FunctionCallInfo fcinfo, const char *fname);
extern bool guard_extension_ready(void);
extern Oid	guard_rangevar_oid(RangeVar *rv);
extern Oid	guard_base_of(Oid relid);
extern void guard_refuse_inheritance(Oid child, Oid parent);
extern void guard_refuse_new_member(Oid relid, Oid parent);
extern List *guard_typed_tables(Oid relid);

/* index_guard_drop.c: DROP at ddl_command_start */
extern void guard_start_drop(DropStmt *stmt);
extern void guard_start_drop_schema(DropStmt *stmt);
extern void guard_start_drop_owned(DropOwnedStmt *stmt);

/* index_guard_end.c */
extern void refuse_moved_names(const char *command);

/*
 * index_guard_names.c: what the statement's names found at its start
 * (ddl_names_start()), compared at its ddl_command_end (ddl_names_end())
 * and sql_drop (ddl_names_dropped()) with what it acted on.
 */
extern void ddl_names_start(Node *stmt);
extern void ddl_names_end(Node *stmt);
extern void ddl_names_dropped(Node *stmt);

extern void guard_recheck(Oid relid);

/* index_guard_cascade.c: what a DROP takes by a dependency (sql_drop) */
extern void guard_cascade_note_taken(Oid relid);
extern void guard_cascade_check_members(EventTriggerData *ev);
extern void guard_cascade_recheck_columns(EventTriggerData *ev);

/* index_guard_foreign.c: ALTER FOREIGN TABLE ... OPTIONS (ddl_command_start) */
extern void guard_refuse_foreign_options(Node *parsetree);

#endif							/* ADJLIST_INDEX_GUARD_INT_H */
