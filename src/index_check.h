/*-------------------------------------------------------------------------
 *
 * index_check.h
 *	  Verifying and repairing an inverted index (index_check.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_CHECK_H
#define ADJLIST_INDEX_CHECK_H

#include "registry.h"

/*
 * Repair the index (and its counters) from its base table, touching only
 * the rows that drifted; returns the number of problems found.  Locks the
 * base table against writers; the caller has checked ownership and that
 * the transaction reads with a fresh snapshot per statement.
 */
extern int64 index_rebuild(const IndexDef *ix);

/*
 * For a concurrent build (index_build.c), with the transaction's snapshot:
 * the number of rows where the index and its base table differ, and one
 * delta row per counter group that is off.
 */
extern int64 index_count_differences(const IndexDef *ix);
extern void index_correct_counters(const IndexDef *ix);

#endif							/* ADJLIST_INDEX_CHECK_H */
