/*-------------------------------------------------------------------------
 *
 * graph_rank.c
 *	  Neighborhood questions answered in one call: the neighbors two nodes
 *	  share (common_neighbors) and the nodes two or three hops away ranked
 *	  by how many walks reach them (walk_ranked: "people you may know",
 *	  "liked by people who liked this").
 *
 * common_neighbors merges, in one direction on the direct path, two
 * streams of the nodes' edges read side by side (each node's edges come in
 * key order); elsewhere it reads the first node's neighbors as a list
 * (sorted when the read did not give key order: both directions) and
 * merges the second node's with it as they are read, or, in both
 * directions, as a second sorted list: no hash table, and the result comes
 * out in key order.
 *
 * walk_ranked expands a whole level per hop (graph_nodes.c), so a table
 * read through SQL costs one statement per hop; a node's score at the next
 * hop is the sum of the scores of the nodes it was reached from, which is
 * the number of walks that reach it.  With a limit (people_you_may_know
 * and also_liked default to 10) the best nodes are kept in a heap in one
 * pass over the last level, and only they are sorted.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/int.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/binaryheap.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "graph.h"

PG_FUNCTION_INFO_V1(adjlist_common_neighbors);
PG_FUNCTION_INFO_V1(adjlist_walk_ranked);

/* ----------------------------------------------------------------------
 * common_neighbors
 * ----------------------------------------------------------------------
 */

/* The neighbors of one node: keys packed in one buffer. */
typedef struct KeyList
{
	StringInfoData bytes;
	int		   *off;
	int		   *len;
	int			n;
	int			cap;
	bool		sorted;			/* arrived in key order so far */
	MemoryContext charged;
} KeyList;

static void
keylist_init(KeyList *k, MemoryContext charged)
{
	initStringInfo(&k->bytes);
	k->cap = 64;
	k->n = 0;
	k->off = palloc(sizeof(int) * k->cap);
	k->len = palloc(sizeof(int) * k->cap);
	k->sorted = true;
	k->charged = charged;
}

static inline int
keylist_cmp(const KeyList *k, int i, const char *key, int len)
{
	return adjkey_cmp_bytes(k->bytes.data + k->off[i], k->len[i], key, len);
}

static bool
keylist_collect(void *arg, const char *nb, int nblen, int origin, bool reverse,
				const GraphEdge *edge)
{
	KeyList    *k = (KeyList *) arg;

	if (k->n > 0)
	{
		int			c = keylist_cmp(k, k->n - 1, nb, nblen);

		if (c == 0)
			return true;		/* the same neighbor again */
		if (c > 0)
			k->sorted = false;
	}
	if (k->n >= adjlist_max_visited)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("graph search visited more than %d nodes", adjlist_max_visited),
				 errdetail("The call of common_neighbors() reached adjlist.max_visited."),
				 errhint("Raise adjlist.max_visited.")));
	if (k->n >= k->cap)
	{
		k->cap *= 2;
		k->off = repalloc(k->off, sizeof(int) * k->cap);
		k->len = repalloc(k->len, sizeof(int) * k->cap);
		graph_charge(k->charged, "common_neighbors");
	}
	k->off[k->n] = k->bytes.len;
	k->len[k->n] = nblen;
	appendBinaryStringInfo(&k->bytes, nb, nblen);
	k->n++;
	return true;
}

static int
keylist_index_cmp(const void *a, const void *b, void *arg)
{
	const KeyList *sorting = (const KeyList *) arg;
	int			i = *(const int *) a;
	int			j = *(const int *) b;

	return adjkey_cmp_bytes(sorting->bytes.data + sorting->off[i], sorting->len[i],
							sorting->bytes.data + sorting->off[j], sorting->len[j]);
}

