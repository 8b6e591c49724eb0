/*-------------------------------------------------------------------------
 *
 * graph_estimate.c
 *	  How many rows a graph function returns, for the planner: the support
 *	  function (SupportRequestRows) of neighbors(), reverse_neighbors()
 *	  (and their keys-only twins), traverse(), common_neighbors(),
 *	  walk_ranked() (and the ranked walks written over it), query() and
 *	  batch_get().  It passes SupportRequestSimplify to graph_columns.c.
 *
 * Estimates come from the statistics ANALYZE keeps of the base table, as a
 * WHERE clause's would: the rows per node are the table's rows over the
 * distinct values of its partition key (of its sort key, for in-edges),
 * times the fraction of sort keys that begin with the edge prefix (from
 * the most common values and the histogram of the sort key).  A traversal
 * grows by that degree per level, up to the nodes there are; a limit caps
 * every estimate.  An edge_filter (the last argument of each) scales every
 * hop by the share of the rows whose data contains it, tested on the most
 * common values and the histogram of the data column as PostgreSQL's
 * matchingsel() tests a WHERE data @> filter (NULL data never matches).
 * Arguments that are not constants (a parameter of a generic plan) leave
 * the default estimate of the function's ROWS.
 *
 * The statistics are read only for a caller who may read the table: an
 * estimate says something about the data.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "graph.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_graph_rows);

/*
 * When there are no statistics: edges per node, an edge prefix's share, and
 * the share of an edge filter (also of the rows the histogram stands for
 * when the data column has none: few distinct values).
 */
#define DEFAULT_DEGREE			10.0
#define DEFAULT_PREFIX_FRACTION 0.25
#define DEFAULT_FILTER_FRACTION 0.1

/* The constant value of argument n, or NULL when it is not one. */
static Const *
arg_const(PlannerInfo *root, List *args, int n)
{
	Node	   *arg;

	if (n >= list_length(args))
		return NULL;
	arg = (Node *) list_nth(args, n);
	if (root != NULL)
		arg = estimate_expression_value(root, arg);
	return IsA(arg, Const) ? (Const *) arg : NULL;
}

/* A limit argument: its value, or -1 when absent, NULL or unknown. */
static double
arg_limit(PlannerInfo *root, List *args, int n)
{
	Const	   *c = arg_const(root, args, n);

	if (c == NULL || c->constisnull)
		return -1;
	return (double) DatumGetInt64(c->constvalue);
}

static double
cap(double rows, double limit)
{
	if (limit >= 0 && rows > limit)
		rows = limit;
	return Max(rows, 1.0);
}

/* The rows of a table (and of its partitions). */
static double
table_rows(Oid relid)
{
	double		rows = 0;
	List	   *members = list_make1_oid(relid);
	ListCell   *lc;

	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
		members = find_all_inheritors(relid, NoLock, NULL);
	foreach(lc, members)
	{
		HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(tp))
			continue;
		if (((Form_pg_class) GETSTRUCT(tp))->relkind != RELKIND_PARTITIONED_TABLE &&
			((Form_pg_class) GETSTRUCT(tp))->reltuples > 0)
			rows += ((Form_pg_class) GETSTRUCT(tp))->reltuples;
		ReleaseSysCache(tp);
	}
	return rows;
}

/* The statistics row of a column (of the whole tree of a partitioned table). */
static HeapTuple
column_stats(Oid relid, AttrNumber att)
{
	return SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(att),
						   BoolGetDatum(get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE));
}

/* Distinct values of a column, or rows / DEFAULT_DEGREE without statistics. */
static double
column_ndistinct(Oid relid, AttrNumber att, double rows)
{
	HeapTuple	tp = column_stats(relid, att);
	double		n = 0;

	if (HeapTupleIsValid(tp))
	{
		float4		d = ((Form_pg_statistic) GETSTRUCT(tp))->stadistinct;

		n = d > 0 ? d : -d * rows;
		ReleaseSysCache(tp);
	}
	if (n < 1)
		n = rows / DEFAULT_DEGREE;
	return Max(n, 1.0);
}

