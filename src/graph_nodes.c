/*-------------------------------------------------------------------------
 *
 * graph_nodes.c
 *	  What every multi-hop graph function shares: sets of visited nodes,
 *	  directions, and the expansion of nodes (one, or a whole level) into
 *	  their neighbors.
 *
 * Visited nodes live in a hash table keyed by the node's bytes, copied once
 * into the set's memory context.  Two limits keep a call from exhausting
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
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "adjlist.h"
#include "catalog.h"
#include "graph.h"

int			adjlist_max_visited = 1000000;

/* ----------------------------------------------------------------------
 * Node sets
 * ----------------------------------------------------------------------
 */

static uint32
nodekey_hash(const void *key, Size keysize)
{
	const NodeKey *k = (const NodeKey *) key;

	return DatumGetUInt32(hash_any((const unsigned char *) k->data, k->len));
}

static int
nodekey_match(const void *a, const void *b, Size keysize)
{
	const NodeKey *x = (const NodeKey *) a;
	const NodeKey *y = (const NodeKey *) b;

	if (x->len != y->len)
		return 1;
	return memcmp(x->data, y->data, x->len);
}

/*
 * A new set in its own context under parent; parent is what the memory
 * limit charges, so a call's sets share one parent.
 */
void
nodeset_init(NodeSet *set, MemoryContext parent, const char *what)
{
	HASHCTL		ctl;

	set->cxt = AllocSetContextCreate(parent, "adjlist nodes", ALLOCSET_DEFAULT_SIZES);
	set->charged = parent;
	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(NodeKey);
	ctl.entrysize = sizeof(GNode);
	ctl.hash = nodekey_hash;
	ctl.match = nodekey_match;
	ctl.hcxt = set->cxt;
	set->hash = hash_create("adjlist nodes", 1024, &ctl,
							HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
	set->cap = 1024;
	set->byid = MemoryContextAlloc(set->cxt, sizeof(GNode *) * set->cap);
	set->n = 0;
	set->what = what;
}

GNode *
nodeset_find(NodeSet *set, const char *data, int len)
{
	NodeKey		k = {data, len};

	return (GNode *) hash_search(set->hash, &k, HASH_FIND, NULL);
}

/* Add a node; *isnew says whether it was not there yet.  Hashes once. */
GNode *
nodeset_add(NodeSet *set, const char *data, int len, bool *isnew)
{
	NodeKey		k = {data, len};
	uint32		h = nodekey_hash(&k, sizeof(NodeKey));
	GNode	   *node;
	bool		found;

	node = (GNode *) hash_search_with_hash_value(set->hash, &k, h, HASH_FIND, NULL);
	if (node != NULL)
	{
		*isnew = false;
		return node;
	}
	if (set->n >= adjlist_max_visited)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("graph search visited more than %d nodes", adjlist_max_visited),
				 errdetail("The call of %s() reached adjlist.max_visited.", set->what),
				 errhint("Raise adjlist.max_visited, or lower max_depth or the limit.")));
	if ((set->n & 1023) == 1023)
		graph_charge(set->charged, set->what);
	k.data = MemoryContextAlloc(set->cxt, Max(len, 1));
	memcpy((char *) k.data, data, len);
	node = (GNode *) hash_search_with_hash_value(set->hash, &k, h, HASH_ENTER, &found);
	node->id = set->n;
	node->depth = 0;
	node->parent = -1;
	node->score = 0;
	if (set->n >= set->cap)
	{
		set->cap *= 2;
		set->byid = repalloc(set->byid, sizeof(GNode *) * set->cap);
	}
	set->byid[set->n++] = node;
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