/* Put a list in key order without repeats, unless it already is. */
static void
keylist_sort(KeyList *k)
{
	int		   *idx;
	int		   *off;
	int		   *len;
	int			m = 0;

	if (k->sorted)
		return;
	idx = palloc(sizeof(int) * Max(k->n, 1));
	for (int i = 0; i < k->n; i++)
		idx[i] = i;
	qsort_arg(idx, k->n, sizeof(int), keylist_index_cmp, k);
	off = palloc(sizeof(int) * Max(k->n, 1));
	len = palloc(sizeof(int) * Max(k->n, 1));
	for (int i = 0; i < k->n; i++)
	{
		if (m > 0 && adjkey_cmp_bytes(k->bytes.data + off[m - 1], len[m - 1],
									  k->bytes.data + k->off[idx[i]], k->len[idx[i]]) == 0)
			continue;
		off[m] = k->off[idx[i]];
		len[m] = k->len[idx[i]];
		m++;
	}
	pfree(idx);
	pfree(k->off);
	pfree(k->len);
	k->off = off;
	k->len = len;
	k->n = m;
	k->sorted = true;
}

/* The neighbors of one node, collected into a list (one direction). */
typedef struct CollectState
{
	const EdgeConvention *conv;
	bool		reverse;
	KeyList    *list;
	char	   *buf;			/* graph_edge_neighbor's scratch */
} CollectState;

static bool
collect_edge(void *arg, const GraphEdge *edge)
{
	CollectState *st = (CollectState *) arg;
	const char *nb;
	int			nblen;

	if (graph_edge_neighbor(st->conv, st->reverse, edge, &nb, &nblen, &st->buf))
		(void) keylist_collect(st->list, nb, nblen, 0, st->reverse, edge);
	return true;
}

/*
 * The second node's neighbors merged, as they arrive, with the first
 * node's sorted list: the matches go to the result at once, and the
 * second list is never built.  A node's edges in one direction come in
 * the order of their keys (sort keys forward, sources in reverse), and a
 * neighbor's key is its edge's key with the same prefix removed or
 * replaced, so the neighbors come in key order too.
 */
typedef struct MergeState
{
	const EdgeConvention *conv;
	bool		reverse;
	const KeyList *a;
	int			i;				/* a's first key not below the last neighbor */
	ReturnSetInfo *rsinfo;
	char	   *buf;			/* graph_edge_neighbor's scratch */
	struct varlena *prev;		/* the last neighbor, as a key */
	bool		has_prev;
	struct varlena *out;		/* a result row's key */
} MergeState;

static void
emit_common(ReturnSetInfo *rsinfo, struct varlena *out, const char *key, int len)
{
	Datum		v;
	bool		isnull = false;

	SET_VARSIZE(out, VARHDRSZ + len);
	memcpy(VARDATA(out), key, len);
	v = PointerGetDatum(out);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
}

static bool
merge_edge(void *arg, const GraphEdge *edge)
{
	MergeState *st = (MergeState *) arg;
	const KeyList *a = st->a;
	const char *nb;
	int			nblen;
	int			c = 1;

	if (!graph_edge_neighbor(st->conv, st->reverse, edge, &nb, &nblen, &st->buf))
		return true;
	if (st->has_prev)
	{
		int			p = adjkey_cmp_bytes(ADJKEY_DATA(st->prev), ADJKEY_LEN(st->prev), nb, nblen);

		if (p == 0)
			return true;		/* the same neighbor again */
		if (p > 0)
			elog(ERROR, "common_neighbors: the edges of a node were read out of key order");
	}
	SET_VARSIZE(st->prev, VARHDRSZ + nblen);
	memcpy(VARDATA(st->prev), nb, nblen);
	st->has_prev = true;
	while (st->i < a->n && (c = keylist_cmp(a, st->i, nb, nblen)) < 0)
		st->i++;
	if (st->i < a->n && c == 0)
	{
		emit_common(st->rsinfo, st->out, nb, nblen);
		st->i++;
	}
	return st->i < a->n;		/* nothing more can match past a's end */
}

