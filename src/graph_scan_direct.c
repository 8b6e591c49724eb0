/*-------------------------------------------------------------------------
 *
 * graph_scan_direct.c
 *	  Reading one node's edges straight from a btree: the primary key of a
 *	  base table (out-edges) or of its inverted index (in-edges).
 *
 * No SQL is parsed, planned or executed per node: index_beginscan() on
 * the key's btree, rescanned with new scan keys for each node of a
 * traversal, reading the keys from the index tuples (an index-only scan:
 * the heap is read only where the visibility map says a page is not
 * all-visible, or when the edge's data is wanted).  Like core's index-only
 * scans it takes a predicate lock on the heap page it did not read, so
 * SERIALIZABLE transactions keep their protection.
 *
 * An edge filter needs the data: the heap tuple is read then (of the base
 * table, or of an inverted index that projects data), and an edge is
 * tested before it counts against the limit.  In-edges through an index
 * that does not project data take it from the base row, found by one
 * probe of the base table's primary key on (pk, sk) per edge.
 *
 * A big level of a search whose result does not depend on the order of a
 * level's nodes (reachable_count, walk_ranked) is read by one forward pass
 * over the index from its first node's partition, merged in C with the
 * level's sorted partitions (direct_scan_level), when the level has more
 * nodes than the index has tuples / LEVEL_PASS_RATIO: a descent per node
 * would compare about as many keys as the pass reads tuples.  A level's
 * out-edges of an edge prefix that is a small share of the graph may
 * instead be read by one pass over that prefix's range of the inverted
 * index (graph_scan_prefix.c), through this file's scans: the reader, its
 * scans and the calls the pass uses are shared in graph_scan_direct_int.h.
 *
 * A scan that reads the heap (for data) looks up the heap pages of the
 * rows a few ahead on its btree leaf page and prefetches them into the
 * cache (heap_prefetch.c): a hub's rows are one per heap page.
 *
 * Used only for plain local tables without row-level security active for
 * the caller (graph_reader.c decides); relations stay locked to the end of
 * the transaction.  A write-sharded index spreads a node's in-edges over
 * part#0 .. part#N-1: they are read in chunks with one reused index scan
 * and merged with a binary heap into one ordered stream.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/itup.h"
#include "access/relscan.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/tupmacs.h"
#include "access/visibilitymap.h"
#include "access/xact.h"
#include "executor/tuptable.h"
#include "lib/binaryheap.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/predicate.h"
#include "utils/datum.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "adjlist.h"
#include "graph.h"
#include "graph_scan_direct_int.h"
#include "scan_key.h"
#include "write_shard.h"

/*
 * A level read by one forward pass over the index (direct_scan_level):
 * its partitions in key order, the one the scan is at, and the edge
 * prefix every taken tuple's sort key must begin with.
 */
typedef struct LevelMerge
{
	const char **parts;
	const int  *lens;
	int			n;
	int			cur;
	const char *prefix;
	int			plen;
} LevelMerge;

typedef enum TupleVerdict
{
	TUPLE_TAKE,
	TUPLE_SKIP,
	TUPLE_STOP
} TupleVerdict;

DirectReader *
direct_reader_create(GraphTable *g, MemoryContext cxt)
{
	DirectReader *r = MemoryContextAllocZero(cxt, sizeof(DirectReader));

	r->g = g;
	r->cxt = cxt;
	return r;
}

static MemoryContext
filter_cxt(DirectReader *r)
{
	if (r->filtercxt == NULL)
		r->filtercxt = AllocSetContextCreate(r->cxt, "adjlist edge filter",
											 ALLOCSET_SMALL_SIZES);
	return r->filtercxt;
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
	/* locks are kept to the end of the transaction, as for any read */
	index_close(ds->index, NoLock);
	table_close(ds->heap, NoLock);
	memset(ds, 0, sizeof(*ds));
}

void
direct_reader_close(DirectReader *r)
{
	direct_scan_close(&r->dirs[0]);
	direct_scan_close(&r->dirs[1]);
	direct_scan_close(&r->dirs[2]);
	if (r->filtercxt != NULL)
		MemoryContextDelete(r->filtercxt);
}

/*
 * Open the scan of ds, or keep the open one when it has the same shape.
 * Allocates in the reader's context, which outlives the scan.
 */
