/*-------------------------------------------------------------------------
 *
 * graph_query.c
 *	  One-hop graph functions: neighbors, reverse_neighbors, degree and
 *	  has_edge.
 *
 * Each is a thin wrapper around graph_scan() (graph_reader.c), which reads
 * one node's edges in key order from the base table (out-edges) or through
 * its inverted index (in-edges).  A call of neighbors() or
 * reverse_neighbors() begins (neighbor_call_begin) and is then read at
 * once into the function's tuplestore, or, for the planner's custom scan
 * (graph_neighbor_scan.c), one edge at a time or in batches.  A row's keys
 * that the scan gave as bytes only are formed in a memory context of
 * their own, kept until the next such row, so that a hub with millions of
 * edges does not grow the call's memory.
 *
 * neighbors_keys and reverse_neighbors_keys, which the planner puts in
 * place of a call whose data column the query does not read
 * (graph_columns.c), return the same rows with data NULL;
 * neighbors_nodes and reverse_neighbors_nodes, for a query that reads only
 * the neighbor column, with pk and sk NULL as well.
 *
 * Each takes an edge_filter (its last argument): only edges whose data
 * contains it count, tested by the scan before the limit counts an edge.
 *
 * Pagination is keyset pagination: exclusive_start_key is the key of the
 * previous page's last row, {"pk": pk, "sk": sk} of the base-table edge
 * (or its key columns' own names), as query() takes it (DynamoDB's
 * ExclusiveStartKey); the scan resumes after its sk (out-edges) or its
 * source pk (in-edges), exclusive, so pages are stable, gap-free and
 * duplicate-free under concurrent inserts.  "after", that sk or pk alone,
 * is its alias, checked as the start key is.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "graph.h"

PG_FUNCTION_INFO_V1(adjlist_neighbors);
PG_FUNCTION_INFO_V1(adjlist_reverse_neighbors);
PG_FUNCTION_INFO_V1(adjlist_neighbors_keys);
PG_FUNCTION_INFO_V1(adjlist_reverse_neighbors_keys);
PG_FUNCTION_INFO_V1(adjlist_neighbors_nodes);
PG_FUNCTION_INFO_V1(adjlist_reverse_neighbors_nodes);
PG_FUNCTION_INFO_V1(adjlist_degree);
PG_FUNCTION_INFO_V1(adjlist_has_edge);

typedef struct EmitState
{
	NeighborCall *call;
	NeighborPut put;
	void	   *arg;
	bool		resumable;		/* remember each edge's scan key (batches) */
	bool		stopped;		/* put said the batch is full */
	bool		must_fit;		/* a batch that cannot stop early */
} EmitState;

/*
 * An emitter of the call's rows to put: in batches of max_edges edges
 * (resumable after the last), or all at once (0: put must take every row).
 */
static void
emit_init(EmitState *st, NeighborCall *call, NeighborPut put, void *arg, int64 max_edges)
{
	st->call = call;
	st->put = put;
	st->arg = arg;
	st->resumable = max_edges > 0;
	st->must_fit = max_edges == 0;
	st->stopped = false;
}

/*
 * The buffer of the scan key the next batch resumes after, made at its
 * first use in the call's memory (a call read as a stream has none).
 */
static char *
call_resume(NeighborCall *call)
{
	if (call->resume == NULL)
		call->resume = MemoryContextAlloc(call->cxt, ADJKEY_MAX_BYTES);
	return call->resume;
}

/*
 * A key datum of bytes: the scan's own datum when the bytes are its, else
 * the row's neighbor key buffer (the consumer copies the row).
 */
static Datum
neighbor_datum(NeighborCall *call, const GraphEdge *edge, const char *nb, int nblen)
{
	if (nb == edge->pk && nblen == edge->pklen && edge->pkdatum)
		return edge->pkdatum;
	if (nb == edge->sk && nblen == edge->sklen && edge->skdatum)
		return edge->skdatum;
	if (call->nbkey == NULL)
		call->nbkey = MemoryContextAlloc(call->cxt, VARHDRSZ + ADJKEY_MAX_BYTES);
	SET_VARSIZE(call->nbkey, VARHDRSZ + nblen);
	memcpy(VARDATA(call->nbkey), nb, nblen);
	return PointerGetDatum(call->nbkey);
}

/*
 * The row (neighbor, pk, sk, data) of an edge, or false for a row that is
 * no edge of the convention (handed over uncounted by the scan: skipped).
 * Keys the scan gave as bytes only are formed in call->rowcxt, kept until
 * the next such row (the consumer may keep pointers to them until then).
 */
