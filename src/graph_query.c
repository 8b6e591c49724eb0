/*-------------------------------------------------------------------------
 *
 * graph_query.c
 *	  One-hop graph functions: neighbors, reverse_neighbors, degree and
 *	  has_edge.
 *
 * Each is a thin wrapper around graph_scan() (graph_reader.c), which reads
 * one node's edges in key order from the base table (out-edges) or through
 * its inverted index (in-edges).  Results are materialized into the
 * function's tuplestore; a per-row memory context keeps a hub with millions
 * of edges from growing the call's memory by more than the tuplestore
 * itself (which spills to disk past work_mem).
 *
 * Pagination is keyset pagination: "after" is the last edge key of the
 * previous page (sk for out-edges, the source pk for in-edges), exclusive,
 * so pages are stable, gap-free and duplicate-free under concurrent
 * inserts, as DynamoDB's ExclusiveStartKey.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "graph.h"

PG_FUNCTION_INFO_V1(adjlist_neighbors);
PG_FUNCTION_INFO_V1(adjlist_reverse_neighbors);
PG_FUNCTION_INFO_V1(adjlist_degree);
PG_FUNCTION_INFO_V1(adjlist_has_edge);

typedef struct EmitState
{
	Tuplestorestate *ts;
	TupleDesc	desc;
	const EdgeConvention *conv;
	bool		reverse;
	MemoryContext rowcxt;
} EmitState;

static bool
emit_edge(void *arg, const GraphEdge *edge)
{
	EmitState  *st = (EmitState *) arg;
	MemoryContext old = MemoryContextSwitchTo(st->rowcxt);
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	const char *nb;
	int			nblen;
	char	   *buf = NULL;

	if (graph_edge_neighbor(st->conv, st->reverse, edge, &nb, &nblen, &buf))
	{
		/* the scan's own datums when it has them: the tuplestore copies */
		values[1] = edge->pkdatum ? edge->pkdatum :
			PointerGetDatum(adjkey_from_utf8(edge->pk, edge->pklen));
		values[2] = edge->skdatum ? edge->skdatum :
			PointerGetDatum(adjkey_from_utf8(edge->sk, edge->sklen));
		values[0] = (st->reverse && nb == edge->pk) ? values[1] :
			PointerGetDatum(adjkey_from_utf8(nb, nblen));
		values[3] = edge->data;
		nulls[3] = edge->data_isnull;
		tuplestore_putvalues(st->ts, st->desc, values, nulls);
	}
	MemoryContextSwitchTo(old);
	MemoryContextReset(st->rowcxt);
	return true;
}

/*
 * neighbors(tbl, node, edge_prefix, lim, after, backward, target_prefix,
 *			 sk_is_target) and reverse_neighbors(...): the same arguments.
 */
static Datum
neighbors_common(FunctionCallInfo fcinfo, bool reverse)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	EdgeConvention conv;
	GraphScan	req;
	GraphTable *g;
	EmitState	st;
	struct varlena *node;
	struct varlena *after = NULL;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		return (Datum) 0;

	node = PG_GETARG_ADJKEY_PP(1);
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2),
							   PG_ARGISNULL(6) ? NULL : PG_GETARG_TEXT_PP(6),
							   PG_ARGISNULL(7) ? false : PG_GETARG_BOOL(7));
	if (!PG_ARGISNULL(4))
		after = PG_GETARG_ADJKEY_PP(4);

	memset(&req, 0, sizeof(req));
	req.reverse = reverse;
	req.node = ADJKEY_DATA(node);
	req.nodelen = ADJKEY_LEN(node);
	req.conv = &conv;
	req.after = after ? ADJKEY_DATA(after) : NULL;
	req.afterlen = after ? ADJKEY_LEN(after) : 0;
	req.backward = PG_ARGISNULL(5) ? false : PG_GETARG_BOOL(5);
	req.limit = PG_ARGISNULL(3) ? 0 : PG_GETARG_INT64(3);
	req.want_data = true;
	if (!PG_ARGISNULL(3) && req.limit <= 0)
		return (Datum) 0;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	g = graph_table_get(PG_GETARG_OID(0), reverse);
	graph_check_select(g, true);

	st.ts = rsinfo->setResult;
	st.desc = rsinfo->setDesc;
	st.conv = &conv;
	st.reverse = reverse;
	st.rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist row",
									  ALLOCSET_SMALL_SIZES);
	graph_scan(g, &req, emit_edge, &st);
	SPI_finish();
	return (Datum) 0;
}

