/*-------------------------------------------------------------------------
 *
 * graph_reader.c
 *	  The one primitive every graph function is built on: read the edges of
 *	  a node (or of a whole BFS level), forward from the base table or
 *	  backward through its inverted index, in key order, with a prefix, a
 *	  start key and a limit.
 *
 * It chooses, per call and direction, between two paths that give the
 * same rows: a direct btree scan (graph_scan_direct.c) for a plain local
 * table read without row-level security, and SQL with saved plans
 * (graph_scan_spi.c) for anything else: row-level security active for the
 * caller, partitioned, foreign or Citus tables, tables without a primary
 * key.  A table whose rows are elsewhere is never read through the direct
 * path (graph_meta.c decides what is local).
 *
 * Edge conventions (how sort keys name target nodes: 'FOLLOWS#' +
 * 'USER#bob', 'FRIEND#Bob' with target prefix 'USER#', or the sort key
 * itself) are applied here.  A limit counts edges only: a row the scan
 * meets that names no neighbor (its sort key is the bare edge prefix, or
 * the target would be too long: graph_row_is_edge) is handed over
 * uncounted, and the callers skip it, so a page of lim rows has lim edges.
 * A start key resumes after one sort key (in reverse, one source), which
 * cannot tell apart the rows of a table whose key has more columns than
 * (pk, sk): graph_reader_scan() refuses it there.
 *
 * Edge filters (edge_filter: only edges whose data @> the filter) are
 * applied by the scans, before limits count an edge: the direct path reads
 * the heap tuple (of the base table, or of an inverted index that projects
 * data) only when a filter or the data is asked for, and tests containment
 * with jsonb's own function; the SQL path adds "data @> $n" to its
 * statements.  In-edges through an index that does not project data are
 * exact too: the data is the base row's, found by its key (directly, one
 * probe of the primary key per edge; through SQL, the candidate sources
 * confirmed against the base table, as for row-level security).
 *
 * Memory.  A reader owns a scratch context for what one expansion
 * allocates (scan keys, bounds, rows), reset after each; it is the child
 * of the call's context, never process-global, so a graph function called
 * while another one runs (from a row-level security policy, say) has its
 * own.  The callers' node sets are charged against adjlist.max_memory by
 * graph_charge().
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rls.h"

#include "adjlist.h"
#include "graph.h"
#include "graph_scan.h"

int			adjlist_max_memory = -1;

struct GraphReader
{
	GraphTable *g;
	DirectReader *direct;
	MemoryContext cxt;			/* the reader's (the call's) context */
	MemoryContext scratch;		/* reset after each expansion; made at the
								 * first (reader_scratch): a stream or a
								 * one-node scan never needs it */
	bool		rls;
	bool		any_order;		/* a level's nodes may be read in key order */
	NodeSet    *known;			/* edges to its nodes may be left out, or NULL */
};

/* ----------------------------------------------------------------------
 * Conventions
 * ----------------------------------------------------------------------
 */

/*
 * Read the convention arguments.  An edge prefix that does not end in a
 * punctuation character is read with '#' appended: 'FOLLOWS' means
 * 'FOLLOWS#'.
 */
void
graph_convention_from_args(EdgeConvention *conv, text *edge_prefix,
						   text *target_prefix, bool sk_is_target)
{
	int			len;
	const char *p;

	p = adjkey_edge_prefix(edge_prefix, &len);
	conv->edge_prefix = p;
	conv->eplen = len;
	if (target_prefix != NULL)
		conv->target_prefix = adjkey_text_to_utf8(target_prefix, &conv->tplen);
	else
	{
		conv->target_prefix = "";
		conv->tplen = 0;
	}
	conv->sk_is_target = sk_is_target;
	conv->filter = NULL;
}

/*
 * The edge_filter argument: NULL when it is NULL, or when the function was
 * called through an older SQL definition without it (a library newer than
 * the extension's SQL objects, before ALTER EXTENSION UPDATE).
 */