static pg_attribute_always_inline bool
edge_row(NeighborCall *call, const GraphEdge *edge, Datum *values, bool *nulls)
{
	const char *nb;
	int			nblen;
	MemoryContext old;

	if (call->req.reverse)
	{
		/* an in-edge's neighbor is its source, as graph_edge_neighbor says */
		nb = edge->pk;
		nblen = edge->pklen;
	}
	else if (!graph_edge_neighbor(&call->conv, false, edge, &nb, &nblen, &call->tbuf))
		return false;
	/* (a neighbor has at most ADJKEY_MAX_BYTES: graph_edge_neighbor) */
	values[0] = neighbor_datum(call, edge, nb, nblen);
	nulls[0] = false;
	if (call->cols == COLUMNS_NODE)
	{
		values[1] = values[2] = values[3] = (Datum) 0;
		nulls[1] = nulls[2] = nulls[3] = true;
		return true;
	}
	if (edge->pkdatum && edge->skdatum)
	{
		values[1] = edge->pkdatum;
		values[2] = edge->skdatum;
	}
	else
	{
		if (call->rowcxt == NULL)
			call->rowcxt = AllocSetContextCreate(call->cxt, "adjlist row",
												 ALLOCSET_SMALL_SIZES);
		else
			MemoryContextReset(call->rowcxt);
		old = MemoryContextSwitchTo(call->rowcxt);
		values[1] = edge->pkdatum ? edge->pkdatum :
			PointerGetDatum(adjkey_from_utf8(edge->pk, edge->pklen));
		values[2] = edge->skdatum ? edge->skdatum :
			PointerGetDatum(adjkey_from_utf8(edge->sk, edge->sklen));
		MemoryContextSwitchTo(old);
	}
	nulls[1] = nulls[2] = false;
	values[3] = call->cols == COLUMNS_ALL ? edge->data : (Datum) 0;
	nulls[3] = call->cols != COLUMNS_ALL || edge->data_isnull;
	return true;
}

/* A batch's edge to put (graph_scan's callback). */
static bool
emit_edge(void *arg, const GraphEdge *edge)
{
	EmitState  *st = (EmitState *) arg;
	NeighborCall *call = st->call;
	Datum		values[4];
	bool		nulls[4];

	if (st->resumable)
	{
		/* the next batch starts after this edge: its sk, or its source */
		const char *k = call->req.reverse ? edge->pk : edge->sk;
		int			klen = call->req.reverse ? edge->pklen : edge->sklen;

		memcpy(call_resume(call), k, klen);
		call->resumelen = klen;
	}
	if (!edge_row(call, edge, values, nulls))
		return true;
	st->stopped = !st->put(st->arg, values, nulls) && !st->must_fit;
	return !st->stopped;
}

/*
 * Could the call have returned the edge (pk, sk)?  A start key is the key
 * of a row the same call returned: anything else is DynamoDB's "provided
 * starting key is invalid".  Forward, pk is the node and sk an edge of the
 * call: it has the edge prefix and names a neighbor (graph_row_is_edge: not
 * the prefix alone); the scan resumes after sk.  In reverse, sk is the key
 * of the edges to the node; the scan resumes after pk, the source.  after,
 * the alias, gives only the key the scan resumes after (pk NULL forward,
 * sk NULL in reverse) and is checked as that part of a start key is.
 */
static void
neighbors_check_start(const GraphScan *req, struct varlena *pk, struct varlena *sk)
{
	const EdgeConvention *conv = req->conv;
	int			partlen;
	const char *part;

	if (!req->reverse)
	{
		if (pk != NULL &&
			adjkey_cmp_bytes(ADJKEY_DATA(pk), ADJKEY_LEN(pk), req->node, req->nodelen) != 0)
			graph_invalid_start_key("It belongs to another partition than the node's.");
		if (ADJKEY_LEN(sk) < conv->eplen ||
			memcmp(ADJKEY_DATA(sk), conv->edge_prefix, conv->eplen) != 0)
			graph_invalid_start_key("Its sort key does not have the edge prefix.");
		if (!graph_row_is_edge(conv, false, ADJKEY_LEN(sk)))
			graph_invalid_start_key(ADJKEY_LEN(sk) == conv->eplen ?
									"Its sort key is the edge prefix itself, which is no edge." :
									"Its sort key is no edge: the target prefix and the rest would be longer than a key can be.");
		return;
	}
	if (sk == NULL)
		return;
	part = graph_scan_partition(req, &partlen);
	if (part == NULL ||
		adjkey_cmp_bytes(ADJKEY_DATA(sk), ADJKEY_LEN(sk), part, partlen) != 0)
		graph_invalid_start_key("Its sort key is not that of an edge to the node.");
}

