/*-------------------------------------------------------------------------
 *
 * graph_traverse.c
 *	  Breadth-first search (traverse, reachable_count) and shortest paths
 *	  (bidirectional BFS), each answered inside the server in one call.
 *
 * Both expand a whole BFS level at a time (graph_nodes.c): directly, one
 * btree descent per node; through SQL, one statement per level.  A node
 * reached for the first time keeps the depth and the parent it was first
 * reached with, so results follow BFS order: the frontier's order, and
 * each node's edges in key order.  Node sets live in a per-call context
 * charged against adjlist.max_memory; every scan checks for interrupts,
 * so query cancel and statement_timeout stop a traversal at once.
 *
 * Each takes an edge_filter (its last argument), carried in the edge
 * convention to every scan: only edges whose data contains it are
 * followed, on both sides of a bidirectional search.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "graph.h"

PG_FUNCTION_INFO_V1(adjlist_traverse);
PG_FUNCTION_INFO_V1(adjlist_reachable_count);
PG_FUNCTION_INFO_V1(adjlist_shortest_path);

/* ----------------------------------------------------------------------
 * Breadth-first search
 * ----------------------------------------------------------------------
 */

typedef struct BfsState
{
	NodeSet    *set;
	NodeBatch  *batch;			/* neighbors read, not yet in the set */
	int32		depth;
	int32		base;			/* id of the level's first node */
	int64		limit;			/* <= 0: none */
	int64		found;			/* nodes reached, not counting the start */
} BfsState;

static inline bool
bfs_at_limit(const BfsState *st)
{
	return st->limit > 0 && st->found >= st->limit;
}

/* A neighbor new to the set: it is at this depth. */
static bool
bfs_take(void *arg, NodeSet *set, int32 id, int origin)
{
	BfsState   *st = (BfsState *) arg;
	GNode	   *node = set->byid[id];

	node->depth = st->depth;
	node->parent = st->base + origin;
	st->found++;
	return !bfs_at_limit(st);
}

/*
 * A neighbor read: batched, and the batch added to the set when full (in
 * the order read, so ids, depths and parents are those of adding one at a
 * time); false stops the scan at the limit.
 */
static bool
bfs_visit(void *arg, const char *nb, int nblen, int origin, bool reverse,
		  const GraphEdge *edge)
{
	BfsState   *st = (BfsState *) arg;

	if (nodebatch_full(st->batch, nblen) &&
		!nodeset_add_batch(st->set, st->batch, bfs_take, st))
		return false;
	nodebatch_push(st->batch, nb, nblen, origin);
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
	int32		begin = 0;
	int32		end;

	nodeset_add(set, ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew);
	memset(&st, 0, sizeof(st));
	st.set = set;
	st.batch = palloc0(sizeof(NodeBatch));
	st.limit = limit;
	end = set->n;
	for (int32 depth = 1; depth <= max_depth && begin < end; depth++)
	{
		st.depth = depth;
		st.base = begin;
		graph_expand_level(rd, conv, dir, set->byid + begin, end - begin, bfs_visit, &st);
		if (!bfs_at_limit(&st))
			nodeset_add_batch(set, st.batch, bfs_take, &st);
		if (bfs_at_limit(&st))
			break;
		begin = end;
		end = set->n;
	}
	pfree(st.batch);
}

/*
 * traverse(tbl, start, edge_prefix, max_depth, direction, lim, with_path,
 *			target_prefix, sk_is_target, edge_filter)
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
	int32		max_depth;
	int64		limit;
	bool		with_path;
	MemoryContext rowcxt;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i <= 4; i++)
		if (PG_ARGISNULL(i))
			return (Datum) 0;
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2),
							   PG_ARGISNULL(7) ? NULL : PG_GETARG_TEXT_PP(7),
							   PG_ARGISNULL(8) ? false : PG_GETARG_BOOL(8));
	conv.filter = graph_filter_arg(fcinfo, 9);
	max_depth = graph_check_depth(PG_GETARG_INT32(3));
	dir = graph_parse_direction(PG_GETARG_TEXT_PP(4), true);
	limit = graph_limit_arg(fcinfo, 5);
	with_path = PG_ARGISNULL(6) ? false : PG_GETARG_BOOL(6);

	g = graph_open(PG_GETARG_OID(0), dir, false);
	if (conv.filter != NULL)
		graph_check_data(g, "traverse() with an edge_filter");
	rd = graph_reader_begin(g);
	nodeset_init(&set, CurrentMemoryContext, "traverse");
	bfs(rd, &conv, dir, PG_GETARG_ADJKEY_PP(1), max_depth, limit, &set);

	/*
	 * Each row's key and path are made in a context reset after the row is
	 * stored (the tuplestore copies it, and spills to disk past work_mem):
	 * paths of a deep search, depth keys a row, would otherwise all stay in
	 * the call's memory, which adjlist.max_memory bounds for the search
	 * itself, not for its output.
	 */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "traverse row", ALLOCSET_DEFAULT_SIZES);
	for (int32 id = 1; id < set.n; id++)
	{
		GNode	   *node = set.byid[id];
		Datum		values[3];
		bool		nulls[3] = {false, false, !with_path};
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		values[0] = PointerGetDatum(adjkey_from_utf8(node->key.data, node->key.len));
		values[1] = Int32GetDatum(node->depth);
		values[2] = with_path ? PointerGetDatum(graph_path_array(g, &set, node)) : (Datum) 0;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
	graph_reader_end(rd);
	SPI_finish();
	return (Datum) 0;
}

