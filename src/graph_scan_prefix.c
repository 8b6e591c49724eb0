/*-------------------------------------------------------------------------
 *
 * graph_scan_prefix.c
 *	  The prefix pass of a BFS level on the direct btree path: a level's
 *	  out-edges of one edge prefix read by one pass over the inverted index.
 *
 * A level's out-edges of an edge prefix that is a small share of the graph
 * (FRIEND# among many FOLLOWS#) are read, when the statistics say it is
 * cheaper (direct_prefix_pass), by one pass over that prefix's range of
 * the inverted index, keeping the edges whose source is a node of the
 * level (direct_scan_prefix); the range holds each target's edges
 * together, so a BFS that only counts skips those of a target it has
 * reached at one probe per target, and past PREFIX_JUMP of them descends
 * again past the target (prefix_jump).
 *
 * The pass is one more scan of the direct path's reader: it reads the
 * inverted index through the scan the reader keeps open for in-edges, with
 * the calls of graph_scan_direct.c (graph_scan_direct_int.h), under the
 * same conditions (graph_reader.c decides).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/stratnum.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "adjlist.h"
#include "graph.h"
#include "graph_scan_direct_int.h"
#include "scan_key.h"

/*
 * Can a level's out-edges with an edge prefix be read by one pass over
 * the prefix's range of the inverted index (direct_scan_prefix)?  That
 * range holds every edge with the prefix, of all nodes, together: where
 * the prefix is a small share of the graph (FRIEND# edges among many
 * FOLLOWS#), reading it all and keeping the edges of the level's nodes
 * costs less than a descent per node of the base table's btree, whose
 * partitions hold the other prefixes' edges in between.  Chosen when the
 * range, by the base table's statistics, costs less than both the descents
 * (LEVEL_PASS_RATIO tuples each) and a pass over the base index; a tuple
 * of the range costs PREFIX_PASS_TUPLE tuples of the base pass (a hash
 * probe of its source).  The inverted index must be a direct one, not
 * write-sharded; the same requests as direct_level_pass, out-edges only.
 */
#define PREFIX_PASS_TUPLE 1

/*
 * With the edges per node of the level known (per_node >= 0: measured on
 * the level's first descents, for a pass that skips the edges to known
 * targets, which hands over about one edge per target), the descents of
 * the level cost PREFIX_DESCENT tuples of the pass per node and
 * PREFIX_EDGE per edge (an edge read and handed over by a descent costs
 * that much more than a tuple the pass reads; measured on the benchmark's
 * graph, callgrind): a level of hubs (a hub's followees) takes the pass,
 * one of many nodes with few edges (the last level of a BFS) does not.
 */
#define PREFIX_DESCENT 24
#define PREFIX_EDGE 2

bool
direct_prefix_pass(DirectReader *r, const GraphScan *tmpl, int n, double per_node)
{
	GraphTable *g = r->g;
	Relation	index;
	double		cost;
	float4		tuples;

	if (tmpl->reverse || tmpl->conv->eplen == 0 || tmpl->want_data || tmpl->need_data ||
		tmpl->conv->filter != NULL || tmpl->after != NULL || tmpl->backward ||
		tmpl->limit > 0 || n < 2 ||
		!OidIsValid(g->inv_rel) || !g->inv_direct || g->inv_shards > 0)
		return false;
	cost = graph_prefix_rows(g->baserel, g->base_sk, tmpl->conv->edge_prefix,
							 tmpl->conv->eplen) * PREFIX_PASS_TUPLE;
	if (cost < 0 || cost >= (double) n * (per_node >= 0 ? PREFIX_DESCENT + PREFIX_EDGE * per_node :
										 LEVEL_PASS_RATIO))
		return false;
	index = index_open(g->base_keyindex, AccessShareLock);
	tuples = index->rd_rel->reltuples;
	index_close(index, NoLock);
	return tuples <= 0 || cost < tuples;
}

/*
 * The target the prefix pass is at (the inverted index's partition key, an
 * out-edge's sort key): whether its edges are left out (direct_scan_prefix
 * with known).  Decided once per target, at its first tuple.
 */
typedef struct PrefixSkip
{
	char		part[ADJKEY_MAX_BYTES];	/* the target's sort key */
	int			partlen;		/* 0: none yet (a target's has the prefix) */
	bool		done;			/* known, or handed over in this pass */
	int			skipped;		/* its tuples left out so far */
	char	   *buf;			/* graph_edge_neighbor's */
	struct varlena *jumpkey;	/* the last prefix_jump's scan key */
} PrefixSkip;

static bool
prefix_target_done(PrefixSkip *skip, const EdgeConvention *conv, NodeSet *known, Datum partd)
{
	struct varlena *sk = DatumGetAdjkeyPP(partd);
	int			len = ADJKEY_LEN(sk);
	GraphEdge	edge;
	const char *nb;
	int			nblen;

	if (skip->partlen == len && adjkey_bytes_equal(skip->part, ADJKEY_DATA(sk), len))
		return skip->done;
	memcpy(skip->part, ADJKEY_DATA(sk), len);
	skip->partlen = len;
	skip->skipped = 0;
	memset(&edge, 0, sizeof(edge));
	edge.sk = skip->part;
	edge.sklen = len;
	/* a row that names no target is handed over (the callback skips it) */
	skip->done = graph_edge_neighbor(conv, false, &edge, &nb, &nblen, &skip->buf) &&
		nodeset_find_id(known, nb, nblen) >= 0;
	return skip->done;
}

