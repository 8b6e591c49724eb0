/*-------------------------------------------------------------------------
 *
 * graph_nodes.c
 *	  What every multi-hop graph function shares: sets of visited nodes,
 *	  directions, and the expansion of nodes (one, or a whole level) into
 *	  their neighbors.
 *
 * Visited nodes live in a hash table (open addressing) keyed by the node's
 * bytes, copied once into an arena of the set's memory context.  Two limits keep a call from exhausting
 * memory: adjlist.max_visited caps the nodes of one set, and the memory of
 * all of a call's sets is charged against adjlist.max_memory (bytes;
 * graph_reader.c), so a traversal that would grow without bound stops with
 * SQLSTATE 54000 instead of an out-of-memory.
 *
 * Expansion goes through graph_reader.c, a level at a time where a
 * function's algorithm allows it (BFS, ranked walks, export), so that a
 * table read through SQL (Citus, foreign or partitioned tables, row-level
 * security) costs a statement per level, not per node.  Within a level,
 * neighbors arrive in the frontier's order and each node's edges in key
 * order, whichever path read them, so results do not depend on the path.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "adjlist.h"
#include "catalog.h"
#include "graph.h"

int			adjlist_max_visited = 1000000;

/* ----------------------------------------------------------------------
 * Node sets
 *
 * An open-addressing hash table (linear probing) of 32-byte entries: the
 * key's hash, its id (its GNode is byid[id]) and, for a key of up to
 * NODE_INLINE bytes, the bytes themselves.  A probe of a short key (most
 * node keys: 'USER#12345') so reads one entry, or the next ones of the same
 * cache line, and nothing else: a traversal probes its set once per edge it
 * reads, and following byid[] to the GNode and then to its key bytes cost
 * three dependent cache misses a probe, about half of a deep traversal's
 * time.  A longer key is compared through byid[id].  Sets only grow (no
 * deletions), so no tombstones; the table doubles past 3/4 full, moving
 * entries by their stored hash.  GNodes are allocated a block at a time and
 * never move (callers keep pointers to them); their key bytes are copied
 * into an arena of blocks.  So the set allocates per block, never per probe
 * or per node, and its memory is proportional to the nodes it holds: about
 * 150 to 200 bytes a node with keys of up to NODE_INLINE bytes, half as
 * much again as with simplehash's 12-byte entries (which held no key, and
 * cost three cache misses a probe).
 * ----------------------------------------------------------------------
 */

#define NODESET_INITIAL 64		/* buckets; small: walk_ranked makes a set per hop */
#define NODE_BLOCK 256			/* GNodes per block */
#define ARENA_BLOCK 8192		/* bytes per arena block */
#define ARENA_OWN 1024			/* a key this long gets its own chunk */
#define NODE_INLINE 23			/* key bytes kept in the hash entry */
#define NODE_LONG 0xFF			/* NodeEntry.len of a longer key */

struct NodeEntry
{
	uint32		hash;
	int32		id;				/* byid[id]; -1: an empty bucket */
	uint8		len;			/* bytes in inl, or NODE_LONG */
	char		inl[NODE_INLINE];
};

StaticAssertDecl(sizeof(NodeEntry) == 32, "a node hash entry is 32 bytes");
StaticAssertDecl(NODE_BATCH_BYTES >= 2 * ADJKEY_MAX_BYTES, "a batch holds any neighbor key");

/*
 * A node key's hash: eight bytes at a time, each word mixed in by a
 * multiplication and a shift, and the result by splitmix64's finalizer
 * (every input bit reaches every output bit), inline.  hash_bytes() took
 * a tenth of a ranked walk's time: a walk hashes a key per edge it reads.
 * The hashes live only in a call's sets, so any function will do that
 * spreads keys over the buckets a mask keeps.
 */
static inline uint32
nodeset_hash_bytes(const char *data, int len)
{
	uint64		h = (uint64) len * UINT64CONST(0x9E3779B97F4A7C15);
	uint64		w;
	int			n = len;

	for (; n > 8; data += 8, n -= 8)
	{
		memcpy(&w, data, 8);
		h = (h ^ w) * UINT64CONST(0xBF58476D1CE4E5B9);
		h ^= h >> 32;
	}
	/*
	 * The last (up to) eight bytes: a key of eight or more ends with a load
	 * of its last eight, overlapping the words before (the length is in h),
	 * not with a copy of a variable length, which the load after it would
	 * have to wait for.
	 */
	if (len >= 8)
		memcpy(&w, data + n - 8, 8);
	else
	{
		w = 0;
		for (int i = 0; i < n; i++)
			w = (w << 8) | (uint8) data[i];
	}
	h = (h ^ w) * UINT64CONST(0xBF58476D1CE4E5B9);
	h ^= h >> 32;
	h ^= h >> 30;
	h *= UINT64CONST(0xBF58476D1CE4E5B9);
	h ^= h >> 27;
	h *= UINT64CONST(0x94D049BB133111EB);
	h ^= h >> 31;
	return (uint32) h;
}