/*
 * reachable_count(tbl, start, edge_prefix, max_depth, direction,
 *				   target_prefix, sk_is_target, edge_filter)
 */
Datum
adjlist_reachable_count(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	NodeSet		set;
	int64		result;

	if (graph_args_null(fcinfo, 7))
		PG_RETURN_NULL();
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(5),
							   PG_GETARG_BOOL(6));
	conv.filter = graph_filter_arg(fcinfo, 7);
	dir = graph_parse_direction(PG_GETARG_TEXT_PP(4), true);
	g = graph_open(PG_GETARG_OID(0), dir, false);
	if (conv.filter != NULL)
		graph_check_data(g, "reachable_count() with an edge_filter");
	rd = graph_reader_begin(g);
	graph_reader_any_order(rd);	/* a count: BFS depths do not depend on it */
	nodeset_init(&set, CurrentMemoryContext, "reachable_count");
	graph_reader_skip_known(rd, &set);	/* bfs_take: nothing for a known node */
	bfs(rd, &conv, dir, PG_GETARG_ADJKEY_PP(1), graph_check_depth(PG_GETARG_INT32(3)), 0, &set);
	result = set.n - 1;
	graph_reader_end(rd);
	SPI_finish();
	PG_RETURN_INT64(result);
}

/* ----------------------------------------------------------------------
 * shortest_path: bidirectional breadth-first search
 * ----------------------------------------------------------------------
 */

/* One side of the search: its set and its current frontier. */
typedef struct Side
{
	NodeSet		set;
	int32		begin;			/* the frontier: ids [begin, end) */
	int32		end;
	int32		depth;
	Direction	dir;
} Side;

typedef struct SideState
{
	Side	   *mine;
	Side	   *other;
	int32		base;
	GNode	   *meet_mine;		/* best meeting so far */
	GNode	   *meet_other;
	int32		best;			/* its length, or INT32_MAX */
} SideState;

static bool
side_visit(void *arg, const char *nb, int nblen, int origin, bool reverse,
		   const GraphEdge *edge)
{
	SideState  *st = (SideState *) arg;
	bool		isnew;
	GNode	   *node = nodeset_add(&st->mine->set, nb, nblen, &isnew);
	GNode	   *there;

	if (!isnew)
		return true;
	node->depth = st->mine->depth + 1;
	node->parent = st->base + origin;
	there = nodeset_find(&st->other->set, nb, nblen);
	if (there != NULL && node->depth + there->depth < st->best)
	{
		st->best = node->depth + there->depth;
		st->meet_mine = node;
		st->meet_other = there;
	}
	return true;
}

/*
 * Expand one level of a side; a meeting found while expanding it is kept
 * only if no shorter one turns up before the level ends.
 */
static void
side_step(GraphReader *rd, const EdgeConvention *conv, Side *mine, Side *other,
		  GNode **meet_mine, GNode **meet_other)
{
	SideState	st;

	memset(&st, 0, sizeof(st));
	st.mine = mine;
	st.other = other;
	st.base = mine->begin;
	st.best = PG_INT32_MAX;
	graph_expand_level(rd, conv, mine->dir, mine->set.byid + mine->begin,
					   mine->end - mine->begin, side_visit, &st);
	mine->depth++;
	mine->begin = mine->end;
	mine->end = mine->set.n;
	*meet_mine = st.meet_mine;
	*meet_other = st.meet_other;
}

