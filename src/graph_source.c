/*-------------------------------------------------------------------------
 *
 * graph_source.c
 *	  The one primitive every graph function is built on: read the edges of
 *	  one node, forward from the base table or backward through its inverted
 *	  index, in key order, with a prefix, a start key and a limit.
 *
 * Two paths give the same rows:
 *
 *	- the direct path scans the btree of the table's primary key (or of the
 *	  inverted index) with index_beginscan(), reading keys from the index
 *	  tuples (an index-only scan, checking the visibility map) and touching
 *	  the heap only when a page is not all-visible or the edge's data is
 *	  wanted.  No SQL is parsed, planned or executed per node, which is what
 *	  makes a traversal touching a hundred thousand nodes cheap.
 *
 *	- the SPI path runs SQL as the caller.  It serves what the direct path
 *	  cannot: tables with row-level security active for the caller (a plain
 *	  SELECT must give the same answer), partitioned and foreign tables (no
 *	  single btree to scan), and tables without a primary key whose key was
 *	  given to create_inverted_index (base_key).  In reverse with row-level security, candidate
 *	  sources are read from the index and then confirmed through the base
 *	  table as the caller, so the index never shows a row the caller could
 *	  not SELECT.
 *
 * A write-sharded inverted index (write_shard.c) stores a node's in-edges
 * under part#0 .. part#N-1.  Both paths read the N sub-partitions and
 * merge them by source key, so callers get one ordered stream: the direct
 * path in chunks with one index scan and a binary heap, the SPI path as a
 * UNION ALL of ordered branches under one ORDER BY (a Merge Append).
 *
 * Privileges: the caller needs SELECT on the base table (or on its key
 * columns, and on "data" when the data is returned).  The inverted index is
 * part of the table's machinery and is read without checking the caller's
 * privileges on it, as an ordinary index would be.
 *
 * Metadata (key columns, indexes, the inverted index) is cached per session
 * and dropped on relcache invalidation of the table or its index table.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/visibilitymap.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/binaryheap.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "graph.h"

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
}

/*
 * The node at the far end of an edge.  *buf is scratch space the function
 * may (re)allocate.  Returns false when the row is not an edge of the
 * convention (nothing follows the prefix, or the target would be longer
 * than any key may be).
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
	restlen = edge->sklen - conv->eplen;
	if (restlen <= 0)
		return false;
	/* a target no key could name is not a node */
	if (conv->tplen + restlen > ADJKEY_MAX_BYTES)
		return false;
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
static const char *
scan_partition(const GraphScan *req, int *len)
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
 * The direct path
 * ----------------------------------------------------------------------
 */

static Datum
key_datum(const char *p, int len)
{
	return PointerGetDatum(adjkey_from_utf8(p, len));
}

/*
 * A reader keeps the relations and the index scan of each direction open
 * across the scans of one call: a traversal expanding thousands of nodes
 * rescans one index scan with new keys instead of opening the table and
 * the index and starting a scan for every node.
 */
typedef struct DirectScan
{
	Relation	heap;
	Relation	index;
	IndexScanDesc scan;
	TupleTableSlot *slot;
	Buffer		vmbuffer;
	int			nkeys;
	bool		index_only;
	AttrNumber	data_att;
} DirectScan;

struct GraphReader
{
	GraphTable *g;
	DirectScan	dirs[2];		/* forward, reverse */
	MemoryContext cxt;
};

GraphReader *
graph_reader_begin(GraphTable *g)
{
	GraphReader *r = palloc0(sizeof(GraphReader));

	r->g = g;
	r->cxt = CurrentMemoryContext;
	return r;
}

static void
direct_scan_close(DirectScan *ds)
{
	if (ds->heap == NULL)
		return;
	if (ds->vmbuffer != InvalidBuffer)
		ReleaseBuffer(ds->vmbuffer);
	ExecDropSingleTupleTableSlot(ds->slot);
	index_endscan(ds->scan);
	index_close(ds->index, AccessShareLock);
	table_close(ds->heap, AccessShareLock);
	memset(ds, 0, sizeof(*ds));
}

void
graph_reader_end(GraphReader *r)
{
	direct_scan_close(&r->dirs[0]);
	direct_scan_close(&r->dirs[1]);
}

/*
 * Open the scan of ds, or keep the open one when it has the same shape.
 * Allocates in the reader's context, which outlives the scan.
 */
