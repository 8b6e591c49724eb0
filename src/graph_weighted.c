/*-------------------------------------------------------------------------
 *
 * graph_weighted.c
 *	  Weighted shortest paths: Dijkstra's algorithm over a numeric member of
 *	  the edges' data (shortest_path_weighted), next to the unweighted
 *	  bidirectional BFS of graph_traverse.c.
 *
 * The search settles one node at a time, the cheapest first, and reads its
 * edges through graph_reader.c like every graph function: out-edges from
 * the base table, in-edges through the inverted index, directly from the
 * btrees on a plain table, through SQL (as the caller) on partitioned,
 * foreign, Citus tables and under row-level security.  The weight is a
 * member of the edge's data; for in-edges that is the index's projected
 * data, or the base row's, found by its key, when the index projects none
 * (GraphScan.need_data).  An edge filter selects the edges first, so an
 * edge it leaves out needs no weight.
 *
 * Weights.  The member must be a JSON number, zero or more: an edge the
 * search reads whose data lacks it (or has it null), has another type
 * there, or a negative number, is an error (22023) naming the edge, never
 * a silently different path.  The cost of a path is the sum of its weights
 * in double precision, as pgRouting's.
 *
 * Ties.  Nodes are settled in order of cost, then of key (UTF-8 bytes),
 * and a node keeps the predecessor of the first path that reached it at
 * its final cost; each node's edges are read in key order (out-edges,
 * then in-edges).  So among paths of equal cost the answer is always the
 * same, whichever path read the table.
 *
 * Memory.  A binary min-heap holds the nodes reached but not settled, and
 * each node its position in it, so a cheaper path moves a node up
 * (decrease-key) instead of adding an entry: one heap slot, one cost and
 * one position per node reached.  They live in the node set's context,
 * charged against adjlist.max_memory; adjlist.max_visited caps the nodes
 * reached; max_cost keeps nodes beyond it out of the set altogether.
 * Every node settled checks for interrupts, so cancel and
 * statement_timeout stop a long search.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "graph.h"

PG_FUNCTION_INFO_V1(adjlist_shortest_path_weighted);

#define NOT_IN_HEAP		(-1)		/* settled */

/* One search: from the start forward, or from the target backward. */
typedef struct Search
{
	NodeSet		set;			/* every node reached, by id */
	double	   *cost;			/* id -> least cost found */
	int32	   *pos;			/* id -> heap position, or NOT_IN_HEAP */
	int32		cap;			/* of cost and pos */
	int32	   *heap;			/* ids of the nodes reached, not settled */
	int32		nheap;
	int32		heapcap;
	Direction	dir;			/* the edges it follows */
} Search;

typedef struct Dijkstra
{
	Search		side[2];		/* forward from from_node; backward from to_node */
	int			nsides;			/* 1: forward only (no inverted index) */
	const EdgeConvention *conv;
	const char *weight;			/* the member of the data, server encoding */
	int			weightlen;
	double		max_cost;		/* infinity: no bound */

	/* the cheapest path found: where the two searches meet */
	double		best;
	int32		meet[2];		/* the meeting node's id in each side */

	/* the expansion in progress */
	int			cur;			/* the side expanding */
	bool		reverse;		/* reading in-edges */
	int32		from;			/* the node expanded */
	char	   *buf;			/* graph_edge_neighbor()'s scratch */
} Dijkstra;

/* ----------------------------------------------------------------------
 * The heap of a search: nodes by (cost, key)
 * ----------------------------------------------------------------------
 */

static inline bool
heap_less(Search *s, int32 a, int32 b)
{
	GNode	   *x;
	GNode	   *y;

	if (s->cost[a] != s->cost[b])
		return s->cost[a] < s->cost[b];
	x = s->set.byid[a];
	y = s->set.byid[b];
	return adjkey_cmp_bytes(x->key.data, x->key.len, y->key.data, y->key.len) < 0;
}