/*
 * The key the scan of neighbors() or reverse_neighbors() resumes after,
 * from its exclusive start key: {"<pk column>": pk, "<sk column>": sk} of
 * the base-table edge, the row's pk and sk ("pk" and "sk" name the key
 * columns of a table whose own are named otherwise, as in batch_get:
 * graph_key_member_role), checked by neighbors_check_start().
 */
static struct varlena *
neighbors_start_key(GraphTable *g, const GraphScan *req, Jsonb *esk)
{
	const char *names[2];
	char	   *pkv;
	char	   *skv;
	struct varlena *pk;
	struct varlena *sk;

	names[0] = get_attname(g->baserel, g->base_pk, false);
	names[1] = get_attname(g->baserel, g->base_sk, false);
	graph_start_key_check_object(esk);
	pkv = graph_start_key_member(esk, names, 2, 0, true);
	skv = graph_start_key_member(esk, names, 2, 1, true);
	graph_start_key_check_members(esk, names, 2);
	pk = adjkey_from_server(pkv, strlen(pkv), NULL);
	sk = adjkey_from_server(skv, strlen(skv), NULL);
	neighbors_check_start(req, pk, sk);
	return req->reverse ? pk : sk;
}

/*
 * Begin a call of neighbors(tbl, node, edge_prefix, lim, after, backward,
 * target_prefix, sk_is_target, edge_filter, exclusive_start_key),
 * reverse_neighbors(...) or a twin: read the arguments, check the
 * privileges and the start key.  A twin runs with its original's EXECUTE
 * privilege, and asks SELECT on data only when its rows carry it (as core
 * asks only for the columns a query names).  False when
 * the call returns no row (a NULL table, node or edge prefix); else the
 * caller runs the batches, and the first one finds the table's metadata
 * at hand.  Allocates in the current context, which must outlive the
 * call.  Nothing here reads through SQL: SPI is connected by the batches
 * that need it, and a call read as a stream (neighbor_call_stream) never
 * connects.  For the twins (graph_columns.c) the data column is
 * NULL (and with COLUMNS_NODE pk and sk as well) and the scan reads the
 * index only, unless an edge_filter needs the data.
 */
bool
neighbor_call_begin(FunctionCallInfo fcinfo, bool reverse, NeighborColumns cols,
					NeighborCall *call)
{
	struct varlena *node;
	struct varlena *after = NULL;
	/* (a catalog of 0.1 or 0.2, not updated yet, passes fewer arguments) */
	bool		has_esk = PG_NARGS() > 9 && !PG_ARGISNULL(9);

	memset(call, 0, sizeof(*call));
	if (cols != COLUMNS_ALL)
		graph_columns_check_twin(fcinfo);
	if (!PG_ARGISNULL(4) && has_esk)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("after and exclusive_start_key cannot both be given"),
				 errhint("after is an alias of exclusive_start_key: pass the key of the last row.")));
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		return false;

	node = PG_GETARG_ADJKEY_PP(1);
	graph_convention_from_args(&call->conv, PG_GETARG_TEXT_PP(2),
							   PG_ARGISNULL(6) ? NULL : PG_GETARG_TEXT_PP(6),
							   PG_ARGISNULL(7) ? false : PG_GETARG_BOOL(7));
	call->conv.filter = graph_filter_arg(fcinfo, 8);
	if (!PG_ARGISNULL(4))
		after = PG_GETARG_ADJKEY_PP(4);

	call->relid = PG_GETARG_OID(0);
	call->cols = cols;
	call->req.reverse = reverse;
	call->req.node = ADJKEY_DATA(node);
	call->req.nodelen = ADJKEY_LEN(node);
	call->req.conv = &call->conv;
	call->req.backward = PG_ARGISNULL(5) ? false : PG_GETARG_BOOL(5);
	call->limit = graph_limit_arg(fcinfo, 3);
	call->req.want_data = cols == COLUMNS_ALL;
	/*
	 * The call's memory, which outlives the batches' SPI contexts: its
	 * row-key context and its resume and neighbor-key buffers are made
	 * there at their first use (a stream of index tuples needs none).
	 */
	call->cxt = CurrentMemoryContext;

	call->g = graph_table_get(call->relid, reverse);
	call->key_shared = call->g->key_shared;
	graph_check_select(call->g, cols == COLUMNS_ALL);
	if (call->conv.filter != NULL)
		graph_check_data(call->g, reverse ? "reverse_neighbors() with an edge_filter"
						 : "neighbors() with an edge_filter");
	if (has_esk)
		after = neighbors_start_key(call->g, &call->req, PG_GETARG_JSONB_P(9));
	else if (after != NULL)
		neighbors_check_start(&call->req, reverse ? after : NULL, reverse ? NULL : after);
	/* (a copy: the start key may be a detoasted argument or the JSON's) */
	if (after != NULL)
	{
		call->resumelen = ADJKEY_LEN(after);
		memcpy(call_resume(call), ADJKEY_DATA(after), call->resumelen);
		call->req.after = call->resume;
		call->req.afterlen = call->resumelen;
	}
	return true;
}