static void
direct_scan_prepare(GraphReader *r, DirectScan *ds, Oid relid, Oid indexid,
					int nkeys, bool index_only, AttrNumber data_att)
{
	MemoryContext oldcxt;

	if (ds->heap != NULL && (ds->nkeys != nkeys || ds->index_only != index_only ||
							 ds->data_att != data_att))
		direct_scan_close(ds);
	if (ds->heap != NULL)
		return;
	oldcxt = MemoryContextSwitchTo(r->cxt);
	ds->heap = table_open(relid, AccessShareLock);
	ds->index = index_open(indexid, AccessShareLock);
	ds->scan = index_beginscan(ds->heap, ds->index, GetActiveSnapshot(), nkeys, 0);
	ds->scan->xs_want_itup = index_only;
	ds->slot = table_slot_create(ds->heap, NULL);
	ds->vmbuffer = InvalidBuffer;
	ds->nkeys = nkeys;
	ds->index_only = index_only;
	ds->data_att = data_att;
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The next row of a scan: its partition and sort keys (and data).  The
 * values stay valid until the next call on the same scan.
 */
static bool
direct_scan_next(GraphTable *g, DirectScan *ds, bool reverse, ScanDirection dir,
				 Datum *partd, Datum *sortd, Datum *data, bool *data_isnull)
{
	IndexScanDesc scan = ds->scan;
	bool		isnull;

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (ds->index_only)
		{
			ItemPointer tid = index_getnext_tid(scan, dir);

			if (tid == NULL)
				return false;
			if (!VM_ALL_VISIBLE(ds->heap, ItemPointerGetBlockNumber(tid), &ds->vmbuffer) &&
				!index_fetch_heap(scan, ds->slot))
				continue;		/* not visible to the snapshot */
			*partd = index_getattr(scan->xs_itup, 1, scan->xs_itupdesc, &isnull);
			*sortd = index_getattr(scan->xs_itup, 2, scan->xs_itupdesc, &isnull);
			*data = (Datum) 0;
			*data_isnull = true;
		}
		else
		{
			if (!index_getnext_slot(scan, dir, ds->slot))
				return false;
			*partd = slot_getattr(ds->slot, reverse ? g->inv_sk : g->base_pk, &isnull);
			*sortd = slot_getattr(ds->slot, reverse ? g->inv_pk : g->base_sk, &isnull);
			*data = slot_getattr(ds->slot, ds->data_att, data_isnull);
		}
		return true;
	}
}

/* Fill an edge from a row's keys; partd is NULL for a merged shard row. */
static void
direct_edge(GraphEdge *edge, bool reverse, Datum partd, Datum sortd,
			const char *part, int partlen, Datum partdatum)
{
	struct varlena *sv = DatumGetAdjkeyPP(sortd);

	if (reverse)
	{
		struct varlena *pv = partd ? DatumGetAdjkeyPP(partd) : NULL;

		edge->sk = pv ? ADJKEY_DATA(pv) : part;
		edge->sklen = pv ? ADJKEY_LEN(pv) : partlen;
		edge->skdatum = pv ? PointerGetDatum(pv) : partdatum;
		edge->pk = ADJKEY_DATA(sv);
		edge->pklen = ADJKEY_LEN(sv);
		edge->pkdatum = PointerGetDatum(sv);
	}
	else
	{
		struct varlena *pv = DatumGetAdjkeyPP(partd);

		edge->pk = ADJKEY_DATA(pv);
		edge->pklen = ADJKEY_LEN(pv);
		edge->pkdatum = PointerGetDatum(pv);
		edge->sk = ADJKEY_DATA(sv);
		edge->sklen = ADJKEY_LEN(sv);
		edge->skdatum = PointerGetDatum(sv);
	}
}

/*
 * One shard of a write-sharded partition being merged: a buffer of its
 * next rows in scan order.  The shards are read one chunk at a time with
 * the same index scan (a rescan positions it after the shard's last row),
 * which costs a btree descent per chunk instead of an index scan, and its
 * allocations, per shard.
 */