void
direct_int_prepare(DirectReader *r, DirectScan *ds, Oid relid, Oid indexid,
				   int nkeys, bool index_only, AttrNumber data_att)
{
	MemoryContext oldcxt;

	ds->endprefix = NULL;		/* direct_scan sets it for its scan */
	ds->endatt = 1;
	ds->merge = NULL;			/* and direct_scan_level its merge */
	ds->part = NULL;			/* and scan_open its partition */
	if (ds->heap != NULL && (ds->nkeys != nkeys || ds->index_only != index_only ||
							 ds->data_att != data_att))
		direct_scan_close(ds);
	if (ds->heap != NULL)
		return;
	oldcxt = MemoryContextSwitchTo(r->cxt);
	ds->heap = table_open(relid, AccessShareLock);
	ds->index = index_open(indexid, AccessShareLock);
	ds->scan = adjlist_index_beginscan(ds->heap, ds->index, GetActiveSnapshot(), nkeys, 0);
	ds->scan->xs_want_itup = index_only;
	ds->slot = table_slot_create(ds->heap, NULL);
	ds->vmbuffer = InvalidBuffer;
	adjlist_heap_prefetch_init(&ds->prefetch, ds->heap, ds->index);
	ds->nkeys = nkeys;
	ds->index_only = index_only;
	ds->data_att = data_att;
	MemoryContextSwitchTo(oldcxt);
}

/*
 * The two key columns (partition key, sort key) of the index tuple a scan
 * is at, in one pass over the tuple: index_getattr() of the second would
 * walk the varlena first again, and index_deform_tuple() every column.
 * Columns after them (INCLUDE) are not looked at.
 */
static void
itup_keys(IndexScanDesc scan, Datum *keys, bool *nulls)
{
	IndexTuple	itup = scan->xs_itup;
	TupleDesc	desc = scan->xs_itupdesc;
	Form_pg_attribute a1 = TupleDescAttr(desc, 0);
	Form_pg_attribute a2 = TupleDescAttr(desc, 1);
	char	   *tp;
	uint32		off;

	if (IndexTupleHasNulls(itup) || a1->attlen != -1 || a2->attlen != -1)
	{
		keys[0] = index_getattr(itup, 1, desc, &nulls[0]);
		keys[1] = index_getattr(itup, 2, desc, &nulls[1]);
		return;
	}
	tp = (char *) itup + IndexInfoFindDataOffset(itup->t_info);
	off = att_align_pointer(0, a1->attalign, -1, tp);
	keys[0] = PointerGetDatum(tp + off);
	off = att_addlength_pointer(off, -1, tp + off);
	off = att_align_pointer(off, a2->attalign, -1, tp + off);
	keys[1] = PointerGetDatum(tp + off);
	nulls[0] = nulls[1] = false;
}

/* Does a key (of an index tuple) begin with prefix? */
static bool
key_has_prefix(Datum d, bool isnull, const char *prefix, int plen)
{
	struct varlena *v;
	bool		in;

	if (isnull)
		return true;			/* no edge: direct_int_next skips it */
	v = DatumGetAdjkeyPP(d);
	in = ADJKEY_LEN(v) >= plen && adjkey_bytes_equal(ADJKEY_DATA(v), prefix, plen);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return in;
}

/*
 * A merged level: move to the first partition of the level not below the
 * tuple's; take the tuple when it is that partition and its sort key has
 * the prefix, stop past the last partition.
 */
static TupleVerdict
merge_verdict(LevelMerge *m, const Datum *keys, const bool *nulls)
{
	struct varlena *v;
	int			c = 1;

	if (nulls[0])
		return TUPLE_SKIP;
	v = DatumGetAdjkeyPP(keys[0]);
	while (m->cur < m->n &&
		   (c = adjkey_cmp_bytes(m->parts[m->cur], m->lens[m->cur],
								 ADJKEY_DATA(v), ADJKEY_LEN(v))) < 0)
		m->cur++;
	if ((Pointer) v != DatumGetPointer(keys[0]))
		pfree(v);
	if (m->cur == m->n)
		return TUPLE_STOP;
	if (c > 0)
		return TUPLE_SKIP;
	return (m->plen == 0 || key_has_prefix(keys[1], nulls[1], m->prefix, m->plen)) ?
		TUPLE_TAKE : TUPLE_SKIP;
}

