/*-------------------------------------------------------------------------
 *
 * graph_traverse.c
 *	  Multi-hop graph functions, each answered inside the server in one call:
 *	  traverse (breadth-first search), reachable_count, shortest_path
 *	  (bidirectional BFS), common_neighbors, ranked walks (people you may
 *	  know, also liked, related items) and the DOT / Mermaid export.
 *
 * All of them expand nodes with graph_scan() (graph_source.c): out-edges
 * from the base table, in-edges through the inverted index.  Visited nodes
 * live in a hash table whose keys are the nodes' bytes, copied once into
 * the call's memory; adjlist.max_visited caps how many a call may visit,
 * so a traversal that would run out of memory stops with a clear error
 * instead.  Every scan checks for interrupts, so query cancel and
 * statement_timeout stop a traversal promptly.
 *
 * Memory: the node sets live in SPI's procedure context and go away with
 * SPI_finish(); results are copied into the tuplestore (set-returning
 * functions) or built in the caller's context (shortest_path, export).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "graph.h"

PG_FUNCTION_INFO_V1(adjlist_traverse);
PG_FUNCTION_INFO_V1(adjlist_reachable_count);
PG_FUNCTION_INFO_V1(adjlist_shortest_path);
PG_FUNCTION_INFO_V1(adjlist_common_neighbors);
PG_FUNCTION_INFO_V1(adjlist_walk_ranked);
PG_FUNCTION_INFO_V1(adjlist_export);

int			adjlist_max_visited = 1000000;

/* ----------------------------------------------------------------------
 * GNode sets
 * ----------------------------------------------------------------------
 */

typedef struct NodeKey
{
	const char *data;
	int			len;
} NodeKey;

typedef struct GNode
{
	NodeKey		key;			/* hash key: must be first */
	int32		id;
	int32		depth;
	int32		parent;			/* id of the node it was reached from, or -1 */
	int64		score;
} GNode;

typedef struct NodeSet
{
	HTAB	   *hash;
	GNode	  **byid;			/* id -> node */
	int32		n;
	int32		cap;
	MemoryContext cxt;
	const char *what;			/* for the error message */
} NodeSet;

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

static void
nodeset_init(NodeSet *set, const char *what)
{
	HASHCTL		ctl;

	set->cxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist nodes",
									 ALLOCSET_DEFAULT_SIZES);
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

static GNode *
nodeset_find(NodeSet *set, const char *data, int len)
{
	NodeKey		k = {data, len};

	return (GNode *) hash_search(set->hash, &k, HASH_FIND, NULL);
}

/* Add a node; *isnew says whether it was not there yet.  Hashes once. */
static GNode *
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
				 errmsg("%s visited more than %d nodes", set->what, adjlist_max_visited),
				 errhint("Raise adjlist.max_visited, or lower max_depth or the limit.")));
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
 * Arguments and expansion
 * ----------------------------------------------------------------------
 */

typedef enum Direction
{
	DIR_OUT = 1,
	DIR_IN = 2,
	DIR_BOTH = 3
} Direction;

static Direction
parse_direction(text *t)
{
	char	   *s = text_to_cstring(t);

	if (strcmp(s, "out") == 0)
		return DIR_OUT;
	if (strcmp(s, "in") == 0)
		return DIR_IN;
	if (strcmp(s, "both") == 0)
		return DIR_BOTH;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("direction must be 'out', 'in' or 'both', not \"%s\"", s)));
	return DIR_OUT;				/* keep the compiler quiet */
}

static Direction
reverse_direction(Direction d)
{
	return d == DIR_OUT ? DIR_IN : d == DIR_IN ? DIR_OUT : DIR_BOTH;
}

/* What a callback of expand() is given. */
typedef bool (*NeighborCallback) (void *arg, const char *nb, int nblen,
								  bool reverse, const GraphEdge *edge);

typedef struct ExpandState
{
	const EdgeConvention *conv;
	bool		reverse;
	NeighborCallback cb;
	void	   *arg;
	char	   *buf;
} ExpandState;

static bool
expand_edge(void *arg, const GraphEdge *edge)
{
	ExpandState *st = (ExpandState *) arg;
	const char *nb;
	int			nblen;

	if (!graph_edge_neighbor(st->conv, st->reverse, edge, &nb, &nblen, &st->buf))
		return true;
	return st->cb(st->arg, nb, nblen, st->reverse, edge);
}