static inline void
heap_set(Search *s, int32 i, int32 id)
{
	s->heap[i] = id;
	s->pos[id] = i;
}

static void
heap_up(Search *s, int32 i)
{
	int32		id = s->heap[i];

	while (i > 0)
	{
		int32		parent = (i - 1) / 2;

		if (!heap_less(s, id, s->heap[parent]))
			break;
		heap_set(s, i, s->heap[parent]);
		i = parent;
	}
	heap_set(s, i, id);
}

static void
heap_down(Search *s, int32 i)
{
	int32		id = s->heap[i];

	for (;;)
	{
		int32		child = 2 * i + 1;

		if (child >= s->nheap)
			break;
		if (child + 1 < s->nheap && heap_less(s, s->heap[child + 1], s->heap[child]))
			child++;
		if (!heap_less(s, s->heap[child], id))
			break;
		heap_set(s, i, s->heap[child]);
		i = child;
	}
	heap_set(s, i, id);
}

static void
heap_push(Search *s, int32 id)
{
	if (s->nheap >= s->heapcap)
	{
		s->heapcap *= 2;
		s->heap = repalloc(s->heap, sizeof(int32) * s->heapcap);
	}
	s->heap[s->nheap] = id;
	s->pos[id] = s->nheap;
	s->nheap++;
	heap_up(s, s->nheap - 1);
}

static int32
heap_pop(Search *s)
{
	int32		top = s->heap[0];

	s->pos[top] = NOT_IN_HEAP;
	s->nheap--;
	if (s->nheap > 0)
	{
		s->heap[0] = s->heap[s->nheap];
		heap_down(s, 0);
	}
	return top;
}

/* The least cost in the heap: the next node to settle. */
static inline double
heap_top(Search *s)
{
	return s->nheap > 0 ? s->cost[s->heap[0]] : get_float8_infinity();
}

/* ----------------------------------------------------------------------
 * Nodes
 * ----------------------------------------------------------------------
 */

static void
search_init(Search *s, MemoryContext parent, Direction dir)
{
	memset(s, 0, sizeof(*s));
	nodeset_init(&s->set, parent, "shortest_path_weighted");
	s->cap = 1024;
	s->cost = MemoryContextAlloc(s->set.cxt, sizeof(double) * s->cap);
	s->pos = MemoryContextAlloc(s->set.cxt, sizeof(int32) * s->cap);
	s->heapcap = 1024;
	s->heap = MemoryContextAlloc(s->set.cxt, sizeof(int32) * s->heapcap);
	s->dir = dir;
}

/* A node reached for the first time, at cost c from node from. */
static void
node_reached(Search *s, GNode *node, double c, int32 from)
{
	if (node->id >= s->cap)
	{
		s->cap *= 2;
		s->cost = repalloc(s->cost, sizeof(double) * s->cap);
		s->pos = repalloc(s->pos, sizeof(int32) * s->cap);
	}
	s->cost[node->id] = c;
	node->parent = from;
	heap_push(s, node->id);
}

/*
 * The cost of node (of side cur) has just been set or lowered: is the path
 * through it to the other search's tree cheaper than the best so far?
 */
static void
check_meeting(Dijkstra *d, GNode *node)
{
	Search	   *mine = &d->side[d->cur];
	Search	   *other = &d->side[1 - d->cur];
	GNode	   *there;
	double		c;

	if (d->nsides < 2)
		return;
	there = nodeset_find(&other->set, node->key.data, node->key.len);
	if (there == NULL)
		return;
	c = mine->cost[node->id] + other->cost[there->id];
	if (c < d->best)
	{
		d->best = c;
		d->meet[d->cur] = node->id;
		d->meet[1 - d->cur] = there->id;
	}
}

/* ----------------------------------------------------------------------
 * Weights and relaxation
 * ----------------------------------------------------------------------
 */

/*
 * An edge's keys for error details, quoted as the error message style guide
 * quotes values: pk "USER#alice", sk "ROAD#PLACE#Bree".
 */