typedef struct ShardBuf
{
	Datum		shardkey;		/* the stored partition key, part#i */
	MemoryContext cxt;			/* the buffered rows; reset at each refill */
	Datum	   *keys;			/* sort keys, copied */
	Datum	   *data;
	bool	   *data_isnull;
	int			n;				/* rows buffered */
	int			pos;			/* the next one to hand over */
	bool		done;			/* nothing after the buffered rows */
} ShardBuf;

typedef struct ShardMerge
{
	ShardBuf   *bufs;
	int			sign;			/* 1: ascending, -1: descending */
} ShardMerge;

/* binaryheap keeps the largest first: the head that sorts first wins */
static int
shard_head_cmp(Datum a, Datum b, void *arg)
{
	ShardMerge *m = (ShardMerge *) arg;
	ShardBuf   *ba = &m->bufs[DatumGetInt32(a)];
	ShardBuf   *bb = &m->bufs[DatumGetInt32(b)];
	struct varlena *ka = DatumGetAdjkeyPP(ba->keys[ba->pos]);
	struct varlena *kb = DatumGetAdjkeyPP(bb->keys[bb->pos]);

	return -m->sign * adjkey_cmp_bytes(ADJKEY_DATA(ka), ADJKEY_LEN(ka),
									   ADJKEY_DATA(kb), ADJKEY_LEN(kb));
}

/*
 * Fill a shard's buffer with up to chunk rows after bound (exclusive, in
 * scan order).  Runs in the reader's context; the rows are copied into the
 * buffer's own.
 */
static void
shard_refill(GraphReader *r, DirectScan *ds, ShardBuf *b, Datum bound,
			 const GraphScan *req, int chunk)
{
	GraphTable *g = r->g;
	ScanKeyData keys[2];
	ScanDirection dir = req->backward ? BackwardScanDirection : ForwardScanDirection;
	Datum		partd;
	Datum		sortd;
	Datum		data;
	bool		data_isnull;
	MemoryContext old;

	ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, g->eq_proc, b->shardkey);
	if (req->backward)
		ScanKeyInit(&keys[1], 2, BTLessStrategyNumber, g->lt_proc, bound);
	else
		ScanKeyInit(&keys[1], 2, BTGreaterStrategyNumber, g->gt_proc, bound);
	index_rescan(ds->scan, keys, 2, NULL, 0);

	MemoryContextReset(b->cxt);
	b->keys = MemoryContextAlloc(b->cxt, sizeof(Datum) * chunk);
	b->data = MemoryContextAlloc(b->cxt, sizeof(Datum) * chunk);
	b->data_isnull = MemoryContextAlloc(b->cxt, sizeof(bool) * chunk);
	b->n = 0;
	b->pos = 0;
	while (b->n < chunk &&
		   direct_scan_next(g, ds, true, dir, &partd, &sortd, &data, &data_isnull))
	{
		old = MemoryContextSwitchTo(b->cxt);
		b->keys[b->n] = PointerGetDatum(PG_DETOAST_DATUM_COPY(sortd));
		b->data_isnull[b->n] = data_isnull;
		b->data[b->n] = data_isnull ? (Datum) 0 : datumCopy(data, false, -1);
		MemoryContextSwitchTo(old);
		b->n++;
	}
	b->done = (b->n < chunk);
	ExecClearTuple(ds->slot);
}

/*
 * Hand an edge to the callback, which runs in the caller's context.
 * False when the scan is to stop: the callback said so, or the limit is
 * reached.
 */
static inline bool
hand_over(GraphReader *r, MemoryContext callercxt, const GraphScan *req,
		  GraphEdgeCallback cb, void *arg, const GraphEdge *edge, int64 *n)
{
	bool		go_on;

	(*n)++;
	MemoryContextSwitchTo(callercxt);
	go_on = cb(arg, edge);
	MemoryContextSwitchTo(r->cxt);
	return go_on && !(req->limit > 0 && *n >= req->limit);
}