/*
 * Hand every neighbor of a node in the given direction(s) to cb.  What a
 * scan allocates (scan keys, bounds) goes into a context reset after each
 * expansion, so a traversal's memory is its node sets, whatever the number
 * of scans; the callbacks allocate what they keep in those sets' contexts.
 */
static void
expand(GraphReader *rd, const EdgeConvention *conv, Direction dir,
	   const char *node, int nodelen, NeighborCallback cb, void *arg)
{
	static MemoryContext scancxt = NULL;
	MemoryContext oldcxt;
	GraphScan	req;
	ExpandState st;

	if (scancxt == NULL)
		scancxt = AllocSetContextCreate(TopMemoryContext, "adjlist expansion",
										ALLOCSET_DEFAULT_SIZES);
	oldcxt = MemoryContextSwitchTo(scancxt);

	memset(&req, 0, sizeof(req));
	req.node = node;
	req.nodelen = nodelen;
	req.conv = conv;
	st.conv = conv;
	st.cb = cb;
	st.arg = arg;
	st.buf = NULL;
	if (dir & DIR_OUT)
	{
		req.reverse = false;
		st.reverse = false;
		graph_reader_scan(rd, &req, expand_edge, &st);
	}
	if (dir & DIR_IN)
	{
		req.reverse = true;
		st.reverse = true;
		graph_reader_scan(rd, &req, expand_edge, &st);
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(scancxt);
}

static GraphTable *
open_graph(Oid relid, Direction dir)
{
	GraphTable *g;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	g = graph_table_get(relid, (dir & DIR_IN) != 0);
	graph_check_select(g, false);
	return g;
}

static ArrayType *
path_array(GraphTable *g, NodeSet *set, GNode *node)
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

/* ----------------------------------------------------------------------
 * traverse and reachable_count: breadth-first search
 * ----------------------------------------------------------------------
 */

typedef struct BfsState
{
	NodeSet    *set;
	int32		depth;
	int32		parent;
	int64		limit;			/* <= 0: none */
	int64		found;			/* nodes reached, not counting the start */
	int32		next_end;		/* ids [frontier_end, next_end) are the next frontier */
} BfsState;

static bool
bfs_visit(void *arg, const char *nb, int nblen, bool reverse, const GraphEdge *edge)
{
	BfsState   *st = (BfsState *) arg;
	bool		isnew;
	GNode	   *node;

	if (st->limit > 0 && st->found >= st->limit)
		return false;
	node = nodeset_add(st->set, nb, nblen, &isnew);
	if (isnew)
	{
		node->depth = st->depth;
		node->parent = st->parent;
		st->found++;
	}
	return true;
}

/*
 * Breadth-first search from start; on return set holds the start (id 0)
 * and every node reached within max_depth, in BFS order.
 */
static void
bfs(GraphReader *rd, const EdgeConvention *conv, Direction dir, struct varlena *start,
	int32 max_depth, int64 limit, NodeSet *set)
{
	BfsState	st;
	bool		isnew;
	int32		frontier_begin = 0;
	int32		frontier_end;

	nodeset_add(set, ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew);
	st.set = set;
	st.limit = limit;
	st.found = 0;
	frontier_end = set->n;
	for (int32 depth = 1; depth <= max_depth && frontier_begin < frontier_end; depth++)
	{
		st.depth = depth;
		for (int32 id = frontier_begin; id < frontier_end; id++)
		{
			GNode	   *u = set->byid[id];

			CHECK_FOR_INTERRUPTS();
			st.parent = id;
			expand(rd, conv, dir, u->key.data, u->key.len, bfs_visit, &st);
			if (limit > 0 && st.found >= limit)
				return;
		}
		frontier_begin = frontier_end;
		frontier_end = set->n;
	}
}

static int32
check_depth(int32 max_depth)
{
	if (max_depth < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_depth must not be negative")));
	return max_depth;
}

/*
 * traverse(tbl, start, edge_prefix, max_depth, direction, lim, with_path,
 *			target_prefix, sk_is_target)
 *	RETURNS TABLE (node adjkey, depth int, path adjkey[])
 */
Datum
adjlist_traverse(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	NodeSet		set;
	struct varlena *start;
	int32		max_depth;
	int64		limit;
	bool		with_path;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3) ||
		PG_ARGISNULL(4))
		return (Datum) 0;
	start = PG_GETARG_ADJKEY_PP(1);
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2),
							   PG_ARGISNULL(7) ? NULL : PG_GETARG_TEXT_PP(7),
							   PG_ARGISNULL(8) ? false : PG_GETARG_BOOL(8));
	max_depth = check_depth(PG_GETARG_INT32(3));
	dir = parse_direction(PG_GETARG_TEXT_PP(4));
	limit = PG_ARGISNULL(5) ? 0 : PG_GETARG_INT64(5);
	with_path = PG_ARGISNULL(6) ? false : PG_GETARG_BOOL(6);
	if (!PG_ARGISNULL(5) && limit <= 0)
		return (Datum) 0;

	g = open_graph(PG_GETARG_OID(0), dir);
	rd = graph_reader_begin(g);
	nodeset_init(&set, "traverse");
	bfs(rd, &conv, dir, start, max_depth, limit, &set);

	for (int32 id = 1; id < set.n; id++)
	{
		GNode	   *node = set.byid[id];
		Datum		values[3];
		bool		nulls[3] = {false, false, !with_path};

		values[0] = PointerGetDatum(adjkey_from_utf8(node->key.data, node->key.len));
		values[1] = Int32GetDatum(node->depth);
		values[2] = with_path ? PointerGetDatum(path_array(g, &set, node)) : (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	graph_reader_end(rd);
	SPI_finish();
	return (Datum) 0;
}

/* reachable_count(tbl, start, edge_prefix, max_depth, direction, ...) */
Datum
adjlist_reachable_count(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	NodeSet		set;
	int64		result;

	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(5),
							   PG_GETARG_BOOL(6));
	dir = parse_direction(PG_GETARG_TEXT_PP(4));
	g = open_graph(PG_GETARG_OID(0), dir);
	rd = graph_reader_begin(g);
	nodeset_init(&set, "reachable_count");
	bfs(rd, &conv, dir, PG_GETARG_ADJKEY_PP(1), check_depth(PG_GETARG_INT32(3)), 0, &set);
	result = set.n - 1;
	graph_reader_end(rd);
	SPI_finish();
	PG_RETURN_INT64(result);
}