/* Both lists built and sorted, then merged. */
static void
merge_lists(ReturnSetInfo *rsinfo, KeyList *of_a, KeyList *of_b, struct varlena *out)
{
	int			i = 0;
	int			j = 0;

	keylist_sort(of_a);
	keylist_sort(of_b);
	while (i < of_a->n && j < of_b->n)
	{
		int			c = keylist_cmp(of_a, i, of_b->bytes.data + of_b->off[j], of_b->len[j]);

		if (c < 0)
			i++;
		else if (c > 0)
			j++;
		else
		{
			emit_common(rsinfo, out, of_a->bytes.data + of_a->off[i], of_a->len[i]);
			i++;
			j++;
		}
	}
}

/* One node's neighbors in one direction, into a list. */
static void
collect_one(GraphReader *rd, const EdgeConvention *conv, bool reverse,
			struct varlena *node, KeyList *list)
{
	GraphScan	req;
	CollectState st = {conv, reverse, list, NULL};

	memset(&req, 0, sizeof(req));
	req.reverse = reverse;
	req.node = ADJKEY_DATA(node);
	req.nodelen = ADJKEY_LEN(node);
	req.conv = conv;
	(void) graph_reader_scan_one(rd, &req, collect_edge, &st);
}

/*
 * One node's neighbors read one at a time from a stream of its edges
 * (graph_stream_begin: the direct path).  The current neighbor's bytes are
 * the stream's (valid until its next edge: the two streams of a merge have
 * scans of their own), or, where rows may share an edge's keys and so name
 * a neighbor twice, a copy, to skip the repeats.
 */
typedef struct NeighborCursor
{
	GraphStream *stream;
	const EdgeConvention *conv;
	bool		reverse;
	bool		counted;		/* its distinct neighbors count against
								 * adjlist.max_visited, as a's list does */
	bool		dedup;			/* repeats possible: compare with a copy */
	int			maxsk;			/* graph_edge_max_sklen */
	int64		n;				/* distinct neighbors read */
	char	   *buf;			/* graph_edge_neighbor's scratch */
	char	   *copy;			/* dedup: the current neighbor */
	const char *key;			/* the current neighbor */
	int			len;
} NeighborCursor;

/*
 * The neighbor an edge names, as graph_edge_neighbor() does, without its
 * calls for the usual conventions (in-edges; out-edges whose neighbor is
 * the rest of the sort key): a merge of two hubs' edges does this for
 * thousands of edges.
 */
static inline bool
cursor_neighbor(NeighborCursor *c, const GraphEdge *edge, const char **nb, int *nblen)
{
	const EdgeConvention *conv = c->conv;

	if (c->reverse)
	{
		*nb = edge->pk;
		*nblen = edge->pklen;
		return true;
	}
	if (conv->sk_is_target || conv->tplen > 0)
		return graph_edge_neighbor(conv, false, edge, nb, nblen, &c->buf);
	if (edge->sklen <= conv->eplen || edge->sklen > c->maxsk)
		return false;			/* graph_row_is_edge */
	*nb = edge->sk + conv->eplen;
	*nblen = edge->sklen - conv->eplen;
	return true;
}

/* Move to the next distinct neighbor; false after the last. */
static bool
cursor_next(NeighborCursor *c)
{
	GraphEdge	edge;
	const char *nb;
	int			nblen;

	while (graph_stream_next(c->stream, &edge))
	{
		if (!cursor_neighbor(c, &edge, &nb, &nblen))
			continue;
		if (c->dedup && c->n > 0)
		{
			int			p = adjkey_cmp_bytes(c->copy, c->len, nb, nblen);

			if (p == 0)
				continue;		/* the same neighbor again */
			if (p > 0)
				elog(ERROR, "common_neighbors: the edges of a node were read out of key order");
		}
		if (c->counted && c->n >= adjlist_max_visited)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("graph search visited more than %d nodes", adjlist_max_visited),
					 errdetail("The call of common_neighbors() reached adjlist.max_visited."),
					 errhint("Raise adjlist.max_visited.")));
		if (c->dedup)
		{
			memcpy(c->copy, nb, nblen);
			nb = c->copy;
		}
		c->key = nb;
		c->len = nblen;
		c->n++;
		return true;
	}
	return false;
}

