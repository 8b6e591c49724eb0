/*-------------------------------------------------------------------------
 *
 * graph_nodes.c
 *	  What every multi-hop graph function shares: sets of visited nodes,
 *	  directions, and the expansion of nodes (one, or a whole level) into
 *	  their neighbors.
 *
 * Visited nodes live in a hash table (simplehash) keyed by the node's
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
 * A simplehash table of 32-byte entries: the key's hash, its id (its
 * GNode is byid[id]) and, for a key of up to NODE_INLINE bytes, the bytes
 * themselves.  A probe of a short key (most node keys: 'USER#12345') so
 * reads one entry and nothing else; a traversal probes the set once per
 * edge it reads, and following byid[] to the GNode and then to the key
 * bytes cost three dependent cache misses a probe, about half of a deep
 * traversal's time.  A longer key is compared through byid[id] (a lookup
 * passes id -1, which stands for the key in set->probe).  GNodes are
 * allocated a block at a time and never move (callers keep pointers to
 * them); their key bytes are copied into an arena of blocks.  So the set
 * allocates per block, never per probe or per node, and its memory is
 * proportional to the nodes it holds.
 * ----------------------------------------------------------------------
 */

#define NODESET_INITIAL 64		/* small: walk_ranked makes a set per hop */
#define NODE_BLOCK 256			/* GNodes per block */
#define ARENA_BLOCK 8192		/* bytes per arena block */
#define ARENA_OWN 1024			/* a key this long gets its own chunk */
#define NODE_INLINE 18			/* key bytes kept in the hash entry */
#define NODE_LONG 0xFF			/* NodeHashKey.len of a longer key */

typedef struct NodeHashKey
{
	int32		id;				/* byid[id], or -1: the key being looked up */
	uint8		len;			/* bytes in inl, or NODE_LONG */
	char		inl[NODE_INLINE];
} NodeHashKey;

typedef struct NodeEntry
{
	NodeHashKey key;
	uint32		hash;
	char		status;			/* simplehash's */
} NodeEntry;

StaticAssertDecl(sizeof(NodeEntry) == 32, "a node hash entry is 32 bytes");

static inline uint32
nodeset_hash_bytes(const char *data, int len)
{
	return hash_bytes((const unsigned char *) data, len);
}

/* The whole key of a as bytes: the probe or a stored node's. */
static inline void
nodeset_key_bytes(NodeSet *set, const NodeHashKey *a, const char **data, int *len)
{
	if (a->id < 0)
	{
		*data = set->probe;
		*len = set->probelen;
	}
	else
	{
		*data = set->byid[a->id]->key.data;
		*len = set->byid[a->id]->key.len;
	}
}

static inline bool
nodeset_equal(NodeSet *set, const NodeHashKey *a, const NodeHashKey *b)
{
	const char *ad,
			   *bd;
	int			al,
				bl;

	if (a->len != b->len)
		return false;
	if (a->len != NODE_LONG)
		return memcmp(a->inl, b->inl, a->len) == 0;
	nodeset_key_bytes(set, a, &ad, &al);
	nodeset_key_bytes(set, b, &bd, &bl);
	return al == bl && memcmp(ad, bd, al) == 0;
}

static inline uint32
nodeset_hash_key(NodeSet *set, const NodeHashKey *a)
{
	const char *d;
	int			l;

	nodeset_key_bytes(set, a, &d, &l);
	return nodeset_hash_bytes(d, l);
}

/* The probe's key of data: its bytes inline when they fit. */
static inline NodeHashKey
nodeset_probe(NodeSet *set, const char *data, int len)
{
	NodeHashKey k;

	set->probe = data;
	set->probelen = len;
	k.id = -1;
	if (len <= NODE_INLINE)
	{
		k.len = (uint8) len;
		memcpy(k.inl, data, len);
	}
	else
		k.len = NODE_LONG;
	return k;
}

#define SH_PREFIX nodehash
#define SH_ELEMENT_TYPE NodeEntry
#define SH_KEY_TYPE NodeHashKey
#define SH_KEY key
#define SH_HASH_KEY(tb, k) nodeset_hash_key((NodeSet *) (tb)->private_data, &(k))
#define SH_EQUAL(tb, a, b) nodeset_equal((NodeSet *) (tb)->private_data, &(a), &(b))
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) ((a)->hash)
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

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
	set->hash = nodehash_create(set->cxt, NODESET_INITIAL, set);
	set->cap = NODESET_INITIAL;
	set->byid = MemoryContextAlloc(set->cxt, sizeof(GNode *) * set->cap);
	set->n = 0;
	set->what = what;
}

GNode *
nodeset_find(NodeSet *set, const char *data, int len)
{
	NodeEntry  *e;

	e = nodehash_lookup_hash(set->hash, nodeset_probe(set, data, len),
							 nodeset_hash_bytes(data, len));
	return e != NULL ? set->byid[e->key.id] : NULL;
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

/* Add a node; *isnew says whether it was not there yet.  One probe. */
GNode *
nodeset_add(NodeSet *set, const char *data, int len, bool *isnew)
{
	NodeEntry  *e;
	GNode	   *node;
	bool		found;

	e = nodehash_insert_hash(set->hash, nodeset_probe(set, data, len),
							 nodeset_hash_bytes(data, len), &found);
	if (found)
	{
		*isnew = false;
		return set->byid[e->key.id];
	}

	/*
	 * An error here leaves an entry of id -1 behind: the set is the
	 * aborted call's, and nothing reads it again.
	 */
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
	e->key.id = set->n++;
	*isnew = true;
	return node;
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