uint32
nodeset_hash(const char *data, int len)
{
	return nodeset_hash_bytes(data, len);
}

/* Is the entry (not empty) the key data? */
static inline bool
nodeset_entry_is(NodeSet *set, const NodeEntry *e, uint32 hash, const char *data, int len)
{
	const NodeKey *k;

	if (e->hash != hash)
		return false;
	if (len <= NODE_INLINE)
		return e->len == len && adjkey_bytes_equal(e->inl, data, len);
	if (e->len != NODE_LONG)
		return false;
	k = &set->byid[e->id]->key;
	return k->len == len && memcmp(k->data, data, len) == 0;
}

/* The bucket of the key: its entry, or the empty bucket where it goes. */
static inline NodeEntry *
nodeset_bucket(NodeSet *set, uint32 hash, const char *data, int len)
{
	uint32		i = hash & set->mask;

	for (;;)
	{
		NodeEntry  *e = &set->table[i];

		if (e->id < 0 || nodeset_entry_is(set, e, hash, data, len))
			return e;
		i = (i + 1) & set->mask;
	}
}

/* A table of size buckets (a power of two), all empty. */
static NodeEntry *
nodeset_table_alloc(NodeSet *set, Size size)
{
	NodeEntry  *t = MemoryContextAllocExtended(set->cxt, size * sizeof(NodeEntry),
											   MCXT_ALLOC_HUGE);

	for (Size i = 0; i < size; i++)
		t[i].id = -1;
	return t;
}

/* Double the table, moving every entry by its stored hash. */
static void
nodeset_grow(NodeSet *set)
{
	NodeEntry  *old = set->table;
	Size		oldsize = (Size) set->mask + 1;
	Size		size = oldsize * 2;

	if (size > (Size) PG_UINT32_MAX + 1)
		elog(ERROR, "node set of %s() is too large", set->what);
	set->table = nodeset_table_alloc(set, size);
	set->mask = (uint32) (size - 1);
	for (Size j = 0; j < oldsize; j++)
	{
		uint32		i;

		if (old[j].id < 0)
			continue;
		i = old[j].hash & set->mask;
		while (set->table[i].id >= 0)
			i = (i + 1) & set->mask;
		set->table[i] = old[j];
	}
	pfree(old);
}

/*
 * A new set in its own context under parent; parent is what the memory
 * limit charges, so a call's sets share one parent.
 */
void
nodeset_init(NodeSet *set, MemoryContext parent, const char *what)
{
	memset(set, 0, sizeof(*set));
	set->cxt = AllocSetContextCreate(parent, "adjlist nodes", ALLOCSET_DEFAULT_SIZES);
	set->charged = parent;
	set->what = what;
	set->table = nodeset_table_alloc(set, NODESET_INITIAL);
	set->mask = NODESET_INITIAL - 1;
	set->cap = NODESET_INITIAL;
	set->byid = MemoryContextAlloc(set->cxt, sizeof(GNode *) * set->cap);
	set->n = 0;
}

GNode *
nodeset_find(NodeSet *set, const char *data, int len)
{
	return nodeset_find_hashed(set, data, len, nodeset_hash_bytes(data, len));
}

/*
 * The id of a node of the set, or -1: for a caller that needs no more (a
 * probe of a level for each index tuple of a pass), without reading the
 * node itself, another cache miss a probe.
 */
int32
nodeset_find_id(NodeSet *set, const char *data, int len)
{
	return nodeset_bucket(set, nodeset_hash_bytes(data, len), data, len)->id;
}

/* nodeset_find of a key whose nodeset_hash() the caller has */
GNode *
nodeset_find_hashed(NodeSet *set, const char *data, int len, uint32 hash)
{
	NodeEntry  *e = nodeset_bucket(set, hash, data, len);

	return e->id >= 0 ? set->byid[e->id] : NULL;
}

/* A copy of a node's bytes in the set's arena. */
static const char *
nodeset_copy_key(NodeSet *set, const char *data, int len)
{
	char	   *p;

	if (len >= ARENA_OWN)
		p = MemoryContextAlloc(set->cxt, len);
	else
	{
		if (set->arena_free < (Size) len)
		{
			set->arena = MemoryContextAlloc(set->cxt, ARENA_BLOCK);
			set->arena_free = ARENA_BLOCK;
		}
		p = set->arena;
		set->arena += len;
		set->arena_free -= len;
	}
	memcpy(p, data, len);
	return p;
}