static char *
edge_name(const GraphEdge *edge)
{
	int			len;

	return psprintf("pk \"%s\", sk \"%s\"",
					adjkey_to_server(adjkey_from_utf8(edge->pk, edge->pklen), &len),
					adjkey_to_server(adjkey_from_utf8(edge->sk, edge->sklen), &len));
}

static const char *
jsonb_type_name(const JsonbValue *v)
{
	switch (v->type)
	{
		case jbvString:
			return "a string";
		case jbvBool:
			return "a boolean";
		case jbvBinary:
			return JsonContainerIsArray(v->val.binary.data) ? "an array" : "an object";
		default:
			return "not a number";
	}
}

/* The weight of an edge: its data's member d->weight, a number >= 0. */
static double
edge_weight(Dijkstra *d, const GraphEdge *edge)
{
	Jsonb	   *j = NULL;
	JsonbValue	vbuf;
	JsonbValue *v = NULL;
	double		w;

	if (!edge->data_isnull)
	{
		j = DatumGetJsonbP(edge->data);
		if (JB_ROOT_IS_OBJECT(j))
			v = getKeyJsonValueFromContainer(&j->root, d->weight, d->weightlen, &vbuf);
	}
	if (v == NULL || v->type == jbvNull)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("edge has no weight \"%.*s\"", d->weightlen, d->weight),
				 errdetail("The data of the edge (%s) %s.", edge_name(edge),
						   edge->data_isnull ? "is null" :
						   !JB_ROOT_IS_OBJECT(j) ? "is not a JSON object" :
						   v == NULL ? "has no such member" : "has it null"),
				 errhint("Give every edge the search follows a number there, or leave the others out with edge_filter.")));
	if (v->type != jbvNumeric)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("edge weight \"%.*s\" is not a number", d->weightlen, d->weight),
				 errdetail("The weight of the edge (%s) is %s.", edge_name(edge),
						   jsonb_type_name(v))));
	w = DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
										   NumericGetDatum(v->val.numeric)));
	if (isinf(w))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("edge weight \"%.*s\" is out of range for type double precision",
						d->weightlen, d->weight),
				 errdetail("The weight of the edge (%s) is too large.", edge_name(edge))));
	if (w < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("edge weight \"%.*s\" is negative", d->weightlen, d->weight),
				 errdetail("The weight of the edge (%s) is %g; Dijkstra's algorithm needs weights of zero or more.",
						   edge_name(edge), w)));
	if ((Pointer) j != DatumGetPointer(edge->data))
		pfree(j);
	return w;
}

/* An edge of the node being expanded: a cheaper way to its far end? */
static bool
relax_edge(void *arg, const GraphEdge *edge)
{
	Dijkstra   *d = (Dijkstra *) arg;
	Search	   *s = &d->side[d->cur];
	const char *nb;
	int			nblen;
	double		c;
	GNode	   *node;
	bool		isnew;

	if (!graph_edge_neighbor(d->conv, d->reverse, edge, &nb, &nblen, &d->buf))
		return true;
	c = s->cost[d->from] + edge_weight(d, edge);
	if (c > d->max_cost)
		return true;			/* beyond max_cost: never reached */
	node = nodeset_add(&s->set, nb, nblen, &isnew);
	if (isnew)
		node_reached(s, node, c, d->from);
	else if (s->pos[node->id] != NOT_IN_HEAP && c < s->cost[node->id])
	{
		s->cost[node->id] = c;
		node->parent = d->from;
		heap_up(s, s->pos[node->id]);
	}
	else
		return true;
	check_meeting(d, node);
	return true;
}

/* Node id of side cur is settled: relax each of its edges. */
static void
expand(Dijkstra *d, GraphReader *rd, int cur, int32 id)
{
	Search	   *s = &d->side[cur];
	GNode	   *node = s->set.byid[id];
	GraphScan	req;

	memset(&req, 0, sizeof(req));
	req.node = node->key.data;
	req.nodelen = node->key.len;
	req.conv = d->conv;
	req.need_data = true;
	d->cur = cur;
	d->from = id;
	for (int r = 0; r < 2; r++)
	{
		if (!(s->dir & (r == 0 ? DIR_OUT : DIR_IN)))
			continue;
		req.reverse = d->reverse = (r == 1);
		d->buf = NULL;			/* the reader frees its scratch after a scan */
		(void) graph_reader_scan_one(rd, &req, relax_edge, d);
	}
}