/*
 * What to do with the index tuple an index-only scan is at (its keys),
 * before the visibility check (so a tuple not taken costs no heap access
 * nor predicate lock).  A forward scan of an edge prefix positions itself
 * with sk >= prefix and ends at the first key without it (keys sort by
 * their bytes, so the range is contiguous), instead of testing a third
 * scan key through fmgr on every tuple.
 */
static TupleVerdict
tuple_verdict(DirectScan *ds, const Datum *keys, const bool *nulls)
{
	if (ds->merge != NULL)
		return merge_verdict(ds->merge, keys, nulls);
	if (ds->endprefix != NULL &&
		!key_has_prefix(keys[ds->endatt], nulls[ds->endatt], ds->endprefix,
						ds->endprefixlen))
		return TUPLE_STOP;
	return TUPLE_TAKE;
}

/*
 * Is the tuple an index-only scan is at visible to its snapshot?  The heap
 * is read only where the visibility map says the page is not all-visible;
 * where it is not read, the page is predicate-locked, as an index-only
 * scan does, for SERIALIZABLE transactions (in any other the call does
 * nothing, at a call per tuple).
 */
static inline bool
index_only_visible(DirectScan *ds, ItemPointer tid)
{
	IndexScanDesc scan = ds->scan;

	if (!VM_ALL_VISIBLE(ds->heap, ItemPointerGetBlockNumber(tid), &ds->vmbuffer))
		return index_fetch_heap(scan, ds->slot);
	if (IsolationIsSerializable())
		PredicateLockPage(ds->heap, ItemPointerGetBlockNumber(tid), scan->xs_snapshot);
	return true;
}

/*
 * A long index-only scan of one partition tests pk = part in C from its
 * PART_IN_C_AFTER-th tuple on, instead of through the btree's scan key
 * (compat.h): it may then read the rest of the page after the partition's
 * last tuple, or the next page, which costs less than the calls it saves
 * only when the scan is that long.  Not in SERIALIZABLE transactions,
 * where that page would be predicate-locked too.
 */
#define PART_IN_C_AFTER 256

/*
 * After the first tuple of a scan, its keys that only positioned it (sk >=
 * prefix, or the level pass's pk >= first) are tested on no more tuples:
 * every tuple after the first passes them (compat.h).
 */
static inline void
scan_positioned(DirectScan *ds, ScanDirection dir)
{
	if (!ds->positioned)
	{
		ds->positioned = true;
		adjlist_btree_drop_positioning_keys(ds->scan, dir);
		return;
	}
	if (ds->part != NULL && !ds->part_in_c && ds->index_only &&
		++ds->seen >= PART_IN_C_AFTER && !IsolationIsSerializable())
		ds->part_in_c = adjlist_btree_drop_first_equal_key(ds->scan);
}

/* Is a key (of an index tuple) the bytes key[0..len)? */
static bool
key_equals(Datum d, bool isnull, const char *key, int len)
{
	struct varlena *v;
	bool		eq;

	if (isnull)
		return false;
	v = DatumGetAdjkeyPP(d);
	eq = ADJKEY_LEN(v) == len && adjkey_bytes_equal(ADJKEY_DATA(v), key, len);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return eq;
}

/*
 * The next row of a scan: its partition and sort keys (and data).  The
 * values stay valid until the next call on the same scan.
 */