static int64
scan_direct(GraphReader *r, const GraphScan *req, const char *part, int partlen,
			GraphEdgeCallback cb, void *arg)
{
	GraphTable *g = r->g;
	bool		reverse = req->reverse;
	Oid			relid = reverse ? g->inv_rel : g->baserel;
	Oid			indexid = reverse ? g->inv_keyindex : g->base_keyindex;
	AttrNumber	data_att = 0;
	const char *prefix = reverse ? NULL : req->conv->edge_prefix;
	int			plen = reverse ? 0 : req->conv->eplen;
	int			nshards = reverse ? g->inv_shards : 0;
	ScanKeyData keys[4];
	int			nkeys = 1;
	ScanDirection dir = req->backward ? BackwardScanDirection : ForwardScanDirection;
	bool		index_only;
	int64		n = 0;
	GraphEdge	edge;
	Datum		partd;
	Datum		sortd;
	MemoryContext callercxt;

	if (req->want_data)
		data_att = reverse ? g->inv_data : g->base_data;
	index_only = (data_att == 0);

	/* keys[0], the partition, is set per scan below */
	if (plen > 0)
	{
		char	   *succ = palloc(plen + 4);
		int			slen = adjkey_prefix_successor(prefix, plen, succ);

		ScanKeyInit(&keys[nkeys++], 2, BTGreaterEqualStrategyNumber, g->ge_proc,
					key_datum(prefix, plen));
		if (slen >= 0)
			ScanKeyInit(&keys[nkeys++], 2, BTLessStrategyNumber, g->lt_proc,
						key_datum(succ, slen));
	}
	if (req->after != NULL)
	{
		if (req->backward)
			ScanKeyInit(&keys[nkeys++], 2, BTLessStrategyNumber, g->lt_proc,
						key_datum(req->after, req->afterlen));
		else
			ScanKeyInit(&keys[nkeys++], 2, BTGreaterStrategyNumber, g->gt_proc,
						key_datum(req->after, req->afterlen));
	}

	if (nshards == 0)
	{
		DirectScan *ds = &r->dirs[reverse ? 1 : 0];

		ScanKeyInit(&keys[0], 1, BTEqualStrategyNumber, g->eq_proc,
					key_datum(part, partlen));
		direct_scan_prepare(r, ds, relid, indexid, nkeys, index_only, data_att);

		/*
		 * The index AM allocates during a scan (btree's list of killed
		 * items, for one) and frees at the next rescan: it must work in the
		 * reader's context, which outlives the caller's per-expansion one.
		 * Only the callback runs in the caller's context.
		 */
		callercxt = MemoryContextSwitchTo(r->cxt);
		index_rescan(ds->scan, keys, nkeys, NULL, 0);
		while (direct_scan_next(g, ds, reverse, dir, &partd, &sortd,
								&edge.data, &edge.data_isnull))
		{
			direct_edge(&edge, reverse, partd, sortd, NULL, 0, (Datum) 0);
			if (!hand_over(r, callercxt, req, cb, arg, &edge, &n))
				break;
		}
		ExecClearTuple(ds->slot);
		MemoryContextSwitchTo(callercxt);
		return n;
	}
	else
	{
		/*
		 * A write-sharded index: the node's partition is spread over
		 * part#0 .. part#N-1, each in sort-key order.  Buffer the head of
		 * each shard and hand over the smallest head each time: one ordered
		 * stream.  A chunk is a little more than the shard's share of the
		 * limit, so a first page reads about twice the rows it returns.
		 */
		ShardMerge	m;
		binaryheap *heap;
		Datum		partdatum = key_datum(part, partlen);
		Datum		start;
		int			chunk;
		DirectScan *ds = &r->dirs[1];

		chunk = 1000;
		if (req->limit > 0 && req->limit < chunk)
			chunk = (int) Min(req->limit, Max(4, 2 * req->limit / nshards + 1));
		if (req->after != NULL)
			start = key_datum(req->after, req->afterlen);
		else if (req->backward)
			start = PointerGetDatum(adjkey_upper_sentinel());
		else
			start = key_datum("", 0);	/* below every key */

		m.bufs = palloc0(sizeof(ShardBuf) * nshards);
		m.sign = req->backward ? -1 : 1;
		heap = binaryheap_allocate(nshards, shard_head_cmp, &m);
		direct_scan_prepare(r, ds, relid, indexid, 2, index_only, data_att);

		callercxt = MemoryContextSwitchTo(r->cxt);
		for (int i = 0; i < nshards; i++)
		{
			ShardBuf   *b = &m.bufs[i];

			b->shardkey = PointerGetDatum(write_shard_key(part, partlen, i));
			b->cxt = AllocSetContextCreate(callercxt, "adjlist shard buffer",
										   ALLOCSET_SMALL_SIZES);
			shard_refill(r, ds, b, start, req, chunk);
			if (b->n > 0)
				binaryheap_add_unordered(heap, Int32GetDatum(i));
		}
		binaryheap_build(heap);
		while (!binaryheap_empty(heap))
		{
			int			i = DatumGetInt32(binaryheap_first(heap));
			ShardBuf   *b = &m.bufs[i];

			direct_edge(&edge, reverse, (Datum) 0, b->keys[b->pos], part, partlen, partdatum);
			edge.data = b->data[b->pos];
			edge.data_isnull = b->data_isnull[b->pos];
			if (!hand_over(r, callercxt, req, cb, arg, &edge, &n))
				break;
			if (++b->pos == b->n && !b->done)
			{
				/* the next chunk, after this one's last key */
				Datum		last = PointerGetDatum(PG_DETOAST_DATUM_COPY(b->keys[b->n - 1]));

				shard_refill(r, ds, b, last, req, chunk);
				pfree(DatumGetPointer(last));
			}
			if (b->pos < b->n)
				binaryheap_replace_first(heap, Int32GetDatum(i));
			else
				(void) binaryheap_remove_first(heap);
		}
		for (int i = 0; i < nshards; i++)
			MemoryContextDelete(m.bufs[i].cxt);
		binaryheap_free(heap);
		MemoryContextSwitchTo(callercxt);
		return n;
	}
}