/* The keys from the root of side s to node id, appended to elems. */
static int
chain(Search *s, int32 id, Datum *elems, bool root_first)
{
	int			len = 0;

	for (int32 cur = id; cur >= 0; cur = s->set.byid[cur]->parent)
	{
		GNode	   *node = s->set.byid[cur];

		elems[len++] = PointerGetDatum(adjkey_from_utf8(node->key.data, node->key.len));
	}
	if (root_first)
	{
		for (int i = 0; i < len / 2; i++)
		{
			Datum		t = elems[i];

			elems[i] = elems[len - 1 - i];
			elems[len - 1 - i] = t;
		}
	}
	return len;
}

static int
depth_of(Search *s, int32 id)
{
	int			len = 0;

	for (int32 cur = id; cur >= 0; cur = s->set.byid[cur]->parent)
		len++;
	return len;
}

/*
 * The path from_node .. to_node through the meeting node: the forward
 * search's chain to it, then the backward search's chain from it.
 */
static ArrayType *
meeting_path(Dijkstra *d, GraphTable *g, int32 fwd_id, int32 bwd_id)
{
	int			nf = depth_of(&d->side[0], fwd_id);
	int			nb = bwd_id >= 0 ? depth_of(&d->side[1], bwd_id) - 1 : 0;
	Datum	   *elems = palloc(sizeof(Datum) * (nf + nb + 1));
	int			n = chain(&d->side[0], fwd_id, elems, true);

	if (bwd_id >= 0)
	{
		int32		parent = d->side[1].set.byid[bwd_id]->parent;

		if (parent >= 0)
			n += chain(&d->side[1], parent, elems + n, false);
	}
	return construct_array(elems, n, g->keytype, -1, false, TYPALIGN_INT);
}

/* Start side s of the search at key (its root, at cost 0). */
static void
search_root(Dijkstra *d, int side, Direction dir, struct varlena *key)
{
	GNode	   *root;
	bool		isnew;

	search_init(&d->side[side], CurrentMemoryContext, dir);
	root = nodeset_add(&d->side[side].set, ADJKEY_DATA(key), ADJKEY_LEN(key), &isnew);
	node_reached(&d->side[side], root, 0.0, -1);
}

/*
 * Forward only (no inverted index): settle nodes until to is settled.
 * Returns to's id, or -1 when it cannot be reached.
 */
static int32
search_forward(Dijkstra *d, GraphReader *rd, struct varlena *to)
{
	while (d->side[0].nheap > 0)
	{
		int32		id;
		GNode	   *node;

		CHECK_FOR_INTERRUPTS();
		id = heap_pop(&d->side[0]);
		node = d->side[0].set.byid[id];
		if (adjkey_cmp_bytes(node->key.data, node->key.len,
							 ADJKEY_DATA(to), ADJKEY_LEN(to)) == 0)
		{
			d->best = d->side[0].cost[id];
			return id;
		}
		expand(d, rd, 0, id);
	}
	return -1;
}

/*
 * Both ways: expand the side with the smaller frontier until the two
 * smallest costs left add up to no less than the best meeting; the meeting
 * ends up in d->meet.
 */
static void
search_both(Dijkstra *d, GraphReader *rd)
{
	Search	   *f = &d->side[0];
	Search	   *b = &d->side[1];

	while (f->nheap > 0 && b->nheap > 0 && heap_top(f) + heap_top(b) < d->best)
	{
		/* the smaller frontier; on a tie, the forward search */
		int			cur = f->nheap <= b->nheap ? 0 : 1;

		CHECK_FOR_INTERRUPTS();
		expand(d, rd, cur, heap_pop(&d->side[cur]));
	}
}