/* A predicate on a column's values, tested against its statistics. */
typedef bool (*ValueMatch) (Datum value, const void *arg);

/* What the statistics row of a column says about a predicate. */
typedef struct StatsMatch
{
	double		nullfrac;		/* share of NULLs */
	double		mcv_total;		/* share of the most common values */
	double		mcv_matching;	/* share of the most common values that match */
	int			hist_n;			/* histogram entries (0: no histogram) */
	int			hist_matching;	/* histogram entries that match */
} StatsMatch;

/*
 * Test match against the most common values and the histogram entries of
 * a statistics row.
 */
static void
stats_match(HeapTuple tp, ValueMatch match, const void *arg, StatsMatch *m)
{
	AttStatsSlot mcv;
	AttStatsSlot hist;

	memset(m, 0, sizeof(*m));
	m->nullfrac = ((Form_pg_statistic) GETSTRUCT(tp))->stanullfrac;
	if (get_attstatsslot(&mcv, tp, STATISTIC_KIND_MCV, InvalidOid,
						 ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
	{
		for (int i = 0; i < mcv.nvalues; i++)
		{
			m->mcv_total += mcv.numbers[i];
			if (match(mcv.values[i], arg))
				m->mcv_matching += mcv.numbers[i];
		}
		free_attstatsslot(&mcv);
	}
	if (get_attstatsslot(&hist, tp, STATISTIC_KIND_HISTOGRAM, InvalidOid,
						 ATTSTATSSLOT_VALUES))
	{
		m->hist_n = hist.nvalues;
		for (int i = 0; i < hist.nvalues; i++)
			if (match(hist.values[i], arg))
				m->hist_matching++;
		free_attstatsslot(&hist);
	}
}

typedef struct KeyPrefix
{
	const char *prefix;
	int			len;
} KeyPrefix;

static bool
key_has_prefix(Datum key, const void *arg)
{
	const KeyPrefix *p = arg;
	struct varlena *k = DatumGetAdjkeyPP(key);

	return ADJKEY_LEN(k) >= p->len && memcmp(ADJKEY_DATA(k), p->prefix, p->len) == 0;
}

static bool
jsonb_contains_filter(Datum value, const void *arg)
{
	return DatumGetBool(DirectFunctionCall2(jsonb_contains, value,
											*(const Datum *) arg));
}

/*
 * The fraction of a key column's values that begin with prefix: the
 * most common values that do, plus the share of the histogram's buckets
 * whose bounds do (at least half a bucket when the prefix falls inside
 * one), of the rest.
 */
static double
prefix_fraction(Oid relid, AttrNumber att, const char *prefix, int len)
{
	HeapTuple	tp;
	KeyPrefix	p = {prefix, len};
	StatsMatch	m;
	double		fraction;

	if (len == 0)
		return 1.0;
	tp = column_stats(relid, att);
	if (!HeapTupleIsValid(tp))
		return DEFAULT_PREFIX_FRACTION;
	stats_match(tp, key_has_prefix, &p, &m);
	ReleaseSysCache(tp);
	fraction = m.mcv_matching;
	if (m.hist_n > 1)
		fraction += (1.0 - m.mcv_total - m.nullfrac) *
			Max(m.hist_matching, 0.5) / (double) (m.hist_n - 1);
	return Min(Max(fraction, 0.0), 1.0);
}

/*
 * How many rows of a table (not partitioned) have a key column att that
 * begins with prefix, from its statistics, for a reader choosing how to
 * read a level (graph_scan_prefix.c: direct_prefix_pass); -1 without
 * statistics (never analyzed), when a guess would decide nothing well.
 * Only a cost: no value of the statistics reaches the caller.
 */
double
graph_prefix_rows(Oid relid, AttrNumber att, const char *prefix, int len)
{
	HeapTuple	tp = column_stats(relid, att);
	double		rows = table_rows(relid);

	if (!HeapTupleIsValid(tp))
		return -1;
	ReleaseSysCache(tp);
	if (rows <= 0)
		return -1;
	return rows * prefix_fraction(relid, att, prefix, len);
}

/*
 * The share of a table's rows whose jsonb column att contains filter: the
 * most common values that do, plus, of the rest, the share of the
 * histogram's entries that do; NULLs never do.
 */
static double
filter_fraction(Oid relid, AttrNumber att, Datum filter)
{
	HeapTuple	tp;
	StatsMatch	m;
	double		rest = DEFAULT_FILTER_FRACTION;
	double		fraction;

	tp = column_stats(relid, att);
	if (!HeapTupleIsValid(tp))
		return DEFAULT_FILTER_FRACTION;
	stats_match(tp, jsonb_contains_filter, &filter, &m);
	ReleaseSysCache(tp);
	if (m.hist_n > 0)
		rest = (double) m.hist_matching / m.hist_n;
	fraction = m.mcv_matching + Max(1.0 - m.mcv_total - m.nullfrac, 0.0) * rest;
	return Min(Max(fraction, 0.0), 1.0);
}

/* The graph of a call: its table, and what its statistics say. */
typedef struct Graph
{
	Oid			relid;
	double		rows;			/* edges (rows of the table) */
	double		nodes;			/* distinct partition keys */
	double		targets;		/* distinct sort keys */
	AttrNumber	pk;
	AttrNumber	sk;
	double		filtered;		/* the share of edges edge_filter lets through */
} Graph;

/* The table of argument 0, if the caller may read it and it has keys. */
static bool
graph_of(PlannerInfo *root, List *args, Graph *g)
{
	Const	   *c = arg_const(root, args, 0);
	Relation	rel;

	if (c == NULL || c->constisnull)
		return false;
	g->relid = DatumGetObjectId(c->constvalue);
	if (get_rel_relkind(g->relid) != RELKIND_RELATION &&
		get_rel_relkind(g->relid) != RELKIND_PARTITIONED_TABLE)
		return false;
	if (pg_class_aclcheck(g->relid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		return false;

	/*
	 * Under row-level security the statistics describe rows the caller may
	 * not see, and an edge filter is matched against them with jsonb
	 * operators that are not leakproof: as core's planner under RLS, no
	 * statistics then, the default estimate.
	 */
	if (check_enable_rls(g->relid, InvalidOid, true) == RLS_ENABLED)
		return false;
	rel = try_table_open(g->relid, AccessShareLock);
	if (rel == NULL)
		return false;
	g->pk = g->sk = InvalidAttrNumber;
	{
		Oid			pkindex = adjlist_primary_key_index(rel);
		HeapTuple	tp = OidIsValid(pkindex) ?
			SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pkindex)) : NULL;

		if (tp != NULL && HeapTupleIsValid(tp))
		{
			Form_pg_index idx = (Form_pg_index) GETSTRUCT(tp);

			if (idx->indnkeyatts >= 2)
			{
				g->pk = idx->indkey.values[0];
				g->sk = idx->indkey.values[1];
			}
			ReleaseSysCache(tp);
		}
	}
	table_close(rel, AccessShareLock);
	if (g->pk == InvalidAttrNumber)
		return false;
	g->rows = table_rows(g->relid);
	if (g->rows < 1)
		return false;			/* never analyzed, or empty: the default */
	g->nodes = column_ndistinct(g->relid, g->pk, g->rows);
	g->targets = column_ndistinct(g->relid, g->sk, g->rows);
	g->filtered = 1.0;
	return true;
}

/*
 * Sets g->filtered from the edge_filter argument n: the share of the
 * table's edges whose data contains it (1 without one; unknown when it is
 * not a constant, or the table has no jsonb column data: the call then
 * fails or is planned with the default).
 */
static void
edge_filter_arg(PlannerInfo *root, List *args, int n, Graph *g)
{
	Const	   *c = arg_const(root, args, n);
	AttrNumber	att;

	if (c != NULL && c->constisnull)
		return;
	att = get_attnum(g->relid, "data");
	if (c == NULL || att == InvalidAttrNumber || get_atttype(g->relid, att) != JSONBOID)
		g->filtered = DEFAULT_FILTER_FRACTION;
	else
		g->filtered = filter_fraction(g->relid, att, c->constvalue);
}

/* The edge prefix argument n, normalized; NULL when unknown. */
static const char *
prefix_arg(PlannerInfo *root, List *args, int n, int *len)
{
	Const	   *c = arg_const(root, args, n);

	if (c == NULL || c->constisnull)
		return NULL;
	return adjkey_edge_prefix(DatumGetTextPP(c->constvalue), len);
}

/* Out-edges of a node with the prefix, on average. */
static double
out_degree(PlannerInfo *root, List *args, int prefix_arg_no, const Graph *g)
{
	int			len;
	const char *prefix = prefix_arg(root, args, prefix_arg_no, &len);
	double		fraction = prefix ? prefix_fraction(g->relid, g->sk, prefix, len) :
		DEFAULT_PREFIX_FRACTION;

	return g->rows * fraction / g->nodes;
}

/* In-edges of a node: the rows per distinct sort key. */
static double
in_degree(const Graph *g)
{
	return g->rows / g->targets;
}

/* The direction argument n: 'o', 'i' or 'b' ('o' when unknown). */
static char
direction_arg(PlannerInfo *root, List *args, int n)
{
	Const	   *c = arg_const(root, args, n);
	char	   *d;

	if (c == NULL || c->constisnull)
		return 'o';
	/* (not adjlist_parse_direction(): a bad one is an error of the call) */
	d = TextDatumGetCString(c->constvalue);
	return pg_strcasecmp(d, "in") == 0 ? 'i' : pg_strcasecmp(d, "both") == 0 ? 'b' : 'o';
}

static double
degree_in_direction(PlannerInfo *root, List *args, int prefix_arg_no, char dir, const Graph *g)
{
	double		out = out_degree(root, args, prefix_arg_no, g);

	return dir == 'o' ? out : dir == 'i' ? in_degree(g) : out + in_degree(g);
}

/*
 * Nodes within depth levels, each level degree times the last, up to nodes:
 * the geometric sum degree + degree^2 + ... + degree^depth, in closed form
 * (depth may be INT_MAX; a loop over the levels would not end in time when
 * degree is at most 1).
 */
static double
reachable(double degree, int depth, double nodes)
{
	double		total;

	if (depth <= 0 || degree <= 0)
		total = 0;
	else if (fabs(degree - 1.0) < 1e-9)
		total = depth;
	else
		total = degree * (pow(degree, depth) - 1.0) / (degree - 1.0);
	if (isnan(total) || total < 0)
		total = nodes;
	return Min(total, Min(nodes, (double) adjlist_max_visited));
}

/* The number of elements of a constant array or JSON array argument. */
static double
array_length_arg(PlannerInfo *root, List *args, int n)
{
	Const	   *c = arg_const(root, args, n);

	if (c == NULL || c->constisnull)
		return -1;
	if (c->consttype == JSONBOID)
	{
		Jsonb	   *j = DatumGetJsonbP(c->constvalue);

		return JB_ROOT_IS_ARRAY(j) && !JB_ROOT_IS_SCALAR(j) ? (double) JB_ROOT_COUNT(j) : -1.0;
	}
	if (type_is_array(c->consttype))
	{
		ArrayType  *a = DatumGetArrayTypeP(c->constvalue);

		return ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	}
	return -1;
}

/* query(): one partition, an optional sort key condition, a limit. */
static double
query_rows(PlannerInfo *root, List *args, const Graph *g)
{
	Const	   *op = arg_const(root, args, 2);
	double		rows = g->rows / g->nodes;

	if (op != NULL && !op->constisnull)
	{
		char	   *o = TextDatumGetCString(op->constvalue);

		if (strcmp(o, "=") == 0)
			rows = 1;
		else if (strcmp(o, "begins_with") == 0)
		{
			Const	   *v = arg_const(root, args, 3);

			if (v != NULL && !v->constisnull)
			{
				int			len;
				const char *p = adjkey_text_to_utf8(DatumGetTextPP(v->constvalue), &len);

				rows *= prefix_fraction(g->relid, g->sk, p, len);
			}
			else
				rows *= DEFAULT_PREFIX_FRACTION;
		}
		else if (strcmp(o, "between") == 0)
			rows *= 0.25;
		else
			rows /= 3;			/* <, <=, >, >= */
	}
	return cap(rows, arg_limit(root, args, 6));
}

static double
estimate(const char *fn, PlannerInfo *root, List *args)
{
	Graph		g;
	double		n;

	if (strcmp(fn, "batch_get") == 0)
		return array_length_arg(root, args, 1);
	if (!graph_of(root, args, &g))
		return -1;
	if (strcmp(fn, "neighbors") == 0)
	{
		edge_filter_arg(root, args, 8, &g);
		return cap(out_degree(root, args, 2, &g) * g.filtered, arg_limit(root, args, 3));
	}
	if (strcmp(fn, "reverse_neighbors") == 0)
	{
		edge_filter_arg(root, args, 8, &g);
		return cap(in_degree(&g) * g.filtered, arg_limit(root, args, 3));
	}
	if (strcmp(fn, "traverse") == 0)
	{
		Const	   *depth = arg_const(root, args, 3);
		int			d = (depth && !depth->constisnull) ? DatumGetInt32(depth->constvalue) : 3;
		char		dir = direction_arg(root, args, 4);

		edge_filter_arg(root, args, 9, &g);
		return cap(reachable(degree_in_direction(root, args, 2, dir, &g) * g.filtered, d, g.nodes),
				   arg_limit(root, args, 5));
	}
	if (strcmp(fn, "common_neighbors") == 0)
	{
		double		deg;

		edge_filter_arg(root, args, 7, &g);
		deg = degree_in_direction(root, args, 3, direction_arg(root, args, 4), &g) * g.filtered;
		return cap(Min(deg, deg * deg / g.nodes), -1);
	}
	if (strcmp(fn, "walk_ranked") == 0)
	{
		double		hops = array_length_arg(root, args, 2);

		/* (one walk per hop's edges: the table's edges per node) */
		edge_filter_arg(root, args, 8, &g);
		n = reachable(g.rows / g.nodes * g.filtered, hops > 0 ? (int) hops : 2, g.nodes);
		return cap(n, arg_limit(root, args, 5));
	}
	if (strcmp(fn, "query") == 0)
		return query_rows(root, args, &g);
	return -1;
}

/*
 * adjlist_graph_rows(internal) RETURNS internal: the planner support
 * function of the graph functions.
 */
Datum
adjlist_graph_rows(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestRows *req;
	char	   *fn;
	double		rows;

	if (IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(graph_columns_simplify((SupportRequestSimplify *) rawreq));
	if (!IsA(rawreq, SupportRequestRows))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestRows *) rawreq;
	if (!IsA(req->node, FuncExpr))
		PG_RETURN_POINTER(NULL);
	fn = get_func_name(req->funcid);
	if (fn == NULL)
		PG_RETURN_POINTER(NULL);
	rows = estimate(graph_columns_estimated_as(fn), req->root, ((FuncExpr *) req->node)->args);
	if (rows <= 0)
		PG_RETURN_POINTER(NULL);
	req->rows = rows;
	PG_RETURN_POINTER(req);
}