/* The GNode of a new node, id set->n; the caller fills the key. */
static GNode *
nodeset_new_node(NodeSet *set)
{
	GNode	   *node;

	if (set->nodes_free == 0)
	{
		set->nodes = MemoryContextAlloc(set->cxt, sizeof(GNode) * NODE_BLOCK);
		set->nodes_free = NODE_BLOCK;
	}
	node = set->nodes++;
	set->nodes_free--;
	if (set->n >= set->cap)
	{
		set->cap *= 2;
		set->byid = repalloc(set->byid, sizeof(GNode *) * set->cap);
	}
	node->id = set->n;
	node->depth = 0;
	node->parent = -1;
	node->score = 0;
	set->byid[set->n] = node;
	return node;
}

/*
 * Add a node not in the set, whose bucket (nodeset_bucket: empty) e is;
 * returns its id.  Out of line: most probes of a search find their node.
 */
static pg_noinline int32
nodeset_insert(NodeSet *set, NodeEntry *e, const char *data, int len, uint32 hash)
{
	GNode	   *node;

	if (set->n >= adjlist_max_visited)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("graph search visited more than %d nodes", adjlist_max_visited),
				 errdetail("The call of %s() reached adjlist.max_visited.", set->what),
				 errhint("Raise adjlist.max_visited, or lower max_depth or the limit.")));
	if ((set->n & 1023) == 1023)
		graph_charge(set->charged, set->what);
	node = nodeset_new_node(set);
	node->key.data = nodeset_copy_key(set, data, len);
	node->key.len = len;
	e->hash = hash;
	e->len = len <= NODE_INLINE ? (uint8) len : NODE_LONG;
	if (len <= NODE_INLINE)
		memcpy(e->inl, data, len);
	e->id = set->n++;
	if ((Size) set->n * 4 > ((Size) set->mask + 1) * 3)
		nodeset_grow(set);
	return node->id;
}

/*
 * Add a node of the given hash; *isnew says whether it was not there yet.
 * Returns its id (byid[] is not read for a node already there: one cache
 * miss less per probe for callers that do not need it).
 */
static inline int32
nodeset_add_hashed(NodeSet *set, const char *data, int len, uint32 hash, bool *isnew)
{
	NodeEntry  *e = nodeset_bucket(set, hash, data, len);

	*isnew = (e->id < 0);
	return *isnew ? nodeset_insert(set, e, data, len, hash) : e->id;
}

/* Add a node; *isnew says whether it was not there yet.  One probe. */
GNode *
nodeset_add(NodeSet *set, const char *data, int len, bool *isnew)
{
	int32		id = nodeset_add_hashed(set, data, len, nodeset_hash_bytes(data, len), isnew);

	return set->byid[id];		/* after the call: adding may move byid */
}

/* nodeset_add of a key whose nodeset_hash() the caller has */
GNode *
nodeset_add_with_hash(NodeSet *set, const char *data, int len, uint32 hash, bool *isnew)
{
	int32		id = nodeset_add_hashed(set, data, len, hash, isnew);

	return set->byid[id];
}

/*
 * Batches.  A search adds a node per edge it reads, and in a big set each
 * probe is a cache miss: a batch of keys is hashed and the bucket of each
 * prefetched before the first is probed, so that the misses of a batch
 * overlap instead of following one another.  The keys are copied into the
 * batch (an edge's bytes live only as long as its index tuple).
 */
void
nodebatch_push(NodeBatch *b, const char *data, int len, int origin)
{
	if (nodebatch_full(b, len))	/* the caller adds a full batch first */
		elog(ERROR, "no room for a key of %d bytes in a node batch", len);
	b->off[b->n] = b->used;
	b->len[b->n] = len;
	b->origin[b->n] = origin;
	memcpy(b->bytes + b->used, data, len);
	b->used += len;
	b->n++;
}

/*
 * Add the batch's keys to set, in order, calling cb(arg, set, id, origin)
 * for each key that was not in the set yet (id: its new node's, byid[id]);
 * stops early when cb returns false (and returns false).  A key already
 * there costs its probe and nothing else (inline, no call): in a search
 * most edges lead to nodes reached before.
 * The batch is empty afterwards.
 */