Jsonb *
graph_filter_arg(FunctionCallInfo fcinfo, int argno)
{
	if (PG_NARGS() <= argno || PG_ARGISNULL(argno))
		return NULL;
	return PG_GETARG_JSONB_P(argno);
}

/*
 * A lim argument: 0 (no limit) when NULL; below 1 it is an error, as in
 * query() and as DynamoDB rejects a Limit below 1, in every function that
 * takes one.
 */
int64
graph_limit_arg(FunctionCallInfo fcinfo, int argno)
{
	int64		lim;

	if (PG_ARGISNULL(argno))
		return 0;
	lim = PG_GETARG_INT64(argno);
	if (lim <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("limit must be at least 1, not " INT64_FORMAT, lim),
				 errdetail("DynamoDB rejects a Limit below 1 (ValidationException).")));
	return lim;
}

/*
 * Is one of the first n arguments NULL?  The functions that were STRICT
 * before they took an edge_filter (which may be NULL) return NULL then, as
 * before.
 */
bool
graph_args_null(FunctionCallInfo fcinfo, int n)
{
	for (int i = 0; i < n; i++)
		if (PG_ARGISNULL(i))
			return true;
	return false;
}

/*
 * Does an edge's data contain the filter, as SQL's "data @> filter" says?
 * NULL data never does.  What the test allocates (a detoasted copy) goes
 * into scratch, which is reset.
 */
bool
graph_data_contains(Datum data, bool isnull, Jsonb *filter, MemoryContext scratch)
{
	MemoryContext old;
	bool		result;

	if (filter == NULL)
		return true;
	if (isnull)
		return false;
	old = MemoryContextSwitchTo(scratch);
	result = DatumGetBool(DirectFunctionCall2(jsonb_contains, data, PointerGetDatum(filter)));
	MemoryContextSwitchTo(old);
	MemoryContextReset(scratch);
	return result;
}

/*
 * The node at the far end of an edge.  *buf is scratch space the function
 * may (re)allocate.  Returns false when the row is not an edge of the
 * convention (graph_row_is_edge).
 */
bool
graph_edge_neighbor(const EdgeConvention *conv, bool reverse,
					const GraphEdge *edge, const char **out, int *outlen,
					char **buf)
{
	int			restlen;

	if (reverse)
	{
		*out = edge->pk;
		*outlen = edge->pklen;
		return true;
	}
	if (conv->sk_is_target)
	{
		*out = edge->sk;
		*outlen = edge->sklen;
		return true;
	}
	if (!graph_row_is_edge(conv, reverse, edge->sklen))
		return false;
	restlen = edge->sklen - conv->eplen;
	if (conv->tplen == 0)
	{
		*out = edge->sk + conv->eplen;
		*outlen = restlen;
		return true;
	}
	*buf = *buf ? repalloc(*buf, conv->tplen + restlen) : palloc(conv->tplen + restlen);
	memcpy(*buf, conv->target_prefix, conv->tplen);
	memcpy(*buf + conv->tplen, edge->sk + conv->eplen, restlen);
	*out = *buf;
	*outlen = conv->tplen + restlen;
	return true;
}

/*
 * The partition key to read for a scan: the node itself forward; in
 * reverse, the sort key an edge to the node has (edge prefix + node
 * without the target prefix).  NULL when no edge can point at the node.
 */
const char *
graph_scan_partition(const GraphScan *req, int *len)
{
	const EdgeConvention *conv = req->conv;
	char	   *buf;
	int			restlen;

	if (!req->reverse || conv->sk_is_target)
	{
		*len = req->nodelen;
		return req->node;
	}
	if (req->nodelen < conv->tplen ||
		memcmp(req->node, conv->target_prefix, conv->tplen) != 0)
		return NULL;
	restlen = req->nodelen - conv->tplen;
	if (restlen == 0 || conv->eplen + restlen > ADJKEY_MAX_BYTES)
		return NULL;
	buf = palloc(conv->eplen + restlen);
	memcpy(buf, conv->edge_prefix, conv->eplen);
	memcpy(buf + conv->eplen, req->node + conv->tplen, restlen);
	*len = conv->eplen + restlen;
	return buf;
}