bool
direct_int_next(GraphTable *g, DirectScan *ds, bool reverse, ScanDirection dir,
				Datum *partd, Datum *sortd, Datum *data, bool *data_isnull)
{
	IndexScanDesc scan = ds->scan;
	bool		pnull;
	bool		snull;
	Datum		keys[2];
	bool		nulls[2];

	for (;;)
	{
		CHECK_FOR_INTERRUPTS();
		if (ds->index_only)
		{
			ItemPointer tid = index_getnext_tid(scan, dir);

			if (tid == NULL)
				return false;
			scan_positioned(ds, dir);
			itup_keys(scan, keys, nulls);
			if (ds->part_in_c && !key_equals(keys[0], nulls[0], ds->part, ds->partlen))
				return false;	/* past the partition */
			if (ds->endprefix != NULL || ds->merge != NULL)
			{
				TupleVerdict v = tuple_verdict(ds, keys, nulls);

				if (v == TUPLE_STOP)
					return false;
				if (v == TUPLE_SKIP)
					continue;
			}
			if (!index_only_visible(ds, tid))
				continue;
			*partd = keys[0];
			pnull = nulls[0];
			*sortd = keys[1];
			snull = nulls[1];
			*data = (Datum) 0;
			*data_isnull = true;
		}
		else
		{
			if (!index_getnext_slot(scan, dir, ds->slot))
				return false;
			scan_positioned(ds, dir);
			adjlist_heap_prefetch_row(&ds->prefetch, ds->heap, scan, dir);
			*partd = slot_getattr(ds->slot, reverse ? g->inv_sk : g->base_pk, &pnull);
			*sortd = slot_getattr(ds->slot, reverse ? g->inv_pk : g->base_sk, &snull);
			*data = slot_getattr(ds->slot, ds->data_att, data_isnull);
		}
		if (pnull || snull)
			continue;			/* a row without both keys is no edge */
		return true;
	}
}

/* An edge's two keys, as adjkeys (short-header or detoasted). */
static inline void
edge_set_keys(GraphEdge *edge, struct varlena *pkv, struct varlena *skv)
{
	edge->pk = ADJKEY_DATA(pkv);
	edge->pklen = ADJKEY_LEN(pkv);
	edge->pkdatum = PointerGetDatum(pkv);
	edge->sk = ADJKEY_DATA(skv);
	edge->sklen = ADJKEY_LEN(skv);
	edge->skdatum = PointerGetDatum(skv);
}