bool
nodeset_add_batch(NodeSet *set, NodeBatch *b, NodeBatchCallback cb, void *arg)
{
	uint32		hashes[NODE_BATCH];
	bool		go = true;

	for (int i = 0; i < b->n; i++)
	{
		hashes[i] = nodeset_hash_bytes(b->bytes + b->off[i], b->len[i]);
#if defined(__GNUC__) || defined(__clang__)
		__builtin_prefetch(&set->table[hashes[i] & set->mask]);
#endif
	}
	for (int i = 0; i < b->n && go; i++)
	{
		const char *data = b->bytes + b->off[i];
		NodeEntry  *e = nodeset_bucket(set, hashes[i], data, b->len[i]);

		if (e->id < 0)
			go = cb(arg, set, nodeset_insert(set, e, data, b->len[i], hashes[i]),
					b->origin[i]);
	}
	b->n = 0;
	b->used = 0;
	return go;
}

/* ----------------------------------------------------------------------
 * Directions
 * ----------------------------------------------------------------------
 */

/* "out", "in" (and "both" when both_ok): catalog.c's one parser. */
Direction
graph_parse_direction(text *t, bool both_ok)
{
	return (Direction) adjlist_parse_direction(t, both_ok);
}

Direction
graph_reverse_direction(Direction d)
{
	return d == DIR_OUT ? DIR_IN : d == DIR_IN ? DIR_OUT : DIR_BOTH;
}

int32
graph_check_depth(int32 max_depth)
{
	if (max_depth < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_depth must not be negative")));
	return max_depth;
}

/* ----------------------------------------------------------------------
 * Expansion
 * ----------------------------------------------------------------------
 */

typedef struct ExpandState
{
	const EdgeConvention *conv;
	bool		reverse;
	NeighborCallback cb;
	void	   *arg;
	char	   *buf;
	bool		stop;
} ExpandState;

static bool
expand_edge(void *arg, const GraphEdge *edge)
{
	ExpandState *st = (ExpandState *) arg;
	const char *nb;
	int			nblen;

	if (!graph_edge_neighbor(st->conv, st->reverse, edge, &nb, &nblen, &st->buf))
		return true;
	if (!st->cb(st->arg, nb, nblen, edge->origin, st->reverse, edge))
		st->stop = true;
	return !st->stop;
}

/*
 * Hand every neighbor of nodes[0..n) in the given direction(s) to cb, with
 * the index of the node it was reached from.  Out-edges of the whole level
 * first, then in-edges.  What the scans allocate goes into the reader's
 * scratch context; the callbacks allocate what they keep in their sets.
 */
void
graph_expand_level(GraphReader *rd, const EdgeConvention *conv, Direction dir,
				   GNode **nodes, int n, NeighborCallback cb, void *arg)
{
	const char **keys;
	int		   *lens;
	GraphScan	req;
	ExpandState st;

	if (n == 0)
		return;
	keys = palloc(sizeof(char *) * n);
	lens = palloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
	{
		keys[i] = nodes[i]->key.data;
		lens[i] = nodes[i]->key.len;
	}
	memset(&req, 0, sizeof(req));
	req.conv = conv;
	memset(&st, 0, sizeof(st));
	st.conv = conv;
	st.cb = cb;
	st.arg = arg;
	if (dir & DIR_OUT)
	{
		req.reverse = st.reverse = false;
		graph_reader_scan_level(rd, &req, keys, lens, n, expand_edge, &st);
	}
	if ((dir & DIR_IN) && !st.stop)
	{
		req.reverse = st.reverse = true;
		graph_reader_scan_level(rd, &req, keys, lens, n, expand_edge, &st);
	}
	pfree(keys);
	pfree(lens);
}

/* The neighbors of one node. */
void
graph_expand(GraphReader *rd, const EdgeConvention *conv, Direction dir,
			 const char *node, int nodelen, NeighborCallback cb, void *arg)
{
	GNode		g;
	GNode	   *one = &g;

	memset(&g, 0, sizeof(g));
	g.key.data = node;
	g.key.len = nodelen;
	graph_expand_level(rd, conv, dir, &one, 1, cb, arg);
}

/*
 * The graph of a table for a multi-hop call: connected to SPI, the
 * metadata read, the caller's privileges checked.
 */
GraphTable *
graph_open(Oid relid, Direction dir, bool want_data)
{
	GraphTable *g;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	g = graph_table_get(relid, (dir & DIR_IN) != 0);
	graph_check_select(g, want_data);
	return g;
}

/* The path from a BFS's start to node, as adjkey[]. */
ArrayType *
graph_path_array(GraphTable *g, NodeSet *set, GNode *node)
{
	int			len = node->depth + 1;
	Datum	   *elems = palloc(sizeof(Datum) * len);
	GNode	   *cur = node;

	for (int i = len - 1; i >= 0; i--)
	{
		elems[i] = PointerGetDatum(adjkey_from_utf8(cur->key.data, cur->key.len));
		if (cur->parent >= 0)
			cur = set->byid[cur->parent];
	}
	return construct_array(elems, len, g->keytype, -1, false, TYPALIGN_INT);
}