static void
cursor_init(NeighborCursor *c, GraphStream *stream, const EdgeConvention *conv,
			bool reverse, bool counted, bool dedup)
{
	memset(c, 0, sizeof(*c));
	c->stream = stream;
	c->conv = conv;
	c->reverse = reverse;
	c->counted = counted;
	c->dedup = dedup;
	c->maxsk = graph_edge_max_sklen(conv);
	if (dedup)
		c->copy = palloc(ADJKEY_MAX_BYTES);
}

/*
 * The common neighbors of two nodes in one direction by a merge of two
 * streams of their edges, read side by side in key order: no list of the
 * first node's neighbors is built, and each edge costs a comparison.  The
 * same rows and errors as collecting a's neighbors and merging b's (a's
 * neighbors counted against adjlist.max_visited: read to their end when
 * b's end first; b read no further than a's last), but a's neighbors take
 * no memory.  False, having read nothing, where a stream cannot read one
 * of the nodes (only the direct path streams): the caller reads them so.
 */
static bool
common_streamed(GraphTable *g, const GraphScan *ra, const GraphScan *rb,
				ReturnSetInfo *rsinfo, struct varlena *out)
{
	GraphStream *sa = graph_stream_begin(g, ra);
	GraphStream *sb = sa ? graph_stream_begin(g, rb) : NULL;
	NeighborCursor ca;
	NeighborCursor cb;
	bool		more_a;
	bool		more_b;

	if (sb == NULL)
	{
		if (sa != NULL)
			graph_stream_end(sa);
		return false;
	}
	/* (a row per edge: a node's edges name distinct neighbors, in key order) */
	cursor_init(&ca, sa, ra->conv, ra->reverse, true, g->key_shared);
	cursor_init(&cb, sb, rb->conv, rb->reverse, false, g->key_shared);
	more_a = cursor_next(&ca);
	more_b = more_a && cursor_next(&cb);
	while (more_a && more_b)
	{
		int			c = adjkey_cmp_bytes(ca.key, ca.len, cb.key, cb.len);

		if (c == 0)
			emit_common(rsinfo, out, ca.key, ca.len);
		if (c <= 0)
			more_a = cursor_next(&ca);
		if (c >= 0 && more_a)
			more_b = cursor_next(&cb);
	}
	while (more_a)
		more_a = cursor_next(&ca);	/* (counted: see above) */
	graph_stream_end(sb);
	graph_stream_end(sa);
	return true;
}

/*
 * common_neighbors(tbl, a, b, edge_prefix, direction, target_prefix,
 *					sk_is_target, edge_filter) RETURNS SETOF adjkey, in key
 * order; the filter applies to the edges of both nodes.  In one direction
 * the first node's neighbors are collected and the second's merged with
 * them as the scan reads them (a node's edges come in key order); with
 * "both", each node's two lists are concatenated, sorted and merged.
 */
