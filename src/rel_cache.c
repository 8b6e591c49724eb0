/*-------------------------------------------------------------------------
 *
 * rel_cache.c
 *	  A bounded per-backend cache of what adjlist knows about relations:
 *	  the registry (registry.c), graph metadata (graph_meta.c) and the
 *	  statements of query() (query_table.c).
 *
 * Each is a hash table keyed by relation OID whose entries start with a
 * RelCacheEntry: a valid flag that the relcache callbacks (catalog.c)
 * clear, so that the owner builds the entry again at its next use, and a
 * memory context, a child of CacheMemoryContext, that owns what was built.
 * A cache that reaches its bound starts over: every entry is released and
 * built again on demand, which costs a few catalog reads, where a backend
 * that touches many tables would otherwise keep them all.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/memutils.h"

#include "rel_cache.h"

void
rel_cache_release(RelCache *c, RelCacheEntry *e)
{
	if (c->release)
		c->release(e);
	if (e->cxt)
		MemoryContextDelete(e->cxt);
	e->cxt = NULL;
}

/*
 * The entry of relid, made if there is none (not valid, and zero past its
 * head).  Entries of other relations may be released to make room: a
 * caller holds on to no entry across a call of this.
 */
RelCacheEntry *
rel_cache_enter(RelCache *c, Oid relid)
{
	RelCacheEntry *e;
	bool		found;

	if (c->hash == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = c->entrysize;
		ctl.hcxt = CacheMemoryContext;
		c->hash = hash_create(c->name, 64, &ctl, HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	if (hash_get_num_entries(c->hash) >= c->max &&
		hash_search(c->hash, &relid, HASH_FIND, NULL) == NULL)
	{
		HASH_SEQ_STATUS status;
		RelCacheEntry *old;

		hash_seq_init(&status, c->hash);
		while ((old = (RelCacheEntry *) hash_seq_search(&status)) != NULL)
		{
			rel_cache_release(c, old);
			hash_search(c->hash, &old->relid, HASH_REMOVE, NULL);
		}
	}
	e = hash_search(c->hash, &relid, HASH_ENTER, &found);
	if (!found)
	{
		memset((char *) e + sizeof(Oid), 0, c->entrysize - sizeof(Oid));
		e->valid = false;
	}
	return e;
}

/* The entry of relid, or NULL. */
RelCacheEntry *
rel_cache_find(RelCache *c, Oid relid)
{
	if (c->hash == NULL)
		return NULL;
	return hash_search(c->hash, &relid, HASH_FIND, NULL);
}