/* ----------------------------------------------------------------------
 * Readers
 * ----------------------------------------------------------------------
 */

/* The reader's scratch context, made at its first use, in the reader's. */
static MemoryContext
reader_scratch(GraphReader *r)
{
	if (r->scratch == NULL)
		r->scratch = AllocSetContextCreate(r->cxt, "adjlist expansion",
										   ALLOCSET_DEFAULT_SIZES);
	return r->scratch;
}

GraphReader *
graph_reader_begin(GraphTable *g)
{
	GraphReader *r = palloc0(sizeof(GraphReader));

	r->g = g;
	r->cxt = CurrentMemoryContext;
	r->direct = direct_reader_create(g, CurrentMemoryContext);
	r->rls = (check_enable_rls(g->baserel, InvalidOid, false) == RLS_ENABLED);
	return r;
}

/*
 * The caller's results do not depend on the order in which a level's
 * nodes hand over their edges (a count, scores summed over walks): the
 * direct path may then read a big level in key order, by one pass over
 * the index instead of a descent per node (scan_level_pass), or its
 * out-edges of a rare edge prefix by one pass over the prefix's range of
 * the inverted index, the nodes' edges interleaved (direct_scan_prefix).
 * Each node's edges still come in key order, with its index in the level.
 */
void
graph_reader_any_order(GraphReader *r)
{
	r->any_order = true;
}

/*
 * The caller's callbacks do nothing with an edge to a node of set (as it
 * is when the edge is read), nor with a second edge to one node in one
 * level (a BFS that only counts: the first edge to a node adds it, any
 * later one finds it there).  A scan that reads a level's edges grouped by
 * their target (direct_scan_prefix) may then leave those edges out, at one
 * probe of set per target instead of a callback per edge.  Only with
 * graph_reader_any_order(): a scan of a level in its order hands over
 * every edge.
 */
void
graph_reader_skip_known(GraphReader *r, NodeSet *set)
{
	Assert(r->any_order);
	r->known = set;
}

void
graph_reader_end(GraphReader *r)
{
	direct_reader_close(r->direct);
	if (r->scratch != NULL)
		MemoryContextDelete(r->scratch);
}

/*
 * The direct path serves a scan when the table it reads is a plain local
 * one, no row-level security applies and the table has no expiry column
 * (set_ttl: its SQL skips the expired items, on the base table and on the
 * index, which projects the column); in-edges whose data must come
 * from the base row also need the base table's btree on exactly (pk, sk),
 * which finds the one row of an edge.
 */
static bool
use_direct(GraphReader *r, const GraphScan *req)
{
	GraphTable *g = r->g;

	if (r->rls || g->ttl != NULL)
		return false;			/* expired items are skipped through SQL */
	if (!req->reverse)
		return g->direct;
	if ((req->need_data || req->conv->filter != NULL) && g->inv_data == 0)
		return g->inv_direct && g->direct && g->base_key_is_edge;
	return g->inv_direct;
}

/*
 * Read the edges of one node.  Returns the number of edges handed to the
 * callback.  The caller is connected to SPI and has checked privileges
 * with graph_check_select().
 */
int64
graph_reader_scan(GraphReader *r, const GraphScan *req, GraphEdgeCallback cb, void *arg)
{
	int			partlen;
	const char *part;

	/*
	 * A start key resumes after a sort key (in reverse, a source): rows that
	 * share it, which a key with more columns than (pk, sk) allows, would be
	 * skipped.
	 */
	if (req->after != NULL && r->g->key_shared)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s of \"%s\" cannot be paged with a start key",
						req->reverse ? "in-edges" : "out-edges", get_rel_name(r->g->baserel)),
				 errdetail("Its primary key has columns after the partition and sort keys, so rows may share an edge's keys, and a start key of those two would skip them."),
				 errhint("Read the node's edges without a start key, or page with query(), whose keys name every key column.")));
	part = graph_scan_partition(req, &partlen);

	if (part == NULL)
		return 0;
	if (use_direct(r, req))
		return direct_scan(r->direct, req, part, partlen, cb, arg);
	return spi_scan(r->g, req, part, partlen, r->rls, cb, arg);
}