/*
 * Hand the call's next rows to put: all of them (max_edges 0), or those of
 * the next max_edges edges, or fewer when put says the batch is full; the
 * next batch resumes after the last edge read (keyset pagination, in the
 * same snapshot: what the batches read is what one scan would have).  Sets
 * call->done after the last batch.
 */
void
neighbor_call_batch(NeighborCall *call, int64 max_edges, NeighborPut put, void *arg)
{
	EmitState	st;
	int64		left = call->limit > 0 ? call->limit - call->handed : 0;
	int64		n;

	Assert(!call->done);
	/* rows that may share an edge's keys cannot be resumed: read at once */
	if (call->key_shared)
		max_edges = 0;
	call->req.limit = left;
	if (max_edges > 0 && (left == 0 || left > max_edges))
		call->req.limit = max_edges;
	emit_init(&st, call, put, arg, max_edges);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* (the first batch has the metadata neighbor_call_begin() read) */
	if (call->g == NULL)
		call->g = graph_table_get(call->relid, call->req.reverse);
	n = graph_scan(call->g, &call->req, emit_edge, &st);
	SPI_finish();
	call->g = NULL;
	call->handed += n;
	if (!st.stopped &&
		(call->req.limit == 0 || n < call->req.limit || call->req.limit == left))
		call->done = true;
	else
	{
		call->req.after = call_resume(call);
		call->req.afterlen = call->resumelen;
	}
}

/*
 * Read the call one edge at a time, after neighbor_call_begin() and
 * instead of batches, where the direct path reads it (graph_stream_begin):
 * false where it does not (the batches then read the metadata again, as
 * every later batch does).  The stream lives in the call's memory, until
 * neighbor_call_end(); it needs no SPI connection.
 */
bool
neighbor_call_stream(NeighborCall *call)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(call->cxt);

	call->req.limit = call->limit;
	call->stream = graph_stream_begin(call->g, &call->req);
	MemoryContextSwitchTo(oldcxt);
	call->g = NULL;
	return call->stream != NULL;
}

/*
 * The stream's next row into values and nulls (NCOLS of each: neighbor,
 * pk, sk, data; valid until the next); false after the last.
 */
bool
neighbor_call_next(NeighborCall *call, Datum *values, bool *nulls)
{
	GraphEdge	edge;
	bool		found = false;
	MemoryContext oldcxt = MemoryContextSwitchTo(call->cxt);

	/* (no EmitState: a stream neither resumes nor ends a batch) */
	while (!found && graph_stream_next(call->stream, &edge))
		found = edge_row(call, &edge, values, nulls);
	if (!found)
		call->done = true;
	MemoryContextSwitchTo(oldcxt);
	return found;
}

/* Close the stream: its scan, its relations (locked to the end of the transaction). */
void
neighbor_call_end(NeighborCall *call)
{
	if (call->stream != NULL)
		graph_stream_end(call->stream);
	call->stream = NULL;
}

/* The set-returning functions' rows go to their tuplestore. */
static bool
put_tuplestore(void *arg, Datum *values, bool *nulls)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) arg;

	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return true;
}

static Datum
neighbors_common(FunctionCallInfo fcinfo, bool reverse, NeighborColumns cols)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	NeighborCall call;

	/* the row type the executor has, not built from pg_proc per call */
	InitMaterializedSRF(fcinfo, rsinfo_has_expected_desc(fcinfo) ? MAT_SRF_USE_EXPECTED_DESC : 0);
	if (neighbor_call_begin(fcinfo, reverse, cols, &call))
		neighbor_call_batch(&call, 0, put_tuplestore, rsinfo);
	return (Datum) 0;
}