/* ----------------------------------------------------------------------
 * shortest_path: bidirectional breadth-first search
 * ----------------------------------------------------------------------
 */

typedef struct SideState
{
	NodeSet    *mine;
	NodeSet    *other;
	int32		depth;
	int32		parent;
	GNode	   *meet_mine;		/* best meeting so far */
	GNode	   *meet_other;
	int32		best;			/* its length, or INT32_MAX */
} SideState;

static bool
side_visit(void *arg, const char *nb, int nblen, bool reverse, const GraphEdge *edge)
{
	SideState  *st = (SideState *) arg;
	bool		isnew;
	GNode	   *node = nodeset_add(st->mine, nb, nblen, &isnew);
	GNode	   *there;

	if (!isnew)
		return true;
	node->depth = st->depth;
	node->parent = st->parent;
	there = nodeset_find(st->other, nb, nblen);
	if (there != NULL && node->depth + there->depth < st->best)
	{
		st->best = node->depth + there->depth;
		st->meet_mine = node;
		st->meet_other = there;
	}
	return true;
}

/*
 * shortest_path(tbl, from, to, edge_prefix, max_depth, direction,
 *				 target_prefix, sk_is_target) RETURNS adjkey[]
 *
 * The forward side follows the edges in the given direction (out-edges from
 * the base table), the backward side follows them against it (in-edges
 * through the inverted index); each step expands one whole level of the
 * smaller frontier.  A meeting found while expanding a level is kept only
 * if no shorter one turns up before the level ends.
 */
