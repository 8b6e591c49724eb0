/*-------------------------------------------------------------------------
 *
 * index_sync_int.h
 *	  What the sync trigger (index_sync.c) shares with its TRUNCATE
 *	  handling (index_sync_truncate.c): the state of one trigger call and
 *	  the row operations that keep the index filters right.  Not for other
 *	  modules.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_SYNC_INT_H
#define ADJLIST_INDEX_SYNC_INT_H

#include "utils/relcache.h"
#include "utils/tuplestore.h"

#include "catalog.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "index_write.h"
#include "registry.h"

/* One index as the current trigger call writes it. */
typedef struct SyncIndex
{
	const IndexDef *ix;
	MemoryContext cxt;			/* lives as long as the trigger call */
	AttrNumber *attnos;			/* its columns in the firing relation */
	IndexPredicateState *pred;	/* its predicate over the firing relation */
	IndexWriter *writer;		/* opened at first use */
	Counts	   *counts;
	Datum	   *base[2];		/* scratch: old and new base values */
	bool	   *basenull[2];
	Datum	   *row[2];			/* scratch: old and new index rows */
	bool	   *rownull[2];
	Datum		logical[2];
	List	   *recheck;		/* base keys of removed rows to look up again */
} SyncIndex;

typedef struct SyncState
{
	TableIndexes *ti;
	int			nindexes;
	SyncIndex  *indexes;
	bool		spi;
	AdjlistRoleSwitch role;
	MemoryContext rowcxt;
} SyncState;

/*
 * Begin a trigger call on rel: its indexes locked, each with its scratch
 * rows, as the owner (all_modes: also indexes whose mode is not
 * 'trigger', as TRUNCATE keeps every index).  sync_end() writes what is
 * pending and restores the caller's role.
 */
extern void sync_begin(SyncState *st, Relation rel, bool all_modes);
extern void sync_end(SyncState *st);

/*
 * Remove old index row 0, or put new index row 1, of si (computed by the
 * caller), counting the change in the counters when counted.
 */
extern void sync_remove_row(SyncIndex *si, int k, bool counted);
extern void sync_put_row(SyncIndex *si, int k, bool counted, bool bulk);

/* index_sync_truncate.c: the TRUNCATE triggers, and writes during one */
extern void sync_truncate_before(Relation rel);
extern void sync_truncate_after(Relation rel);
extern bool sync_truncate_pending(void);
extern void sync_refuse_truncating_writes(SyncState *st, Relation rel, Tuplestorestate *news,
										  TupleTableSlot *newslot);

#endif							/* ADJLIST_INDEX_SYNC_INT_H */
