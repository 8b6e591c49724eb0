/*-------------------------------------------------------------------------
 *
 * rel_cache.h
 *	  A bounded per-backend cache of what adjlist knows about relations.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_REL_CACHE_H
#define ADJLIST_REL_CACHE_H

#include "utils/hsearch.h"

/* The head every entry of a relation cache starts with. */
typedef struct RelCacheEntry
{
	Oid			relid;			/* hash key */
	bool		valid;			/* false: built again at its next use */
	MemoryContext cxt;			/* owns what the entry points to, or NULL */
} RelCacheEntry;

/*
 * A cache: initialize with REL_CACHE_INIT in a static variable; its hash
 * table is made at first use.  Its invalidation callbacks walk hash (when
 * not NULL) with hash_seq_search() and clear the entries' valid flags.
 */
typedef struct RelCache
{
	const char *name;
	Size		entrysize;		/* of the entry type, RelCacheEntry first */
	long		max;			/* entries held before starting over */
	void		(*release) (RelCacheEntry *e);	/* frees more than cxt; or NULL */
	HTAB	   *hash;
} RelCache;

#define REL_CACHE_INIT(name, entrytype, max, release) \
	{(name), sizeof(entrytype), (max), (release), NULL}

extern RelCacheEntry *rel_cache_enter(RelCache *c, Oid relid);
extern RelCacheEntry *rel_cache_find(RelCache *c, Oid relid);
extern void rel_cache_release(RelCache *c, RelCacheEntry *e);

#endif							/* ADJLIST_REL_CACHE_H */
