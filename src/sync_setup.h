/*-------------------------------------------------------------------------
 *
 * sync_setup.h
 *	  What a sync trigger call (index_sync.c) sets up on a relation before
 *	  it reads a row, kept per relation and backend (sync_setup.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_SYNC_SETUP_H
#define ADJLIST_SYNC_SETUP_H

#include "utils/relcache.h"

#include "registry.h"
#include "rel_cache.h"

/*
 * The indexes a trigger call on a relation writes, each one's columns in
 * the relation, and whether its writers need SPI or run code.  Never
 * changed once built: a caller reads it, never writes it.
 */
typedef struct SyncSetup
{
	RelCacheEntry head;			/* valid: built whole and kept; cxt owns the
								 * rest */
	uint64		stamp;			/* registry_stamp() it was built under */
	bool		all_modes;		/* also indexes not in mode 'trigger' */
	TableIndexes *ti;
	int			nindexes;		/* the indexes the calls write: */
	const IndexDef **ix;
	AttrNumber **attnos;
	bool		spi;			/* some writer may take the SQL path */
	bool		pin_path;		/* some work looks a name up (sync_begin()) */
} SyncSetup;

/*
 * The setup of a trigger call on rel, with the index and counter tables of
 * its indexes locked (RowExclusiveLock).  It stays readable until the end
 * of the transaction, whatever later calls do.
 */
extern const SyncSetup *sync_setup_get(Relation rel, bool all_modes);

#endif							/* ADJLIST_SYNC_SETUP_H */