/*
 * One node's edges read one edge at a time (graph_neighbor_scan.c), where
 * the direct path reads them: NULL where only graph_scan() can.  The
 * stream reads with a copy of the table's metadata, which an invalidation
 * between two edges may free; its relations stay open until
 * graph_stream_end().  Allocates in the current context, which must
 * outlive the stream.
 */
struct GraphStream
{
	GraphReader *r;
	DirectStream *ds;
};

GraphStream *
graph_stream_begin(GraphTable *g, const GraphScan *req)
{
	GraphTable *copy = palloc(sizeof(GraphTable));
	GraphReader *r;
	GraphStream *s;
	const char *part;
	int			partlen;

	/* (a start key on a table whose rows may share it: graph_reader_scan refuses) */
	if (req->after != NULL && g->key_shared)
		return NULL;
	*copy = *g;
	r = graph_reader_begin(copy);
	part = graph_scan_partition(req, &partlen);
	if (part == NULL || !use_direct(r, req))
	{
		graph_reader_end(r);
		return NULL;
	}
	s = palloc(sizeof(GraphStream));
	s->r = r;
	s->ds = direct_stream_begin(r->direct, req, part, partlen);
	if (s->ds == NULL)
	{
		graph_reader_end(r);
		return NULL;
	}
	return s;
}

bool
graph_stream_next(GraphStream *s, GraphEdge *edge)
{
	return direct_stream_next(s->ds, edge);
}

void
graph_stream_end(GraphStream *s)
{
	direct_stream_end(s->ds);
	graph_reader_end(s->r);
}

/*
 * Read the edges of one node, for a search that expands one node at a time
 * (weighted paths): what the scan allocates is freed before returning, so
 * the callback must keep what it needs in memory of its own.
 */
int64
graph_reader_scan_one(GraphReader *r, const GraphScan *req, GraphEdgeCallback cb, void *arg)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(reader_scratch(r));
	int64		n;

	CHECK_FOR_INTERRUPTS();
	n = graph_reader_scan(r, req, cb, arg);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(r->scratch);
	return n;
}

/* Edges of a level read through SQL: origins mapped back to the nodes. */
typedef struct LevelMap
{
	GraphEdgeCallback cb;
	void	   *arg;
	int		   *map;
} LevelMap;

static bool
level_map_cb(void *arg, const GraphEdge *edge)
{
	LevelMap   *l = (LevelMap *) arg;
	GraphEdge	e = *edge;

	e.origin = l->map[edge->origin];
	return l->cb(l->arg, &e);
}

/* Edges of the nodes of a level: the index of its node in edge->origin. */
typedef struct OriginCb
{
	GraphEdgeCallback cb;
	void	   *arg;
	int			origin;
	bool		stopped;		/* the callback asked to stop */
} OriginCb;

static bool
with_origin(void *arg, const GraphEdge *edge)
{
	OriginCb   *o = (OriginCb *) arg;
	GraphEdge	e = *edge;

	e.origin = o->origin;
	if (!o->cb(o->arg, &e))
		o->stopped = true;
	return !o->stopped;
}

/* the smallest level whose descents are sorted (scan_level_sorted) */
#define LEVEL_SORT_MIN 64

typedef struct LevelPart
{
	const char *part;
	int			len;
	int			origin;
} LevelPart;

static int
level_part_cmp(const void *a, const void *b)
{
	const LevelPart *x = (const LevelPart *) a;
	const LevelPart *y = (const LevelPart *) b;

	return adjkey_cmp_bytes(x->part, x->len, y->part, y->len);
}

/*
 * The partitions of a level's nodes in key order, with the index of each
 * one's node; a node no edge can point at has none.  In the scratch
 * context.
 */