/* The path through a meeting: forward side's chain, then the backward's. */
static ArrayType *
meeting_path(GraphTable *g, Side *fwd, GNode *meet_f, Side *bwd, GNode *meet_b)
{
	int			len = meet_f->depth + meet_b->depth + 1;
	Datum	   *elems = palloc(sizeof(Datum) * len);
	GNode	   *cur = meet_f;

	for (int i = meet_f->depth; i >= 0; i--)
	{
		elems[i] = PointerGetDatum(adjkey_from_utf8(cur->key.data, cur->key.len));
		if (cur->parent >= 0)
			cur = fwd->set.byid[cur->parent];
	}
	cur = meet_b;
	for (int i = meet_f->depth + 1; i < len; i++)
	{
		cur = bwd->set.byid[cur->parent];
		elems[i] = PointerGetDatum(adjkey_from_utf8(cur->key.data, cur->key.len));
	}
	return construct_array(elems, len, g->keytype, -1, false, TYPALIGN_INT);
}

/*
 * shortest_path(tbl, from, to, edge_prefix, max_depth, direction,
 *				 target_prefix, sk_is_target, edge_filter) RETURNS adjkey[]
 *
 * The forward side follows the edges in the given direction (out-edges from
 * the base table), the backward side follows them against it (in-edges
 * through the inverted index); each step expands one whole level of the
 * smaller frontier.
 */
Datum
adjlist_shortest_path(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	Side		fwd;
	Side		bwd;
	struct varlena *from;
	struct varlena *to;
	int32		max_depth;
	bool		isnew;
	MemoryContext callercxt = CurrentMemoryContext;
	GNode	   *meet_f = NULL;
	GNode	   *meet_b = NULL;
	ArrayType  *result = NULL;

	if (graph_args_null(fcinfo, 8))
		PG_RETURN_NULL();
	from = PG_GETARG_ADJKEY_PP(1);
	to = PG_GETARG_ADJKEY_PP(2);
	max_depth = graph_check_depth(PG_GETARG_INT32(4));
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(3), PG_GETARG_TEXT_PP(6),
							   PG_GETARG_BOOL(7));
	conv.filter = graph_filter_arg(fcinfo, 8);
	dir = graph_parse_direction(PG_GETARG_TEXT_PP(5), true);
	g = graph_open(PG_GETARG_OID(0), DIR_BOTH, false);	/* both sides are read */
	if (conv.filter != NULL)
		graph_check_data(g, "shortest_path() with an edge_filter");
	rd = graph_reader_begin(g);

	memset(&fwd, 0, sizeof(fwd));
	memset(&bwd, 0, sizeof(bwd));
	nodeset_init(&fwd.set, CurrentMemoryContext, "shortest_path");
	nodeset_init(&bwd.set, CurrentMemoryContext, "shortest_path");
	fwd.dir = dir;
	bwd.dir = graph_reverse_direction(dir);
	nodeset_add(&fwd.set, ADJKEY_DATA(from), ADJKEY_LEN(from), &isnew);
	nodeset_add(&bwd.set, ADJKEY_DATA(to), ADJKEY_LEN(to), &isnew);
	fwd.end = bwd.end = 1;

	if (adjkey_cmp_bytes(ADJKEY_DATA(from), ADJKEY_LEN(from),
						 ADJKEY_DATA(to), ADJKEY_LEN(to)) == 0)
	{
		meet_f = fwd.set.byid[0];
		meet_b = bwd.set.byid[0];
	}
	while (meet_f == NULL && fwd.depth + bwd.depth < max_depth &&
		   fwd.begin < fwd.end && bwd.begin < bwd.end)
	{
		CHECK_FOR_INTERRUPTS();
		if (fwd.end - fwd.begin <= bwd.end - bwd.begin)
			side_step(rd, &conv, &fwd, &bwd, &meet_f, &meet_b);
		else
			side_step(rd, &conv, &bwd, &fwd, &meet_b, &meet_f);
	}
	if (meet_f != NULL)
	{
		/* the result must outlive SPI_finish(), which frees SPI's memory */
		MemoryContext oldcxt = MemoryContextSwitchTo(callercxt);

		result = meeting_path(g, &fwd, meet_f, &bwd, meet_b);
		MemoryContextSwitchTo(oldcxt);
	}
	graph_reader_end(rd);
	SPI_finish();
	if (result == NULL)
		PG_RETURN_NULL();
	PG_RETURN_ARRAYTYPE_P(result);
}