/* ----------------------------------------------------------------------
 * The SPI path
 * ----------------------------------------------------------------------
 */

static void
append_range(StringInfo sql, GraphTable *g, const char *col, const GraphScan *req,
			 bool with_prefix, Oid *types, Datum *values, int *nargs)
{
	if (with_prefix && req->conv->eplen > 0)
	{
		char	   *succ = palloc(req->conv->eplen + 4);
		int			slen = adjkey_prefix_successor(req->conv->edge_prefix, req->conv->eplen, succ);

		types[*nargs] = g->keytype;
		values[(*nargs)++] = key_datum(req->conv->edge_prefix, req->conv->eplen);
		appendStringInfo(sql, " AND %s OPERATOR(%s.>=) $%d", col, g->op_schema, *nargs);
		if (slen >= 0)
		{
			types[*nargs] = g->keytype;
			values[(*nargs)++] = key_datum(succ, slen);
			appendStringInfo(sql, " AND %s OPERATOR(%s.<) $%d", col, g->op_schema, *nargs);
		}
	}
	if (req->after != NULL)
	{
		types[*nargs] = g->keytype;
		values[(*nargs)++] = key_datum(req->after, req->afterlen);
		appendStringInfo(sql, " AND %s OPERATOR(%s.%s) $%d", col, g->op_schema,
						 req->backward ? "<" : ">", *nargs);
	}
	appendStringInfo(sql, " ORDER BY %s USING OPERATOR(%s.%s)", col, g->op_schema,
					 req->backward ? ">" : "<");
}

static int64
emit_spi_rows(GraphTable *g, const GraphScan *req, const char *part, int partlen,
			  int pkcol, int skcol, int datacol, GraphEdgeCallback cb, void *arg,
			  int64 limit)
{
	int64		n = 0;

	for (uint64 i = 0; i < SPI_processed; i++)
	{
		HeapTuple	tup = SPI_tuptable->vals[i];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		struct varlena *pv = DatumGetAdjkeyPP(SPI_getbinval(tup, desc, pkcol, &isnull));
		GraphEdge	edge = {0};

		CHECK_FOR_INTERRUPTS();
		edge.pk = ADJKEY_DATA(pv);
		edge.pklen = ADJKEY_LEN(pv);
		if (skcol > 0)
		{
			struct varlena *sv = DatumGetAdjkeyPP(SPI_getbinval(tup, desc, skcol, &isnull));

			edge.sk = ADJKEY_DATA(sv);
			edge.sklen = ADJKEY_LEN(sv);
		}
		else
		{
			edge.sk = part;
			edge.sklen = partlen;
		}
		if (datacol > 0)
			edge.data = SPI_getbinval(tup, desc, datacol, &edge.data_isnull);
		else
		{
			edge.data = (Datum) 0;
			edge.data_isnull = true;
		}
		n++;
		if (!cb(arg, &edge) || (limit > 0 && n >= limit))
			break;
	}
	return n;
}