Datum
adjlist_shortest_path(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	NodeSet		fwd;
	NodeSet		bwd;
	struct varlena *from = PG_GETARG_ADJKEY_PP(1);
	struct varlena *to = PG_GETARG_ADJKEY_PP(2);
	int32		max_depth = check_depth(PG_GETARG_INT32(4));
	bool		isnew;
	int32		fbegin = 0,
				fend,
				bbegin = 0,
				bend;
	int32		fdepth = 0,
				bdepth = 0;
	SideState	st;
	MemoryContext callercxt = CurrentMemoryContext;
	GNode	   *meet_f = NULL;
	GNode	   *meet_b = NULL;
	ArrayType  *result = NULL;

	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(3), PG_GETARG_TEXT_PP(6),
							   PG_GETARG_BOOL(7));
	dir = parse_direction(PG_GETARG_TEXT_PP(5));
	g = open_graph(PG_GETARG_OID(0), DIR_BOTH);	/* both sides are read */
	rd = graph_reader_begin(g);

	nodeset_init(&fwd, "shortest_path");
	nodeset_init(&bwd, "shortest_path");
	nodeset_add(&fwd, ADJKEY_DATA(from), ADJKEY_LEN(from), &isnew);
	nodeset_add(&bwd, ADJKEY_DATA(to), ADJKEY_LEN(to), &isnew);
	fend = fwd.n;
	bend = bwd.n;

	if (adjkey_cmp_bytes(ADJKEY_DATA(from), ADJKEY_LEN(from),
						 ADJKEY_DATA(to), ADJKEY_LEN(to)) == 0)
	{
		meet_f = fwd.byid[0];
		meet_b = bwd.byid[0];
	}

	while (meet_f == NULL && fdepth + bdepth < max_depth &&
		   fbegin < fend && bbegin < bend)
	{
		bool		forward = (fend - fbegin) <= (bend - bbegin);
		NodeSet    *mine = forward ? &fwd : &bwd;
		int32		begin = forward ? fbegin : bbegin;
		int32		end = forward ? fend : bend;

		st.mine = mine;
		st.other = forward ? &bwd : &fwd;
		st.depth = (forward ? fdepth : bdepth) + 1;
		st.best = PG_INT32_MAX;
		st.meet_mine = st.meet_other = NULL;
		for (int32 id = begin; id < end; id++)
		{
			GNode	   *u = mine->byid[id];

			CHECK_FOR_INTERRUPTS();
			st.parent = id;
			expand(rd, &conv, forward ? dir : reverse_direction(dir),
				   u->key.data, u->key.len, side_visit, &st);
		}
		if (forward)
		{
			fdepth++;
			fbegin = fend;
			fend = fwd.n;
		}
		else
		{
			bdepth++;
			bbegin = bend;
			bend = bwd.n;
		}
		if (st.meet_mine != NULL)
		{
			meet_f = forward ? st.meet_mine : st.meet_other;
			meet_b = forward ? st.meet_other : st.meet_mine;
		}
	}

	if (meet_f != NULL)
	{
		int			len = meet_f->depth + meet_b->depth + 1;
		Datum	   *elems;
		GNode	   *cur = meet_f;
		int			i;

		/* the result must outlive SPI_finish(), which frees SPI's memory */
		MemoryContextSwitchTo(callercxt);
		elems = palloc(sizeof(Datum) * len);

		for (i = meet_f->depth; i >= 0; i--)
		{
			elems[i] = PointerGetDatum(adjkey_from_utf8(cur->key.data, cur->key.len));
			if (cur->parent >= 0)
				cur = fwd.byid[cur->parent];
		}
		cur = meet_b;
		for (i = meet_f->depth + 1; i < len; i++)
		{
			cur = bwd.byid[cur->parent];
			elems[i] = PointerGetDatum(adjkey_from_utf8(cur->key.data, cur->key.len));
		}
		result = construct_array(elems, len, g->keytype, -1, false, TYPALIGN_INT);
	}
	graph_reader_end(rd);
	SPI_finish();
	if (result == NULL)
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(result);
}

/* ----------------------------------------------------------------------
 * common_neighbors
 * ----------------------------------------------------------------------
 */

typedef struct CollectState
{
	NodeSet    *set;
	NodeSet    *filter;			/* keep only nodes in it, when set */
	NodeSet    *exclude;		/* skip nodes in it, when set */
	int64		weight;			/* added to the score of each node reached */
} CollectState;