Datum
adjlist_neighbors(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, false, COLUMNS_ALL);
}

Datum
adjlist_reverse_neighbors(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, true, COLUMNS_ALL);
}

/* neighbors_keys(...), reverse_neighbors_keys(...): the same rows, data NULL */
Datum
adjlist_neighbors_keys(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, false, COLUMNS_KEYS);
}

Datum
adjlist_reverse_neighbors_keys(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, true, COLUMNS_KEYS);
}

/*
 * Which one-hop function fn is (graph_neighbor_scan.c reads its calls):
 * false if none.
 */
bool
neighbor_function_kind(PGFunction fn, bool *reverse, NeighborColumns *cols)
{
	static const struct
	{
		PGFunction	fn;
		bool		reverse;
		NeighborColumns cols;
	}			kinds[] = {
		{adjlist_neighbors, false, COLUMNS_ALL},
		{adjlist_reverse_neighbors, true, COLUMNS_ALL},
		{adjlist_neighbors_keys, false, COLUMNS_KEYS},
		{adjlist_reverse_neighbors_keys, true, COLUMNS_KEYS},
		{adjlist_neighbors_nodes, false, COLUMNS_NODE},
		{adjlist_reverse_neighbors_nodes, true, COLUMNS_NODE},
	};

	for (int i = 0; i < (int) lengthof(kinds); i++)
		if (kinds[i].fn == fn)
		{
			*reverse = kinds[i].reverse;
			*cols = kinds[i].cols;
			return true;
		}
	return false;
}

/*
 * neighbors_nodes(...), reverse_neighbors_nodes(...): the same rows with
 * only the neighbor column
 */
Datum
adjlist_neighbors_nodes(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, false, COLUMNS_NODE);
}

Datum
adjlist_reverse_neighbors_nodes(PG_FUNCTION_ARGS)
{
	return neighbors_common(fcinfo, true, COLUMNS_NODE);
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

/*
 * degree(tbl, node, edge_prefix, direction, target_prefix, sk_is_target,
 *		  edge_filter)
 */
Datum
adjlist_degree(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	GraphScan	req;
	GraphTable *g;
	CountState	st;
	struct varlena *node;

	if (graph_args_null(fcinfo, 6))
		PG_RETURN_NULL();
	node = PG_GETARG_ADJKEY_PP(1);
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(2), PG_GETARG_TEXT_PP(4),
							   PG_GETARG_BOOL(5));
	conv.filter = graph_filter_arg(fcinfo, 6);
	memset(&req, 0, sizeof(req));
	req.reverse = (graph_parse_direction(PG_GETARG_TEXT_PP(3), false) == DIR_IN);
	req.node = ADJKEY_DATA(node);
	req.nodelen = ADJKEY_LEN(node);
	req.conv = &conv;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	g = graph_table_get(PG_GETARG_OID(0), req.reverse);
	graph_check_select(g, false);
	if (conv.filter != NULL)
		graph_check_data(g, "degree() with an edge_filter");
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

/*
 * has_edge(tbl, from, to, edge_prefix, target_prefix, sk_is_target,
 *			edge_filter)
 */
Datum
adjlist_has_edge(PG_FUNCTION_ARGS)
{
	EdgeConvention conv;
	EdgeConvention exact;
	GraphScan	req;
	GraphTable *g;
	ExistsState st;
	struct varlena *from;
	struct varlena *to;
	const char *tob;
	int			tolen;
	char	   *sk;
	int			sklen;

	if (graph_args_null(fcinfo, 6))
		PG_RETURN_NULL();
	from = PG_GETARG_ADJKEY_PP(1);
	to = PG_GETARG_ADJKEY_PP(2);
	tob = ADJKEY_DATA(to);
	tolen = ADJKEY_LEN(to);
	graph_convention_from_args(&conv, PG_GETARG_TEXT_PP(3), PG_GETARG_TEXT_PP(4),
							   PG_GETARG_BOOL(5));
	conv.filter = graph_filter_arg(fcinfo, 6);
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
	if (conv.filter != NULL)
		graph_check_data(g, "has_edge() with an edge_filter");
	st.sklen = sklen;
	st.found = false;
	/* (no sort key is longer than a key can be: no such edge) */
	if (sklen <= ADJKEY_MAX_BYTES)
		graph_scan(g, &req, exists_edge, &st);
	SPI_finish();
	PG_RETURN_BOOL(st.found);
}