static int64
scan_spi(GraphTable *g, const GraphScan *req, const char *part, int partlen,
		 bool rls, GraphEdgeCallback cb, void *arg)
{
	StringInfoData sql;
	Oid		   *types = palloc(sizeof(Oid) * (8 + g->inv_shards));
	Datum	   *values = palloc(sizeof(Datum) * (8 + g->inv_shards));
	int			nargs = 0;
	int			ret;
	bool		with_data = req->want_data && g->base_data != 0;

	initStringInfo(&sql);
	types[nargs] = g->keytype;
	values[nargs++] = key_datum(part, partlen);

	if (!req->reverse)
	{
		/* forward: the base table, as the caller */
		appendStringInfo(&sql, "SELECT %s, %s%s%s FROM %s WHERE %s OPERATOR(%s.=) $1",
						 g->pk_name, g->sk_name, with_data ? ", " : "",
						 with_data ? g->data_name : "", g->base_name,
						 g->pk_name, g->op_schema);
		append_range(&sql, g, g->sk_name, req, true, types, values, &nargs);
		if (req->limit > 0)
			appendStringInfo(&sql, " LIMIT " INT64_FORMAT, req->limit);
		ret = SPI_execute_with_args(sql.data, nargs, types, values, NULL, true, 0);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "edge scan failed: %s", SPI_result_code_string(ret));
		return emit_spi_rows(g, req, part, partlen, 1, 2, with_data ? 3 : 0, cb, arg, req->limit);
	}
	else
	{
		/* reverse: candidates from the index, read with its owner's rights */
		Oid			save_userid;
		int			save_sec_context;
		char	   *inv_pk = g->inv_pk_name;
		char	   *inv_sk = g->inv_sk_name;
		bool		inv_with_data = req->want_data && g->inv_data != 0;

		if (g->inv_shards == 0)
		{
			appendStringInfo(&sql, "SELECT %s%s FROM %s WHERE %s OPERATOR(%s.=) $1",
							 inv_pk, inv_with_data ? ", data" : "", g->inv_name,
							 inv_sk, g->op_schema);
			append_range(&sql, g, inv_pk, req, false, types, values, &nargs);
		}
		else
		{
			/*
			 * A write-sharded index: one ordered branch per shard's
			 * partition key (each pruned to its own partition), merged by
			 * the sort key (a Merge Append).
			 */
			StringInfoData range;
			int			first_shard_arg;

			initStringInfo(&range);
			append_range(&range, g, inv_pk, req, false, types, values, &nargs);
			first_shard_arg = nargs + 1;
			for (int i = 0; i < g->inv_shards; i++)
			{
				types[nargs] = g->keytype;
				values[nargs++] = PointerGetDatum(write_shard_key(part, partlen, i));
			}
			appendStringInfo(&sql, "SELECT %s%s FROM (", inv_pk, inv_with_data ? ", data" : "");
			for (int i = 0; i < g->inv_shards; i++)
			{
				appendStringInfo(&sql, "%s(SELECT %s%s FROM %s WHERE %s OPERATOR(%s.=) $%d%s",
								 i ? " UNION ALL " : "", inv_pk,
								 inv_with_data ? ", data" : "", g->inv_name,
								 inv_sk, g->op_schema, first_shard_arg + i, range.data);
				if (req->limit > 0 && !rls)
					appendStringInfo(&sql, " LIMIT " INT64_FORMAT, req->limit);
				appendStringInfoChar(&sql, ')');
			}
			appendStringInfo(&sql, ") s ORDER BY %s USING OPERATOR(%s.%s)", inv_pk,
							 g->op_schema, req->backward ? ">" : "<");
		}
		if (req->limit > 0 && !rls)
			appendStringInfo(&sql, " LIMIT " INT64_FORMAT, req->limit);

		GetUserIdAndSecContext(&save_userid, &save_sec_context);
		SetUserIdAndSecContext(g->inv_owner, save_sec_context |
							   SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
		ret = SPI_execute_with_args(sql.data, nargs, types, values, NULL, true, 0);
		SetUserIdAndSecContext(save_userid, save_sec_context);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "inverted index scan failed: %s", SPI_result_code_string(ret));

		if (!rls)
			return emit_spi_rows(g, req, part, partlen, 1, 0, inv_with_data ? 2 : 0,
								 cb, arg, req->limit);

		/*
		 * Row-level security: keep only the sources whose base row the caller
		 * can SELECT.  Both lists come in the same key order, so one merge
		 * pass keeps the index's order.
		 */
		{
			SPITupleTable *cands = SPI_tuptable;
			uint64		ncands = SPI_processed;
			Datum	   *pks;
			Oid			argt[2];
			Datum		argv[2];
			StringInfoData q;
			int64		n = 0;
			uint64		j = 0;
			int			sign = req->backward ? -1 : 1;

			if (ncands == 0)
				return 0;
			pks = palloc(sizeof(Datum) * ncands);
			for (uint64 i = 0; i < ncands; i++)
			{
				bool		isnull;

				pks[i] = SPI_getbinval(cands->vals[i], cands->tupdesc, 1, &isnull);
			}
			argt[0] = g->keytype;
			argv[0] = key_datum(part, partlen);
			argt[1] = get_array_type(g->keytype);
			argv[1] = PointerGetDatum(construct_array(pks, ncands, g->keytype, -1, false,
													  TYPALIGN_INT));
			initStringInfo(&q);
			appendStringInfo(&q, "SELECT %s%s%s FROM %s WHERE %s OPERATOR(%s.=) $1 "
							 "AND %s OPERATOR(%s.=) ANY ($2) ORDER BY %s USING OPERATOR(%s.%s)",
							 g->pk_name, with_data ? ", " : "", with_data ? g->data_name : "",
							 g->base_name, g->sk_name, g->op_schema, g->pk_name, g->op_schema,
							 g->pk_name, g->op_schema, req->backward ? ">" : "<");
			ret = SPI_execute_with_args(q.data, 2, argt, argv, NULL, true, 0);
			if (ret != SPI_OK_SELECT)
				elog(ERROR, "edge check failed: %s", SPI_result_code_string(ret));

			for (uint64 i = 0; i < ncands && j < SPI_processed; i++)
			{
				struct varlena *k = DatumGetAdjkeyPP(pks[i]);
				GraphEdge	edge = {0};
				int			c = 1;

				CHECK_FOR_INTERRUPTS();
				while (j < SPI_processed)
				{
					bool		isnull;
					struct varlena *v = DatumGetAdjkeyPP(SPI_getbinval(SPI_tuptable->vals[j],
																	   SPI_tuptable->tupdesc, 1, &isnull));

					c = sign * adjkey_cmp_bytes(ADJKEY_DATA(v), ADJKEY_LEN(v),
												ADJKEY_DATA(k), ADJKEY_LEN(k));
					if (c >= 0)
						break;
					j++;
				}
				if (c != 0)
					continue;	/* not visible to the caller */
				if (with_data)
					edge.data = SPI_getbinval(SPI_tuptable->vals[j], SPI_tuptable->tupdesc,
											  2, &edge.data_isnull);
				else
				{
					edge.data = (Datum) 0;
					edge.data_isnull = true;
				}
				edge.pk = ADJKEY_DATA(k);
				edge.pklen = ADJKEY_LEN(k);
				edge.sk = part;
				edge.sklen = partlen;
				n++;
				if (!cb(arg, &edge) || (req->limit > 0 && n >= req->limit))
					break;
			}
			return n;
		}
	}
}

/*
 * Read the edges of one node.  Returns the number of edges handed to the
 * callback.  The caller is connected to SPI and has checked privileges
 * with graph_check_select().
 */
int64
graph_scan(GraphTable *g, const GraphScan *req, GraphEdgeCallback cb, void *arg)
{
	GraphReader *r = graph_reader_begin(g);
	int64		n = graph_reader_scan(r, req, cb, arg);

	graph_reader_end(r);
	return n;
}

/* The same, with the reader's open scans. */
int64
graph_reader_scan(GraphReader *r, const GraphScan *req, GraphEdgeCallback cb, void *arg)
{
	GraphTable *g = r->g;
	int			partlen;
	const char *part = scan_partition(req, &partlen);
	bool		rls;

	if (part == NULL)
		return 0;
	rls = (check_enable_rls(g->baserel, InvalidOid, false) == RLS_ENABLED);
	if (!rls && (req->reverse ? g->inv_direct : g->direct))
		return scan_direct(r, req, part, partlen, cb, arg);
	return scan_spi(g, req, part, partlen, rls, cb, arg);
}