Datum
adjlist_neighbors(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, false);
}

Datum
adjlist_reverse_neighbors(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, true);
}

/* ----------------------------------------------------------------------
 * degree and has_edge
 * ----------------------------------------------------------------------
 */

typedef struct CountState
{
	const EdgeConvention *conv;
	bool		reverse;
	int64		n;
	char	   *buf;
} CountState;

static bool
count_edge(void *arg, const GraphEdge *edge)
{
	CountState *st = (CountState *) arg;
	const char *nb;
	int			nblen;

	if (graph_edge_neighbor(st->conv, st->reverse, edge, &nb, &nblen, &st->buf))
		st->n++;
	return true;
}

/* degree(tbl, node, edge_prefix, direction, target_prefix, sk_is_target) */
Datum
adjlist_degree(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	GraphScan	req;
	GraphTable *g;
	CountState	st;
	struct varlena *node = PG_GETARG_ADJKEY_PP(1);

	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(4),
							   PG_GETARG_BOOL(5));
	memset(&req, 0, sizeof(req));
	req.reverse = (graph_parse_direction(PG_GETARG_TEXT_PP(3), false) == DIR_IN);
	req.node = ADJKEY_DATA(node);
	req.nodelen = ADJKEY_LEN(node);
	req.conv = &conv;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	g = graph_table_get(PG_GETARG_OID(0), req.reverse);
	graph_check_select(g, false);
	memset(&st, 0, sizeof(st));
	st.conv = &conv;
	st.reverse = req.reverse;
	graph_scan(g, &req, count_edge, &st);
	SPI_finish();
	PG_RETURN_INT64(st.n);
}

typedef struct ExistsState
{
	int			sklen;
	bool		found;
} ExistsState;

static bool
exists_edge(void *arg, const GraphEdge *edge)
{
	ExistsState *st = (ExistsState *) arg;

	if (edge->sklen == st->sklen)
	{
		st->found = true;
		return false;
	}
	return true;
}

/* has_edge(tbl, from, to, edge_prefix, target_prefix, sk_is_target) */
Datum
adjlist_has_edge(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	EdgeConvention exact;
	GraphScan	req;
	GraphTable *g;
	ExistsState st;
	struct varlena *from = PG_GETARG_ADJKEY_PP(1);
	struct varlena *to = PG_GETARG_ADJKEY_PP(2);
	const char *tob = ADJKEY_DATA(to);
	int			tolen = ADJKEY_LEN(to);
	char	   *sk;
	int			sklen;

	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(3), PG_GETARG_TEXT_PP(4),
							   PG_GETARG_BOOL(5));
	/* the sort key an edge from -> to has */
	if (conv.sk_is_target)
	{
		sk = (char *) tob;
		sklen = tolen;
	}
	else
	{
		if (tolen <= conv.tplen || memcmp(tob, conv.target_prefix, conv.tplen) != 0)
			PG_RETURN_BOOL(false);
		sklen = conv.eplen + tolen - conv.tplen;
		sk = palloc(sklen);
		memcpy(sk, conv.edge_prefix, conv.eplen);
		memcpy(sk + conv.eplen, tob + conv.tplen, tolen - conv.tplen);
	}
	exact = conv;
	exact.edge_prefix = sk;
	exact.eplen = sklen;

	memset(&req, 0, sizeof(req));
	req.node = ADJKEY_DATA(from);
	req.nodelen = ADJKEY_LEN(from);
	req.conv = &exact;
	req.limit = 1;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	g = graph_table_get(PG_GETARG_OID(0), false);
	graph_check_select(g, false);
	st.sklen = sklen;
	st.found = false;
	graph_scan(g, &req, exists_edge, &st);
	SPI_finish();
	PG_RETURN_BOOL(st.found);
}