Datum
adjlist_common_neighbors(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EdgeConvention conv;
	Direction	dir;
	GraphTable *g;
	GraphReader *rd;
	struct varlena *a;
	struct varlena *b;
	struct varlena *out;
	KeyList		of_a;
	KeyList		of_b;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	for (int arg = 0; arg < 7; arg++)
		if (PG_ARGISNULL(arg))
			return (Datum) 0;
	a = PG_GETARG_ADJKEY_PP(1);
	b = PG_GETARG_ADJKEY_PP(2);
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(3), PG_GETARG_TEXT_PP(5),
							   PG_GETARG_BOOL(6));
	conv.filter = graph_filter_arg(fcinfo, 7);
	dir = graph_parse_direction(PG_GETARG_TEXT_PP(4), true);

	/*
	 * What graph_open() does, but without its SPI connection: the streams
	 * of the usual case read no SQL, and connecting was a hundredth of a
	 * median node's call.  The other ways of reading connect below.
	 */
	g = graph_table_get(PG_GETARG_OID(0), (dir & DIR_IN) != 0);
	graph_check_select(g, false);
	if (conv.filter != NULL)
		graph_check_data(g, "common_neighbors() with an edge_filter");
	out = palloc(VARHDRSZ + ADJKEY_MAX_BYTES);
	if (dir != DIR_BOTH)
	{
		GraphScan	ra;
		GraphScan	rb;

		memset(&ra, 0, sizeof(ra));
		ra.reverse = dir == DIR_IN;
		ra.node = ADJKEY_DATA(a);
		ra.nodelen = ADJKEY_LEN(a);
		ra.conv = &conv;
		rb = ra;
		rb.node = ADJKEY_DATA(b);
		rb.nodelen = ADJKEY_LEN(b);
		if (common_streamed(g, &ra, &rb, rsinfo, out))
			return (Datum) 0;
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	rd = graph_reader_begin(g);

	keylist_init(&of_a, CurrentMemoryContext);
	if (dir != DIR_BOTH)
	{
		bool		reverse = dir == DIR_IN;
		MergeState	st;

		collect_one(rd, &conv, reverse, a, &of_a);
		keylist_sort(&of_a);
		memset(&st, 0, sizeof(st));
		st.conv = &conv;
		st.reverse = reverse;
		st.a = &of_a;
		st.rsinfo = rsinfo;
		st.prev = palloc(VARHDRSZ + ADJKEY_MAX_BYTES);
		st.out = out;
		if (of_a.n > 0)
		{
			GraphScan	req;

			memset(&req, 0, sizeof(req));
			req.reverse = reverse;
			req.node = ADJKEY_DATA(b);
			req.nodelen = ADJKEY_LEN(b);
			req.conv = &conv;
			(void) graph_reader_scan_one(rd, &req, merge_edge, &st);
		}
	}
	else
	{
		keylist_init(&of_b, CurrentMemoryContext);
		graph_expand(rd, &conv, dir, ADJKEY_DATA(a), ADJKEY_LEN(a), keylist_collect, &of_a);
		if (of_a.n > 0)
			graph_expand(rd, &conv, dir, ADJKEY_DATA(b), ADJKEY_LEN(b), keylist_collect, &of_b);
		merge_lists(rsinfo, &of_a, &of_b, out);
	}
	graph_reader_end(rd);
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------------
 * Ranked walks
 * ----------------------------------------------------------------------
 */

typedef struct WalkState
{
	NodeSet    *from;			/* the level being expanded */
	NodeSet    *to;				/* the next level */
	NodeSet    *exclude;		/* never scored, when set */
	const NodeKey *last;		/* the last neighbor's key (a set's copy), or
								 * NULL */
	GNode	   *last_node;		/* its node in to; NULL: excluded */
} WalkState;

/*
 * A walk reaches a neighbor: its score grows by that of the node it was
 * reached from.  The same neighbor often comes several times in a row (a
 * level read by one pass over the inverted index's range of the edge
 * prefix hands over each target's walks together): it is then found by
 * one comparison with the last one instead of a probe of each set.
 */
static bool
walk_visit(void *arg, const char *nb, int nblen, int origin, bool reverse,
		   const GraphEdge *edge)
{
	WalkState  *st = (WalkState *) arg;
	bool		isnew;
	GNode	   *node;

	if (st->last != NULL && st->last->len == nblen && memcmp(st->last->data, nb, nblen) == 0)
		node = st->last_node;
	else
	{
		uint32		hash = nodeset_hash(nb, nblen); /* one hash for both sets */
		GNode	   *excluded = NULL;

		if (st->exclude != NULL)
			excluded = nodeset_find_hashed(st->exclude, nb, nblen, hash);
		node = excluded ? NULL : nodeset_add_with_hash(st->to, nb, nblen, hash, &isnew);
		st->last = excluded ? &excluded->key : &node->key;
		st->last_node = node;
	}
	if (node == NULL)
		return true;
	if (pg_add_s64_overflow(node->score, st->from->byid[origin]->score, &node->score))
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("ranked walk counted more walks than a bigint holds")));
	return true;
}

static inline int
node_cmp_score(const void *a, const void *b)
{
	const GNode *x = *(GNode *const *) a;
	const GNode *y = *(GNode *const *) b;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return adjkey_cmp_bytes(x->key.data, x->key.len, y->key.data, y->key.len);
}