static LevelPart *
level_parts_sorted(const GraphScan *tmpl, const char **nodes, const int *lens, int n, int *m)
{
	LevelPart  *lp = palloc(sizeof(LevelPart) * Max(n, 1));

	*m = 0;
	for (int i = 0; i < n; i++)
	{
		GraphScan	req = *tmpl;

		req.node = nodes[i];
		req.nodelen = lens[i];
		lp[*m].part = graph_scan_partition(&req, &lp[*m].len);
		lp[*m].origin = i;
		if (lp[*m].part != NULL)
			(*m)++;
	}
	qsort(lp, *m, sizeof(LevelPart), level_part_cmp);
	return lp;
}

/*
 * A big level of a caller that allows any order, on the direct path: the
 * nodes' partitions sorted, read by one pass over the index instead of a
 * descent per node (direct_scan_level).
 */
static void
scan_level_pass(GraphReader *r, const GraphScan *tmpl, const char **nodes, const int *lens,
				int n, GraphEdgeCallback cb, void *arg)
{
	int			m;
	LevelPart  *lp = level_parts_sorted(tmpl, nodes, lens, n, &m);
	const char **parts = palloc(sizeof(char *) * Max(m, 1));
	int		   *plens = palloc(sizeof(int) * Max(m, 1));
	int		   *origins = palloc(sizeof(int) * Max(m, 1));

	for (int i = 0; i < m; i++)
	{
		/* a level's nodes are distinct, and so are their partitions */
		Assert(i == 0 || level_part_cmp(&lp[i - 1], &lp[i]) < 0);
		parts[i] = lp[i].part;
		plens[i] = lp[i].len;
		origins[i] = lp[i].origin;
	}
	(void) direct_scan_level(r->direct, tmpl, parts, plens, origins, m, cb, arg);
}

/*
 * A level of a caller that allows any order, too small for one pass: a
 * descent per node, in the key order of their partitions, so that
 * consecutive descents go through the same or nearby pages (in the CPU's
 * caches) instead of jumping about an index bigger than the caches.
 */
/*
 * The descents after which a level of a BFS that skips the edges to known
 * targets (graph_reader_skip_known) may read the rest of its nodes by the
 * prefix pass (direct_scan_prefix): whether the pass costs less depends on
 * the level's edges per node, which its first LEVEL_SAMPLE descents tell
 * (in key order, unrelated to degree).
 */
#define LEVEL_SAMPLE 256

/* The rest of a sorted level, lp[from..m), by the prefix pass; false if not read. */
static bool
scan_rest_by_prefix(GraphReader *r, const GraphScan *tmpl, const char **nodes, const int *lens,
					const LevelPart *lp, int from, int m, GraphEdgeCallback cb, void *arg)
{
	int			rest = m - from;
	const char **rnodes = palloc(sizeof(char *) * rest);
	int		   *rlens = palloc(sizeof(int) * rest);
	int		   *map = palloc(sizeof(int) * rest);
	LevelMap	lm = {cb, arg, map};

	for (int i = 0; i < rest; i++)
	{
		map[i] = lp[from + i].origin;
		rnodes[i] = nodes[map[i]];
		rlens[i] = lens[map[i]];
	}
	return direct_scan_prefix(r->direct, tmpl, rnodes, rlens, rest, r->known,
							  level_map_cb, &lm) >= 0;
}

static void
scan_level_sorted(GraphReader *r, const GraphScan *tmpl, const char **nodes, const int *lens,
				  int n, GraphEdgeCallback cb, void *arg)
{
	int			m;
	LevelPart  *lp = level_parts_sorted(tmpl, nodes, lens, n, &m);
	int64		edges = 0;

	for (int i = 0; i < m; i++)
	{
		GraphScan	req = *tmpl;
		OriginCb	o = {cb, arg, lp[i].origin, false};

		if (i == LEVEL_SAMPLE && r->known != NULL &&
			direct_prefix_pass(r->direct, tmpl, m - i, (double) edges / i) &&
			scan_rest_by_prefix(r, tmpl, nodes, lens, lp, i, m, cb, arg))
			break;
		CHECK_FOR_INTERRUPTS();
		req.node = nodes[lp[i].origin];
		req.nodelen = lens[lp[i].origin];
		edges += direct_scan(r->direct, &req, lp[i].part, lp[i].len, with_origin, &o);
		if (o.stopped)
			break;
	}
}

