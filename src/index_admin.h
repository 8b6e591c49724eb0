/*-------------------------------------------------------------------------
 *
 * index_admin.h
 *	  Creating and dropping inverted indexes, and the triggers and rows
 *	  that follow a base table's partitions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_ADMIN_H
#define ADJLIST_INDEX_ADMIN_H

#include "registry.h"

/*
 * (Re)install the triggers of a base table and of all its partitions so
 * that they cover its registered indexes; remove them when none is left.
 * Runs as the caller, who must be allowed to create triggers on them.
 */
extern void install_triggers(Oid baserel);

/*
 * Drop an inverted index: its registration, the triggers it needed, its
 * index and counter tables.  The caller must own the base table.
 */
extern void drop_index(Oid indexrel);

/* Remove adjlist's triggers from a table (and its partitions). */
extern void remove_triggers(Oid relid);

/*
 * Add to, or remove from, every index of baserel the index rows of the
 * rows of one table (a partition being attached or detached, or dropped).
 */
extern void index_member_rows(Oid baserel, Oid member, bool add);

/* CREATE INDEX of a counter table (qcnt: its qualified name). */
extern char *counters_index_sql(const char *qcnt);

/* Refuse a base table or an index table adjlist cannot keep exact. */
extern void check_indexable_table(Oid relid, const char *role);

#endif							/* ADJLIST_INDEX_ADMIN_H */