/*
 * sort_nodes_by_score(nodes, n): nodes best first, ties by key; the
 * comparison inline (lib/sort_template.h) rather than called through
 * qsort()'s pointer for each of the n log n comparisons of a walk's
 * thousands of nodes.
 */
typedef GNode *GNodePtr;

#define ST_SORT sort_nodes_by_score
#define ST_ELEMENT_TYPE GNodePtr
#define ST_COMPARE(a, b) node_cmp_score((a), (b))
#define ST_SCOPE static
#define ST_DEFINE
#include "lib/sort_template.h"

/*
 * The hops of a walk (arguments 2 and 3: edge prefixes and directions, two
 * or three of each) as edge conventions and directions; returns the number
 * of hops, and the union of the directions in *all.
 */
static int
walk_hops_arg(FunctionCallInfo fcinfo, Jsonb *filter, EdgeConvention **convs,
			  Direction **dirs, Direction *all)
{
	Datum	   *pdat;
	Datum	   *ddat;
	bool	   *pnull;
	bool	   *dnull;
	int			nhops;
	int			ndirs;

	deconstruct_array(PG_GETARG_ARRAYTYPE_P(2), TEXTOID, -1, false, TYPALIGN_INT,
					  &pdat, &pnull, &nhops);
	deconstruct_array(PG_GETARG_ARRAYTYPE_P(3), TEXTOID, -1, false, TYPALIGN_INT,
					  &ddat, &dnull, &ndirs);
	if (nhops < 2 || nhops > 3 || ndirs != nhops)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a ranked walk takes two or three hops, with one edge prefix and one direction each")));
	*convs = palloc(sizeof(EdgeConvention) * nhops);
	*dirs = palloc(sizeof(Direction) * nhops);
	*all = 0;
	for (int i = 0; i < nhops; i++)
	{
		if (pnull[i] || dnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("edge prefixes and directions of a walk must not be null")));
		graph_convention_from_args(&(*convs)[i], DatumGetTextPP(pdat[i]), PG_GETARG_TEXT_PP(6),
								   PG_GETARG_BOOL(7));
		(*convs)[i].filter = filter;
		(*dirs)[i] = graph_parse_direction(DatumGetTextPP(ddat[i]), true);
		*all |= (*dirs)[i];
	}
	return nhops;
}

/* binaryheap keeps the largest first: the worst of the best kept so far */
static int
node_heap_cmp(Datum a, Datum b, void *arg)
{
	GNode	   *x = (GNode *) DatumGetPointer(a);
	GNode	   *y = (GNode *) DatumGetPointer(b);

	return node_cmp_score(&x, &y);
}

/*
 * The best limit nodes of last, unsorted, into out (which has room for
 * them): one pass keeping them in a heap whose head is the worst kept, so
 * a call with the default limit of 10 does not sort every node reached.
 */
static int
walk_best(NodeSet *last, int limit, GNode **out)
{
	binaryheap *heap = binaryheap_allocate(limit, node_heap_cmp, NULL);
	int			n = 0;

	for (int32 id = 0; id < last->n; id++)
	{
		GNode	   *node = last->byid[id];
		GNode	   *worst;

		if (heap->bh_size < limit)
		{
			binaryheap_add(heap, PointerGetDatum(node));
			continue;
		}
		worst = (GNode *) DatumGetPointer(binaryheap_first(heap));
		if (node_cmp_score(&node, &worst) < 0)
			binaryheap_replace_first(heap, PointerGetDatum(node));
	}
	while (!binaryheap_empty(heap))
		out[n++] = (GNode *) DatumGetPointer(binaryheap_remove_first(heap));
	binaryheap_free(heap);
	return n;
}