/*
 * Read the edges of nodes[0..n) in one direction, handing each to cb with
 * edge->origin the index of its node.  Through SQL a level costs one
 * statement per chunk of nodes; directly, one index descent per node, or
 * for a big level of a caller that allows any order one pass over the index.
 * What the scans allocate is freed before returning.
 */
void
graph_reader_scan_level(GraphReader *r, const GraphScan *tmpl, const char **nodes,
						const int *lens, int n, GraphEdgeCallback cb, void *arg)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(reader_scratch(r));

	if (use_direct(r, tmpl) && r->any_order && direct_prefix_pass(r->direct, tmpl, n, -1) &&
		direct_scan_prefix(r->direct, tmpl, nodes, lens, n, r->known, cb, arg) >= 0)
		;						/* the prefix's range of the inverted index */
	else if (use_direct(r, tmpl) && r->any_order && direct_level_pass(r->direct, tmpl, n))
		scan_level_pass(r, tmpl, nodes, lens, n, cb, arg);
	else if (use_direct(r, tmpl) && r->any_order && n >= LEVEL_SORT_MIN)
		scan_level_sorted(r, tmpl, nodes, lens, n, cb, arg);
	else if (use_direct(r, tmpl))
	{
		for (int i = 0; i < n; i++)
		{
			GraphScan	req = *tmpl;
			OriginCb	o = {cb, arg, i, false};

			CHECK_FOR_INTERRUPTS();
			req.node = nodes[i];
			req.nodelen = lens[i];
			(void) graph_reader_scan(r, &req, with_origin, &o);
			if (o.stopped)
				break;
		}
	}
	else
	{
		const char **parts = palloc(sizeof(char *) * Max(n, 1));
		int		   *plens = palloc(sizeof(int) * Max(n, 1));
		int		   *map = palloc(sizeof(int) * Max(n, 1));
		int			m = 0;

		/* the partitions to read; a node no edge can point at has none */
		for (int i = 0; i < n; i++)
		{
			GraphScan	req = *tmpl;

			req.node = nodes[i];
			req.nodelen = lens[i];
			parts[m] = graph_scan_partition(&req, &plens[m]);
			if (parts[m] != NULL)
				map[m++] = i;
		}
		if (m > 0)
		{
			LevelMap	lm = {cb, arg, map};

			spi_scan_level(r->g, tmpl, parts, plens, m, r->rls, level_map_cb, &lm);
		}
	}
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(r->scratch);
}

/* One node, read on its own, for the one-hop functions. */
int64
graph_scan(GraphTable *g, const GraphScan *req, GraphEdgeCallback cb, void *arg)
{
	GraphReader *r = graph_reader_begin(g);
	int64		n = graph_reader_scan(r, req, cb, arg);

	graph_reader_end(r);
	return n;
}

/*
 * Charge what a graph call holds (its node sets, in cxt) against
 * adjlist.max_memory: an error with SQLSTATE 54000 past it, never an
 * out-of-memory.
 */
void
graph_charge(MemoryContext cxt, const char *what)
{
	Size		used = MemoryContextMemAllocated(cxt, true);
	int64		limit_kb = adjlist_max_memory >= 0 ? adjlist_max_memory : maintenance_work_mem;

	if ((int64) (used / 1024) > limit_kb)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("graph search needs more than " INT64_FORMAT " kB of memory", limit_kb),
				 errdetail("The call of %s() reached adjlist.max_memory.", what),
				 errhint("Raise adjlist.max_memory (it defaults to maintenance_work_mem), or lower max_depth or the limit.")));
}