static bool
collect_visit(void *arg, const char *nb, int nblen, bool reverse, const GraphEdge *edge)
{
	CollectState *st = (CollectState *) arg;
	bool		isnew;
	GNode	   *node;

	if (st->filter != NULL && nodeset_find(st->filter, nb, nblen) == NULL)
		return true;
	if (st->exclude != NULL && nodeset_find(st->exclude, nb, nblen) != NULL)
		return true;
	node = nodeset_add(st->set, nb, nblen, &isnew);
	node->score += st->weight;
	return true;
}

static int
node_cmp_key(const void *a, const void *b)
{
	const GNode *x = *(GNode *const *) a;
	const GNode *y = *(GNode *const *) b;

	return adjkey_cmp_bytes(x->key.data, x->key.len, y->key.data, y->key.len);
}

static int
node_cmp_score(const void *a, const void *b)
{
	const GNode *x = *(GNode *const *) a;
	const GNode *y = *(GNode *const *) b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return node_cmp_key(a, b);
}

/*
 * A node's neighbors in one direction come out of the scan in key order
 * (out: the sort keys, which keep their order when the edge prefix is
 * stripped; in: the sources), so common neighbors are a merge of two
 * sorted lists: no hash table, no sort.
 */
typedef struct SortedKeys
{
	StringInfoData bytes;
	int		   *off;
	int		   *len;
	int			n;
	int			cap;
} SortedKeys;

static bool
sorted_collect(void *arg, const char *nb, int nblen, bool reverse, const GraphEdge *edge)
{
	SortedKeys *k = (SortedKeys *) arg;

	if (k->n > 0 && adjkey_cmp_bytes(k->bytes.data + k->off[k->n - 1], k->len[k->n - 1],
									 nb, nblen) == 0)
		return true;			/* the same neighbor again */
	if (k->n >= adjlist_max_visited)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("common_neighbors visited more than %d nodes", adjlist_max_visited),
				 errhint("Raise adjlist.max_visited.")));
	if (k->n >= k->cap)
	{
		k->cap *= 2;
		k->off = repalloc(k->off, sizeof(int) * k->cap);
		k->len = repalloc(k->len, sizeof(int) * k->cap);
	}
	k->off[k->n] = k->bytes.len;
	k->len[k->n] = nblen;
	appendBinaryStringInfo(&k->bytes, nb, nblen);
	k->n++;
	return true;
}

typedef struct MergeState
{
	SortedKeys *a;
	int			i;				/* next candidate in a */
	ReturnSetInfo *rsinfo;
	char	   *last;			/* last emitted, to skip repeats */
	int			lastlen;
} MergeState;

static bool
sorted_merge(void *arg, const char *nb, int nblen, bool reverse, const GraphEdge *edge)
{
	MergeState *st = (MergeState *) arg;
	SortedKeys *a = st->a;
	int			c = -1;

	while (st->i < a->n &&
		   (c = adjkey_cmp_bytes(a->bytes.data + a->off[st->i], a->len[st->i], nb, nblen)) < 0)
		st->i++;
	if (st->i >= a->n)
		return false;			/* nothing in a is left to match */
	if (c == 0 && !(st->last != NULL &&
					adjkey_cmp_bytes(st->last, st->lastlen, nb, nblen) == 0))
	{
		Datum		v = PointerGetDatum(adjkey_from_utf8(nb, nblen));
		bool		isnull = false;

		tuplestore_putvalues(st->rsinfo->setResult, st->rsinfo->setDesc, &v, &isnull);
		st->last = a->bytes.data + a->off[st->i];
		st->lastlen = a->len[st->i];
	}
	return true;
}

/*
 * common_neighbors(tbl, a, b, edge_prefix, direction, target_prefix,
 *					sk_is_target) RETURNS SETOF adjkey, in key order
 */