/* The nodes of the last level, best score first (ties by key), up to limit. */
static void
walk_emit(ReturnSetInfo *rsinfo, NodeSet *last, int64 limit)
{
	GNode	  **sorted = palloc(sizeof(GNode *) * Max(last->n, 1));
	int			n;
	MemoryContext rowcxt;

	if (limit > 0 && limit < last->n)
		n = walk_best(last, (int) limit, sorted);
	else
	{
		memcpy(sorted, last->byid, sizeof(GNode *) * last->n);
		n = last->n;
	}
	sort_nodes_by_score(sorted, n);
	/* (each row's key freed once stored: the output is not the walk's memory) */
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "walk row", ALLOCSET_SMALL_SIZES);
	for (int32 i = 0; i < n; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		MemoryContext old = MemoryContextSwitchTo(rowcxt);

		values[0] = PointerGetDatum(adjkey_from_utf8(sorted[i]->key.data, sorted[i]->key.len));
		values[1] = Int64GetDatum(sorted[i]->score);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		MemoryContextSwitchTo(old);
		MemoryContextReset(rowcxt);
	}
	MemoryContextDelete(rowcxt);
}

/*
 * walk_ranked(tbl, start, edge_prefixes text[], directions text[],
 *			   exclude_first_hop boolean, lim bigint, target_prefix text,
 *			   sk_is_target boolean, edge_filter jsonb)
 *	RETURNS TABLE (node adjkey, score bigint)
 *
 * Walks two or three hops; the score of a node reached at the last hop is
 * the number of walks that reach it.  The start is never in the result;
 * with exclude_first_hop neither are the nodes of the first hop (existing
 * friends, items already liked).  Ties are broken by key.  An edge filter
 * applies to every hop.
 */
Datum
adjlist_walk_ranked(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	GraphTable *g;
	GraphReader *rd;
	struct varlena *start;
	int			nhops;
	EdgeConvention *convs;
	Jsonb	   *filter;
	Direction  *dirs;
	Direction	all;
	bool		exclude_first;
	int64		limit;
	NodeSet    *levels;
	NodeSet		excluded;
	bool		isnew;
	MemoryContext callcxt;

	InitMaterializedSRF(fcinfo, 0);
	for (int i = 0; i < 8; i++)
		if (PG_ARGISNULL(i) && i != 5)
			return (Datum) 0;
	start = PG_GETARG_ADJKEY_PP(1);
	filter = graph_filter_arg(fcinfo, 8);
	exclude_first = PG_GETARG_BOOL(4);
	limit = graph_limit_arg(fcinfo, 5);

	nhops = walk_hops_arg(fcinfo, filter, &convs, &dirs, &all);

	g = graph_open(PG_GETARG_OID(0), all, false);
	if (filter != NULL)
		graph_check_data(g, "walk_ranked() with an edge_filter");
	rd = graph_reader_begin(g);
	graph_reader_any_order(rd); /* scores are sums; the result is sorted */
	callcxt = CurrentMemoryContext;

	/* levels[0] = {start}; levels[i] = the nodes after hop i, scored */
	levels = palloc(sizeof(NodeSet) * (nhops + 1));
	nodeset_init(&levels[0], callcxt, "walk_ranked");
	nodeset_add(&levels[0], ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew)->score = 1;
	nodeset_init(&excluded, callcxt, "walk_ranked");
	nodeset_add(&excluded, ADJKEY_DATA(start), ADJKEY_LEN(start), &isnew);

	for (int hop = 0; hop < nhops; hop++)
	{
		WalkState	st;

		nodeset_init(&levels[hop + 1], callcxt, "walk_ranked");
		st.from = &levels[hop];
		st.to = &levels[hop + 1];
		st.exclude = (hop == nhops - 1) ? &excluded : NULL;
		st.last = NULL;
		st.last_node = NULL;
		graph_expand_level(rd, &convs[hop], dirs[hop], levels[hop].byid, levels[hop].n,
						   walk_visit, &st);
		if (hop == 0 && exclude_first)
		{
			for (int32 id = 0; id < levels[1].n; id++)
				nodeset_add(&excluded, levels[1].byid[id]->key.data,
							levels[1].byid[id]->key.len, &isnew);
		}
	}

	walk_emit(rsinfo, &levels[nhops], limit);
	graph_reader_end(rd);
	SPI_finish();
	return (Datum) 0;
}