/* max_cost (argument 6): NULL is no bound; otherwise a number >= 0. */
static double
max_cost_arg(FunctionCallInfo fcinfo)
{
	double		max_cost;

	if (PG_ARGISNULL(6))
		return get_float8_infinity();
	max_cost = PG_GETARG_FLOAT8(6);
	if (isnan(max_cost) || max_cost < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("max_cost must be a number of zero or more")));
	return max_cost;
}

/*
 * shortest_path_weighted(tbl, from_node, to_node, edge_prefix, weight,
 *						  direction, max_cost, target_prefix, sk_is_target,
 *						  edge_filter)
 *	RETURNS TABLE (path adjkey[], cost double precision)
 *
 * One row, a cheapest path and its cost, or none when to_node cannot be
 * reached (within max_cost).  direction 'in' follows edges backward (the
 * path from from_node to to_node runs against them), 'both' either way.
 *
 * With an inverted index the search is bidirectional: forward from
 * from_node, backward from to_node (along the edges the other way), each
 * step settling the next node of the side with the smaller frontier; the
 * cheapest meeting is the answer once the two smallest costs left add up
 * to no less than it (Dijkstra's bidirectional stopping rule).  Without
 * one ('out' only), the forward search runs until it settles to_node.
 */
Datum
adjlist_shortest_path_weighted(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	Dijkstra	d;
	struct varlena *from;
	struct varlena *to;
	text	   *weight;
	int32		found_f = -1;
	int32		found_b = -1;

	InitMaterializedSRF(fcinfo, 0);
	/* max_cost and edge_filter may be NULL: no bound, no filter */
	for (int i = 0; i < 9; i++)
		if (i != 6 && PG_ARGISNULL(i))
			return (Datum) 0;
	from = PG_GETARG_ADJKEY_PP(1);
	to = PG_GETARG_ADJKEY_PP(2);
	weight = PG_GETARG_TEXT_PP(4);
	if (VARSIZE_ANY_EXHDR(weight) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("weight must name a member of the edges' data")));
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(3), PG_GETARG_TEXT_PP(7),
							   PG_GETARG_BOOL(8));
	conv.filter = graph_filter_arg(fcinfo, 9);
	dir = graph_parse_direction(PG_GETARG_TEXT_PP(5), true);

	memset(&d, 0, sizeof(d));
	d.max_cost = max_cost_arg(fcinfo);
	g = graph_open(PG_GETARG_OID(0), dir, false);
	graph_check_data(g, "shortest_path_weighted()");
	rd = graph_reader_begin(g);

	d.conv = &conv;
	d.weight = VARDATA_ANY(weight);
	d.weightlen = VARSIZE_ANY_EXHDR(weight);
	d.best = get_float8_infinity();
	d.meet[0] = d.meet[1] = -1;
	/* backward along the edges needs the edges the other way: the index */
	d.nsides = OidIsValid(g->inv_rel) ? 2 : 1;
	search_root(&d, 0, dir, from);
	if (d.nsides == 2)
		search_root(&d, 1, graph_reverse_direction(dir), to);

	if (adjkey_cmp_bytes(ADJKEY_DATA(from), ADJKEY_LEN(from),
						 ADJKEY_DATA(to), ADJKEY_LEN(to)) == 0)
	{
		d.best = 0;
		found_f = 0;
		found_b = d.nsides == 2 ? 0 : -1;
	}
	else if (d.nsides == 1)
		found_f = search_forward(&d, rd, to);
	else
	{
		search_both(&d, rd);
		found_f = d.meet[0];
		found_b = d.meet[1];
	}

	if (found_f >= 0 && d.best <= d.max_cost)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = PointerGetDatum(meeting_path(&d, g, found_f, found_b));
		values[1] = Float8GetDatum(d.best);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	graph_reader_end(rd);
	SPI_finish();
	return (Datum) 0;
}