/*
 * A target whose edges the prefix pass leaves out, after PREFIX_JUMP of
 * them: the scan is positioned again after the target's last edge (a
 * descent, sk > target) instead of reading the rest, which for a target
 * with many in-edges (a hub everyone follows) is most of them: on the
 * benchmark's graph 38% of the FOLLOWS# edges are past the 64th of their
 * target, 14% past the 256th.  A descent, which reads the rest of its
 * leaf page with the key tested through fmgr on each tuple, costs about
 * as much as 100 tuples of the pass: of 16, 32, 64, 128 and 256, 128 took
 * the fewest instructions (callgrind, 3 and 4 hops from the out_hub and
 * the median start).  Not in SERIALIZABLE transactions: the leaf pages
 * jumped over would not be predicate-locked, and an edge inserted there
 * to a target not seen yet would go unnoticed.
 */
#define PREFIX_JUMP 128

static void
prefix_jump(DirectReader *r, DirectScan *ds, PrefixSkip *skip)
{
	ScanKeyData key;
	struct varlena *old = skip->jumpkey;

	skip->jumpkey = adjkey_from_utf8(skip->part, skip->partlen);
	adjlist_scan_key_init(&key, 1, BTGreaterStrategyNumber, r->g->gt_proc,
						  PointerGetDatum(skip->jumpkey));
	index_rescan(ds->scan, &key, 1, NULL, 0);
	scan_rescanned(ds);
	if (old != NULL)
		pfree(old);				/* the scan's keys are the new one's now */
}

/*
 * The out-edges of nodes[0..n) with the edge prefix, by one forward
 * index-only pass over the prefix's range of the inverted index: each
 * tuple whose source (its second key) is a node of the level goes to cb as
 * that node's edge, edge->origin its index.  The same rows as n calls of
 * direct_scan, each node's in key order (the range is ordered by sort key
 * and, within one, by source), but the nodes' edges interleaved.  -1,
 * having read nothing, when the nodes are not distinct.
 *
 * With known (graph_reader_skip_known: a caller that does nothing with an
 * edge to a node it has, or to one it was handed an edge to before), the
 * edges to a target in known are left out, and so are all but the first
 * edge from the level to any other: the range holds a target's edges
 * together, so that costs one probe of known per target instead of one of
 * the level per edge, and no callback for the edges left out.  Where most
 * targets are known (a BFS's last levels), most of the range is skipped so.
 */
int64
direct_scan_prefix(DirectReader *r, const GraphScan *tmpl, const char **nodes,
				   const int *lens, int n, NodeSet *known, GraphEdgeCallback cb, void *arg)
{
	GraphTable *g = r->g;
	DirectScan *ds = &r->dirs[1];
	NodeSet		level;
	ScanKeyData key;
	GraphEdge	edge;
	Datum		partd;
	Datum		sortd;
	int64		count = 0;
	bool		isnew;
	PrefixSkip	skip = {0};
	MemoryContext callercxt = CurrentMemoryContext;

	nodeset_init(&level, callercxt, "a level's expansion");
	for (int i = 0; i < n; i++)
		if (nodeset_add(&level, nodes[i], lens[i], &isnew)->id != i)
			return -1;
	adjlist_scan_key_init(&key, 1, BTGreaterEqualStrategyNumber, g->ge_proc,
						  key_datum(tmpl->conv->edge_prefix, tmpl->conv->eplen));
	direct_int_prepare(r, ds, g->inv_rel, g->inv_keyindex, 1, true, 0);
	ds->endprefix = tmpl->conv->edge_prefix;
	ds->endprefixlen = tmpl->conv->eplen;
	ds->endatt = 0;
	MemoryContextSwitchTo(r->cxt);
	index_rescan(ds->scan, &key, 1, NULL, 0);
	scan_rescanned(ds);
	while (direct_int_next(g, ds, true, ForwardScanDirection, &partd, &sortd,
						   &edge.data, &edge.data_isnull))
	{
		struct varlena *src;
		int32		id;
		bool		go_on;

		if (known != NULL && prefix_target_done(&skip, tmpl->conv, known, partd))
		{
			if (++skip.skipped == PREFIX_JUMP && !IsolationIsSerializable())
				prefix_jump(r, ds, &skip);
			continue;
		}
		src = DatumGetAdjkeyPP(sortd);
		id = nodeset_find_id(&level, ADJKEY_DATA(src), ADJKEY_LEN(src));
		if (id < 0)
			continue;
		/* forward: the source is the edge's partition key */
		direct_int_edge(&edge, false, sortd, partd, NULL, 0, (Datum) 0);
		edge.origin = id;
		count++;
		skip.done = true;		/* the callback has the target now */
		MemoryContextSwitchTo(callercxt);
		go_on = cb(arg, &edge);
		MemoryContextSwitchTo(r->cxt);
		if (!go_on)
			break;
	}
	if (skip.buf != NULL)
		pfree(skip.buf);
	ds->endprefix = NULL;
	ExecClearTuple(ds->slot);
	MemoryContextSwitchTo(callercxt);
	return count;
}