/* Fill an edge from a row's keys; partd is NULL for a merged shard row. */
void
direct_int_edge(GraphEdge *edge, bool reverse, Datum partd, Datum sortd,
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
		edge_set_keys(edge, DatumGetAdjkeyPP(partd), sv);
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
shard_refill(DirectReader *r, DirectScan *ds, ShardBuf *b, Datum bound,
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

	adjlist_scan_key_init(&keys[0], 1, BTEqualStrategyNumber, g->eq_proc, b->shardkey);
	if (req->backward)
		adjlist_scan_key_init(&keys[1], 2, BTLessStrategyNumber, g->lt_proc, bound);
	else
		adjlist_scan_key_init(&keys[1], 2, BTGreaterStrategyNumber, g->gt_proc, bound);
	index_rescan(ds->scan, keys, 2, NULL, 0);
	scan_rescanned(ds);

	MemoryContextReset(b->cxt);
	b->keys = MemoryContextAlloc(b->cxt, sizeof(Datum) * chunk);
	b->data = MemoryContextAlloc(b->cxt, sizeof(Datum) * chunk);
	b->data_isnull = MemoryContextAlloc(b->cxt, sizeof(bool) * chunk);
	b->n = 0;
	b->pos = 0;
	while (b->n < chunk &&
		   direct_int_next(g, ds, true, dir, &partd, &sortd, &data, &data_isnull))
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
 * The data of an in-edge read through an index that does not project it:
 * the base row's, found by its key (pk, sk) with one probe of the base
 * table's primary key, in the scan's snapshot.  The value stays valid
 * until the next probe.
 */
static void
base_row_data(DirectReader *r, GraphEdge *edge)
{
	GraphTable *g = r->g;
	DirectScan *ds = &r->dirs[2];
	ScanKeyData keys[2];

	direct_int_prepare(r, ds, g->baserel, g->base_keyindex, 2, false, g->base_data);
	ExecClearTuple(ds->slot);
	adjlist_scan_key_init(&keys[0], 1, BTEqualStrategyNumber, g->eq_proc, edge->pkdatum);
	adjlist_scan_key_init(&keys[1], 2, BTEqualStrategyNumber, g->eq_proc, edge->skdatum);
	index_rescan(ds->scan, keys, 2, NULL, 0);
	scan_rescanned(ds);
	edge->data = (Datum) 0;
	edge->data_isnull = true;
	if (index_getnext_slot(ds->scan, ForwardScanDirection, ds->slot))
		edge->data = slot_getattr(ds->slot, g->base_data, &edge->data_isnull);
}

/*
 * Hand an edge to the callback, which runs in the caller's context, if it
 * passes the filter (an edge that does not is skipped and not counted).
 * A row that is no edge of the convention (graph_row_is_edge: its sort key
 * is the bare edge prefix) is handed over but not counted: the limit counts
 * edges, and has_edge() looks for the row whose sort key is its prefix.
 * False when the scan is to stop: the callback said so, or the limit is
 * reached.
 */
static inline bool
hand_over(DirectReader *r, MemoryContext callercxt, const GraphScan *req, bool from_base,
		  GraphEdgeCallback cb, void *arg, GraphEdge *edge, int64 *n)
{
	bool		go_on;

	if (from_base)
		base_row_data(r, edge);
	if (req->conv->filter != NULL &&
		!graph_data_contains(edge->data, edge->data_isnull, req->conv->filter, filter_cxt(r)))
		return true;
	if (graph_row_is_edge(req->conv, req->reverse, edge->sklen))
		(*n)++;
	MemoryContextSwitchTo(callercxt);
	go_on = cb(arg, edge);
	MemoryContextSwitchTo(r->cxt);
	return go_on && !(req->limit > 0 && *n >= req->limit);
}

/*
 * A write-sharded index: the node's partition is spread over part#0 ..
 * part#N-1, each in sort-key order.  Buffer the head of each shard and
 * hand over the smallest head each time: one ordered stream.  A chunk is a
 * little more than the shard's share of the limit, so a first page reads
 * about twice the rows it returns.
 */
static int64
direct_scan_sharded(DirectReader *r, const GraphScan *req, const char *part, int partlen,
					Oid relid, Oid indexid, bool index_only, AttrNumber data_att,
					bool from_base, GraphEdgeCallback cb, void *arg)
{
	int			nshards = r->g->inv_shards;
	bool		reverse = req->reverse;
	int64		n = 0;
	GraphEdge	edge;
	MemoryContext callercxt;
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
	direct_int_prepare(r, ds, relid, indexid, 2, index_only, data_att);

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

		direct_int_edge(&edge, reverse, (Datum) 0, b->keys[b->pos], part, partlen, partdatum);
		edge.data = b->data[b->pos];
		edge.data_isnull = b->data_isnull[b->pos];
		if (!hand_over(r, callercxt, req, from_base, cb, arg, &edge, &n))
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
	if (r->dirs[2].slot != NULL)
		ExecClearTuple(r->dirs[2].slot);	/* its buffer pin */
	for (int i = 0; i < nshards; i++)
		MemoryContextDelete(m.bufs[i].cxt);
	binaryheap_free(heap);
	MemoryContextSwitchTo(callercxt);
	return n;
}

/*
 * How one node's edges are read: the relation and btree, whether
 * index-only, the data column, the scan keys after the partition's (which
 * keys[0] takes, set per scan).
 */
typedef struct ScanShape
{
	Oid			relid;
	Oid			indexid;
	AttrNumber	data_att;
	bool		index_only;
	bool		from_base;		/* the data from the base rows */
	int			nshards;
	ScanDirection dir;
	const char *endprefix;
	int			endprefixlen;
	ScanKeyData keys[4];
	int			nkeys;
} ScanShape;

static void
scan_shape(DirectReader *r, const GraphScan *req, ScanShape *sh)
{
	GraphTable *g = r->g;
	bool		reverse = req->reverse;
	const char *prefix = reverse ? NULL : req->conv->edge_prefix;
	int			plen = reverse ? 0 : req->conv->eplen;

	sh->relid = reverse ? g->inv_rel : g->baserel;
	sh->indexid = reverse ? g->inv_keyindex : g->base_keyindex;
	sh->nshards = reverse ? g->inv_shards : 0;
	sh->dir = req->backward ? BackwardScanDirection : ForwardScanDirection;
	sh->data_att = 0;
	if (req->want_data || req->need_data || req->conv->filter != NULL)
		sh->data_att = reverse ? g->inv_data : g->base_data;
	/* in-edges whose data the index does not have: the base rows' */
	sh->from_base = reverse && sh->data_att == 0 &&
		(req->need_data || req->conv->filter != NULL);
	sh->index_only = (sh->data_att == 0);
	sh->endprefix = NULL;
	sh->endprefixlen = plen;
	sh->nkeys = 1;

	/*
	 * The edge prefix: sk >= prefix positions a forward scan, and an
	 * index-only one ends in C at the first key without the prefix
	 * (tuple_verdict); otherwise sk < the prefix's successor ends it (and
	 * positions a backward scan).
	 */
	if (plen > 0)
	{
		adjlist_scan_key_init(&sh->keys[sh->nkeys++], 2, BTGreaterEqualStrategyNumber, g->ge_proc,
							  key_datum(prefix, plen));
		if (sh->index_only && sh->nshards == 0 && ScanDirectionIsForward(sh->dir))
			sh->endprefix = prefix;
		else
		{
			char	   *succ = palloc(plen + 4);
			int			slen = adjkey_prefix_successor(prefix, plen, succ);

			if (slen >= 0)
				adjlist_scan_key_init(&sh->keys[sh->nkeys++], 2, BTLessStrategyNumber, g->lt_proc,
									  key_datum(succ, slen));
		}
	}
	if (req->after != NULL)
	{
		if (req->backward)
			adjlist_scan_key_init(&sh->keys[sh->nkeys++], 2, BTLessStrategyNumber, g->lt_proc,
								  key_datum(req->after, req->afterlen));
		else
			adjlist_scan_key_init(&sh->keys[sh->nkeys++], 2, BTGreaterStrategyNumber, g->gt_proc,
								  key_datum(req->after, req->afterlen));
	}
}

/*
 * Position the scan of a partition that is not write-sharded at its first
 * edge.  The index AM allocates during a scan (btree's list of killed
 * items, for one) and frees at the next rescan: it must work in the
 * reader's context, which outlives the caller's per-expansion one.
 */
static DirectScan *
scan_open(DirectReader *r, const GraphScan *req, ScanShape *sh, const char *part, int partlen)
{
	DirectScan *ds = &r->dirs[req->reverse ? 1 : 0];
	MemoryContext oldcxt;

	adjlist_scan_key_init(&sh->keys[0], 1, BTEqualStrategyNumber, r->g->eq_proc,
						  key_datum(part, partlen));
	direct_int_prepare(r, ds, sh->relid, sh->indexid, sh->nkeys, sh->index_only,
					   sh->data_att);
	ds->part = part;
	ds->partlen = partlen;
	ds->endprefix = sh->endprefix;
	ds->endprefixlen = sh->endprefixlen;
	oldcxt = MemoryContextSwitchTo(r->cxt);
	index_rescan(ds->scan, sh->keys, sh->nkeys, NULL, 0);
	scan_rescanned(ds);
	MemoryContextSwitchTo(oldcxt);
	return ds;
}

/* Let go of the buffers a scan of one partition pins between its rows. */
static void
scan_release(DirectReader *r, DirectScan *ds)
{
	ExecClearTuple(ds->slot);
	if (r->dirs[2].slot != NULL)
		ExecClearTuple(r->dirs[2].slot);
}

int64
direct_scan(DirectReader *r, const GraphScan *req, const char *part, int partlen,
			GraphEdgeCallback cb, void *arg)
{
	ScanShape	sh;
	DirectScan *ds;
	int64		n = 0;
	GraphEdge	edge;
	Datum		partd;
	Datum		sortd;
	MemoryContext callercxt;

	scan_shape(r, req, &sh);
	if (sh.nshards > 0)
		return direct_scan_sharded(r, req, part, partlen, sh.relid, sh.indexid,
								   sh.index_only, sh.data_att, sh.from_base, cb, arg);
	ds = scan_open(r, req, &sh, part, partlen);
	/* only the callback runs in the caller's context */
	callercxt = MemoryContextSwitchTo(r->cxt);
	while (direct_int_next(r->g, ds, req->reverse, sh.dir, &partd, &sortd,
						   &edge.data, &edge.data_isnull))
	{
		direct_int_edge(&edge, req->reverse, partd, sortd, NULL, 0, (Datum) 0);
		if (!hand_over(r, callercxt, req, sh.from_base, cb, arg, &edge, &n))
			break;
	}
	scan_release(r, ds);
	MemoryContextSwitchTo(callercxt);
	return n;
}

/*
 * A scan of one node's edges read one edge at a time, by a caller that
 * hands each on before asking for the next (graph_neighbor_scan.c): the
 * rows of direct_scan(), in the same order, with its filter and limit.
 * Only for a partition that is not write-sharded and data that is in the
 * relation read (not the base rows' for in-edges): NULL otherwise.
 */
struct DirectStream
{
	DirectReader *r;
	DirectScan *ds;
	const GraphScan *req;
	ScanDirection dir;
	int64		n;
	bool		done;
};

DirectStream *
direct_stream_begin(DirectReader *r, const GraphScan *req, const char *part, int partlen)
{
	ScanShape	sh;
	DirectStream *s;

	scan_shape(r, req, &sh);
	if (sh.nshards > 0 || sh.from_base)
		return NULL;
	s = palloc0(sizeof(DirectStream));
	s->r = r;
	s->req = req;
	s->dir = sh.dir;
	s->ds = scan_open(r, req, &sh, part, partlen);
	return s;
}

/*
 * Count an edge handed over against the limit (a row that is no edge is
 * handed over uncounted: hand_over).
 */
static inline void
stream_count(DirectStream *s, const GraphEdge *edge)
{
	const GraphScan *req = s->req;

	if (req->limit > 0 && graph_row_is_edge(req->conv, req->reverse, edge->sklen) &&
		++s->n >= req->limit)
		s->done = true;
}

/*
 * direct_stream_next() of an index-only stream (no data, so no filter):
 * direct_int_next()'s index-only branch and direct_int_edge() in one loop,
 * with the same helpers (scan_positioned, itup_keys, key_equals,
 * tuple_verdict, index_only_visible, edge_set_keys: a change of how the
 * index-only branch reads a tuple belongs in them).  A row of a hub's
 * keys-only in-edges went through five calls, whose prologues and
 * arguments cost a fifth of what an index-only scan spends on the row.
 */
static bool
stream_next_index_only(DirectStream *s, GraphEdge *edge)
{
	DirectScan *ds = s->ds;
	IndexScanDesc scan = ds->scan;
	MemoryContext callercxt = MemoryContextSwitchTo(s->r->cxt);
	bool		reverse = s->req->reverse;
	bool		found = false;

	Assert(ds->merge == NULL);
	while (!found)
	{
		ItemPointer tid;
		Datum		keys[2];
		bool		nulls[2];

		CHECK_FOR_INTERRUPTS();
		tid = index_getnext_tid(scan, s->dir);
		if (tid == NULL)
		{
			s->done = true;
			break;
		}
		scan_positioned(ds, s->dir);
		itup_keys(scan, keys, nulls);
		if ((ds->part_in_c && !key_equals(keys[0], nulls[0], ds->part, ds->partlen)) ||
			(ds->endprefix != NULL && tuple_verdict(ds, keys, nulls) == TUPLE_STOP))
		{
			s->done = true;		/* past the partition, or the edge prefix */
			break;
		}
		if (!index_only_visible(ds, tid))
			continue;
		if (nulls[0] || nulls[1])
			continue;
		/* the index's keys: (pk, sk) forward, (sk, pk) in reverse */
		edge_set_keys(edge, DatumGetAdjkeyPP(keys[reverse ? 1 : 0]),
					  DatumGetAdjkeyPP(keys[reverse ? 0 : 1]));
		edge->data = (Datum) 0;
		edge->data_isnull = true;
		found = true;
		stream_count(s, edge);
	}
	MemoryContextSwitchTo(callercxt);
	return found;
}

/*
 * The next edge that passes the filter, false after the last (or the
 * limit).  Its values stay valid until the next call.
 */
bool
direct_stream_next(DirectStream *s, GraphEdge *edge)
{
	DirectReader *r = s->r;
	const GraphScan *req = s->req;
	MemoryContext callercxt;
	Datum		partd;
	Datum		sortd;
	bool		found = false;

	if (s->done)
		return false;
	if (s->ds->index_only && req->conv->filter == NULL)
		return stream_next_index_only(s, edge);
	callercxt = MemoryContextSwitchTo(r->cxt);
	while (!found)
	{
		if (!direct_int_next(r->g, s->ds, req->reverse, s->dir, &partd, &sortd,
							 &edge->data, &edge->data_isnull))
		{
			s->done = true;
			break;
		}
		direct_int_edge(edge, req->reverse, partd, sortd, NULL, 0, (Datum) 0);
		if (req->conv->filter != NULL &&
			!graph_data_contains(edge->data, edge->data_isnull, req->conv->filter,
								 filter_cxt(r)))
			continue;
		found = true;
		stream_count(s, edge);
	}
	MemoryContextSwitchTo(callercxt);
	return found;
}

void
direct_stream_end(DirectStream *s)
{
	scan_release(s->r, s->ds);
}


/*
 * Can a level be read by one pass over the index (direct_scan_level)?  An
 * index-only forward read of whole partitions, not write-sharded, and the
 * level big enough that one pass over the index costs less than a descent
 * per node: more nodes than the index holds tuples / LEVEL_PASS_RATIO
 * (measured on the benchmark's graph; an index never counted by VACUUM or
 * ANALYZE has no tuple count and is never read so).
 */
bool
direct_level_pass(DirectReader *r, const GraphScan *tmpl, int n)
{
	GraphTable *g = r->g;
	bool		reverse = tmpl->reverse;
	Relation	index;
	float4		tuples;

	if (tmpl->want_data || tmpl->need_data || tmpl->conv->filter != NULL ||
		tmpl->after != NULL || tmpl->backward || tmpl->limit > 0 ||
		(reverse && g->inv_shards > 0) || n < 2)
		return false;
	/* locked to the end of the transaction, as the scans do */
	index = index_open(reverse ? g->inv_keyindex : g->base_keyindex, AccessShareLock);
	tuples = index->rd_rel->reltuples;	/* -1: never counted */
	index_close(index, NoLock);
	return tuples > 0 && (double) n * LEVEL_PASS_RATIO >= tuples;
}

/*
 * The edges of a level's partitions parts[0..n) (in key order, distinct)
 * by one forward index-only pass from the first: each tuple of a
 * partition of the level whose sort key has the edge prefix goes to cb
 * with edge->origin = origins[i].  The same rows, in each partition's key
 * order, as n calls of direct_scan.
 */
int64
direct_scan_level(DirectReader *r, const GraphScan *tmpl, const char **parts, const int *lens,
				  const int *origins, int n, GraphEdgeCallback cb, void *arg)
{
	GraphTable *g = r->g;
	bool		reverse = tmpl->reverse;
	DirectScan *ds = &r->dirs[reverse ? 1 : 0];
	LevelMerge	m;
	ScanKeyData key;
	GraphEdge	edge;
	Datum		partd;
	Datum		sortd;
	int64		count = 0;
	MemoryContext callercxt;

	if (n == 0)
		return 0;
	m.parts = parts;
	m.lens = lens;
	m.n = n;
	m.cur = 0;
	m.prefix = reverse ? NULL : tmpl->conv->edge_prefix;
	m.plen = reverse ? 0 : tmpl->conv->eplen;
	adjlist_scan_key_init(&key, 1, BTGreaterEqualStrategyNumber, g->ge_proc, key_datum(parts[0], lens[0]));
	direct_int_prepare(r, ds, reverse ? g->inv_rel : g->baserel,
					   reverse ? g->inv_keyindex : g->base_keyindex, 1, true, 0);
	ds->merge = &m;
	callercxt = MemoryContextSwitchTo(r->cxt);
	index_rescan(ds->scan, &key, 1, NULL, 0);
	scan_rescanned(ds);
	while (direct_int_next(g, ds, reverse, ForwardScanDirection, &partd, &sortd,
						   &edge.data, &edge.data_isnull))
	{
		bool		go_on;

		direct_int_edge(&edge, reverse, partd, sortd, NULL, 0, (Datum) 0);
		edge.origin = origins[m.cur];
		count++;
		MemoryContextSwitchTo(callercxt);
		go_on = cb(arg, &edge);
		MemoryContextSwitchTo(r->cxt);
		if (!go_on)
			break;
	}
	ds->merge = NULL;
	ExecClearTuple(ds->slot);
	MemoryContextSwitchTo(callercxt);
	return count;
}