Datum
adjlist_common_neighbors(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	NodeSet		of_a;
	NodeSet		common;
	CollectState st;
	struct varlena *a;
	struct varlena *b;
	GNode	  **sorted;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int i = 0; i < 7; i++)
		if (PG_ARGISNULL(i))
			return (Datum) 0;
	a = PG_GETARG_ADJKEY_PP(1);
	b = PG_GETARG_ADJKEY_PP(2);
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(3), PG_GETARG_TEXT_PP(5),
							   PG_GETARG_BOOL(6));
	dir = parse_direction(PG_GETARG_TEXT_PP(4));
	g = open_graph(PG_GETARG_OID(0), dir);
	rd = graph_reader_begin(g);

	if (dir != DIR_BOTH)
	{
		SortedKeys	of_a_sorted;
		MergeState	ms;

		initStringInfo(&of_a_sorted.bytes);
		of_a_sorted.cap = 64;
		of_a_sorted.n = 0;
		of_a_sorted.off = palloc(sizeof(int) * of_a_sorted.cap);
		of_a_sorted.len = palloc(sizeof(int) * of_a_sorted.cap);
		expand(rd, &conv, dir, ADJKEY_DATA(a), ADJKEY_LEN(a), sorted_collect, &of_a_sorted);
		memset(&ms, 0, sizeof(ms));
		ms.a = &of_a_sorted;
		ms.rsinfo = rsinfo;
		if (of_a_sorted.n > 0)
			expand(rd, &conv, dir, ADJKEY_DATA(b), ADJKEY_LEN(b), sorted_merge, &ms);
		graph_reader_end(rd);
		SPI_finish();
		return (Datum) 0;
	}

	/* both directions: the union of two sorted lists; use sets */
	nodeset_init(&of_a, "common_neighbors");
	nodeset_init(&common, "common_neighbors");
	memset(&st, 0, sizeof(st));
	st.set = &of_a;
	st.weight = 1;
	expand(rd, &conv, dir, ADJKEY_DATA(a), ADJKEY_LEN(a), collect_visit, &st);
	st.set = &common;
	st.filter = &of_a;
	expand(rd, &conv, dir, ADJKEY_DATA(b), ADJKEY_LEN(b), collect_visit, &st);

	sorted = palloc(sizeof(GNode *) * Max(common.n, 1));
	memcpy(sorted, common.byid, sizeof(GNode *) * common.n);
	qsort(sorted, common.n, sizeof(GNode *), node_cmp_key);
	for (int32 i = 0; i < common.n; i++)
	{
		Datum		v = PointerGetDatum(adjkey_from_utf8(sorted[i]->key.data, sorted[i]->key.len));
		bool		isnull = false;

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	graph_reader_end(rd);
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------------
 * Ranked walks
 * ----------------------------------------------------------------------
 */

/*
 * walk_ranked(tbl, start, edge_prefixes text[], directions text[],
 *			   exclude_first_hop boolean, lim bigint, target_prefix text,
 *			   sk_is_target boolean)
 *	RETURNS TABLE (node adjkey, score bigint)
 *
 * Walks two or three hops; the score of a node reached at the last hop is
 * the number of walks that reach it.  The start is never in the result;
 * with exclude_first_hop neither are the nodes of the first hop (existing
 * friends, items already liked).
 */
Datum
adjlist_walk_ranked(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GraphTable *g;
	GraphReader *rd;
	struct varlena *start;
	ArrayType  *prefixes;
	ArrayType  *directions;
	Datum	   *pdat;
	Datum	   *ddat;
	bool	   *pnull;
	bool	   *dnull;
	int			nhops;
	int			ndirs;
	EdgeConvention *convs;
	Direction  *dirs;
	Direction	all = 0;
	bool		exclude_first;
	int64		limit;
	NodeSet    *levels;
	NodeSet		excluded;
	bool		isnew;
	GNode	  **sorted;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < 8; i++)
		if (PG_ARGISNULL(i) && i != 5)
			return (Datum) 0;
	start = PG_GETARG_ADJKEY_PP(1);
	prefixes = PG_GETARG_ARRAYTYPE_P(2);
	directions = PG_GETARG_ARRAYTYPE_P(3);
	exclude_first = PG_GETARG_BOOL(4);
	limit = PG_ARGISNULL(5) ? 0 : PG_GETARG_INT64(5);

	deconstruct_array(prefixes, TEXTOID, -1, false, TYPALIGN_INT, &pdat, &pnull, &nhops);
	deconstruct_array(directions, TEXTOID, -1, false, TYPALIGN_INT, &ddat, &dnull, &ndirs);
	if (nhops < 2 || nhops > 3 || ndirs != nhops)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a ranked walk takes two or three hops, with one edge prefix and one direction each")));
	convs = palloc(sizeof(EdgeConvention) * nhops);
	dirs = palloc(sizeof(Direction) * nhops);
	for (int i = 0; i < nhops; i++)
	{
		if (pnull[i] || dnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("edge prefixes and directions of a walk must not be null")));
		graph_convention_from_args(&convs[i], DatumGetTextPP(pdat[i]), PG_GETARG_TEXT_PP(6),
								   PG_GETARG_BOOL(7));
		dirs[i] = parse_direction(DatumGetTextPP(ddat[i]));
		all |= dirs[i];
	}
	if (!PG_ARGISNULL(5) && limit <= 0)
		return (Datum) 0;

	g = open_graph(PG_GETARG_OID(0), all);
	rd = graph_reader_begin(g);

	/* levels[0] = {start}; levels[i] = nodes after hop i, scored */
	levels = palloc(sizeof(NodeSet) * (nhops + 1));
	nodeset_init(&levels[0], "walk");
	nodeset_add(&levels[0], ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew)->score = 1;
	nodeset_init(&excluded, "walk");
	nodeset_add(&excluded, ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew);

	for (int hop = 0; hop < nhops; hop++)
	{
		CollectState st;

		nodeset_init(&levels[hop + 1], "walk");
		memset(&st, 0, sizeof(st));
		st.set = &levels[hop + 1];
		if (hop == nhops - 1)
			st.exclude = &excluded;
		for (int32 id = 0; id < levels[hop].n; id++)
		{
			GNode	   *u = levels[hop].byid[id];

			CHECK_FOR_INTERRUPTS();
			st.weight = u->score;
			expand(rd, &convs[hop], dirs[hop], u->key.data, u->key.len, collect_visit, &st);
		}
		if (hop == 0 && exclude_first)
		{
			for (int32 id = 0; id < levels[1].n; id++)
				nodeset_add(&excluded, levels[1].byid[id]->key.data,
							levels[1].byid[id]->key.len, &isnew);
		}
	}

	sorted = palloc(sizeof(GNode *) * Max(levels[nhops].n, 1));
	memcpy(sorted, levels[nhops].byid, sizeof(GNode *) * levels[nhops].n);
	qsort(sorted, levels[nhops].n, sizeof(GNode *), node_cmp_score);
	for (int32 i = 0; i < levels[nhops].n && (limit <= 0 || i < limit); i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(adjkey_from_utf8(sorted[i]->key.data, sorted[i]->key.len));
		values[1] = Int64GetDatum(sorted[i]->score);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	graph_reader_end(rd);
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------------
 * Export: Graphviz DOT and Mermaid
 * ----------------------------------------------------------------------
 */

typedef struct ExportState
{
	NodeSet    *nodes;
	NodeSet    *edges;			/* "from\0to" keys, to print each edge once */
	StringInfo	out;
	bool		mermaid;
	int32		depth;
	int32		parent;
	int32		max_depth;
	const char *label;
	int			labellen;
	GNode	   *from;
} ExportState;

static void
append_escaped(StringInfo out, const char *s, int len, bool mermaid)
{
	for (int i = 0; i < len; i++)
	{
		if (mermaid && s[i] == '"')
			appendStringInfoString(out, "#quot;");
		else
		{
			if (!mermaid && (s[i] == '"' || s[i] == '\\'))
				appendStringInfoChar(out, '\\');
			appendStringInfoChar(out, s[i]);
		}
	}
}

static void
append_node_ref(ExportState *st, GNode *n)
{
	if (st->mermaid)
		appendStringInfo(st->out, "n%d", n->id);
	else
	{
		appendStringInfoChar(st->out, '"');
		append_escaped(st->out, n->key.data, n->key.len, false);
		appendStringInfoChar(st->out, '"');
	}
}

static bool
export_visit(void *arg, const char *nb, int nblen, bool reverse, const GraphEdge *edge)
{
	ExportState *st = (ExportState *) arg;
	bool		isnew;
	GNode	   *node = nodeset_add(st->nodes, nb, nblen, &isnew);
	GNode	   *src = reverse ? node : st->from;
	GNode	   *dst = reverse ? st->from : node;
	char	   *ekey;

	if (isnew)
	{
		node->depth = st->depth;
		node->parent = st->parent;
		if (st->mermaid)
		{
			appendStringInfo(st->out, "    n%d[\"", node->id);
			append_escaped(st->out, nb, nblen, true);
			appendStringInfoString(st->out, "\"]\n");
		}
	}
	ekey = psprintf("%d>%d", src->id, dst->id);
	nodeset_add(st->edges, ekey, strlen(ekey), &isnew);
	if (isnew)
	{
		appendStringInfoString(st->out, "    ");
		append_node_ref(st, src);
		if (st->mermaid)
		{
			appendStringInfoString(st->out, " -->|");
			append_escaped(st->out, st->label, st->labellen, true);
			appendStringInfoString(st->out, "| ");
			append_node_ref(st, dst);
			appendStringInfoChar(st->out, '\n');
		}
		else
		{
			appendStringInfoString(st->out, " -> ");
			append_node_ref(st, dst);
			appendStringInfoString(st->out, " [label=\"");
			append_escaped(st->out, st->label, st->labellen, false);
			appendStringInfoString(st->out, "\"];\n");
		}
	}
	return true;
}

/*
 * adjlist_export(tbl, node, edge_prefix, depth, direction, format,
 *				  target_prefix, sk_is_target) RETURNS text
 */
Datum
adjlist_export(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	NodeSet		nodes;
	NodeSet		edges;
	ExportState st;
	StringInfoData out;
	struct varlena *start = PG_GETARG_ADJKEY_PP(1);
	int32		max_depth = check_depth(PG_GETARG_INT32(3));
	char	   *format = text_to_cstring(PG_GETARG_TEXT_PP(5));
	bool		isnew;
	GNode	   *root;
	int32		begin = 0,
				end;
	text	   *result;

	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(6),
							   PG_GETARG_BOOL(7));
	dir = parse_direction(PG_GETARG_TEXT_PP(4));
	if (strcmp(format, "dot") != 0 && strcmp(format, "mermaid") != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("format must be 'dot' or 'mermaid', not \"%s\"", format)));
	/* allocated before SPI_connect(): it must outlive SPI_finish() */
	initStringInfo(&out);
	g = open_graph(PG_GETARG_OID(0), dir);
	rd = graph_reader_begin(g);

	nodeset_init(&nodes, "export");
	nodeset_init(&edges, "export");
	memset(&st, 0, sizeof(st));
	st.nodes = &nodes;
	st.edges = &edges;
	st.out = &out;
	st.mermaid = (strcmp(format, "mermaid") == 0);
	/* the edge label: the prefix without its trailing separator */
	st.label = conv.edge_prefix;
	st.labellen = adjkey_ends_in_separator(conv.edge_prefix, conv.eplen)
		? conv.eplen - 1 : conv.eplen;

	if (st.mermaid)
		appendStringInfoString(&out, "graph LR\n");
	else
		appendStringInfoString(&out, "digraph adjlist {\n    node [shape=box];\n");
	root = nodeset_add(&nodes, ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew);
	if (st.mermaid)
	{
		appendStringInfo(&out, "    n%d[\"", root->id);
		append_escaped(&out, root->key.data, root->key.len, true);
		appendStringInfoString(&out, "\"]\n");
	}
	else
	{
		appendStringInfoString(&out, "    ");
		append_node_ref(&st, root);
		appendStringInfoString(&out, " [style=bold];\n");
	}
	end = nodes.n;
	for (int32 depth = 1; depth <= max_depth && begin < end; depth++)
	{
		st.depth = depth;
		for (int32 id = begin; id < end; id++)
		{
			CHECK_FOR_INTERRUPTS();
			st.from = nodes.byid[id];
			st.parent = id;
			expand(rd, &conv, dir, st.from->key.data, st.from->key.len, export_visit, &st);
		}
		begin = end;
		end = nodes.n;
	}
	if (!st.mermaid)
		appendStringInfoString(&out, "}\n");
	graph_reader_end(rd);
	SPI_finish();
	result = cstring_to_text_with_len(out.data, out.len);
	PG_RETURN_TEXT_P(result);
}
