/*-------------------------------------------------------------------------
 *
 * heap_prefetch.c
 *	  Software prefetching of the heap tuples an index scan that reads the
 *	  heap will fetch a few rows on.
 *
 * A hub's rows are scattered over the heap, one tuple per page, and with
 * a big graph in shared buffers each fetch stalls on a chain of cache (and
 * TLB) misses: the buffer mapping entry, the buffer descriptor it pins,
 * the page header heap_page_prune_opt() reads first, the line pointer and
 * the tuple.  The btree scan already holds the heap TIDs of the rest of
 * its leaf page (compat.h: adjlist_btree_tid_ahead), so for the row
 * PREFETCH_FAR rows ahead the buffer mapping is looked up (PrefetchBuffer:
 * a resident page's buffer, or an I/O hint for one that is not) and the
 * descriptor, the page header and the line pointer are prefetched into the
 * cache; for the row PREFETCH_NEAR rows ahead, whose line pointer is in
 * the cache by then, the tuple is.  The misses of several rows are then
 * in flight at once instead of one after another.
 *
 * Nothing is pinned or locked, and nothing read here decides anything: a
 * buffer may be evicted and reused before the fetch, a line pointer read
 * without the content lock may be stale or torn, and the worst that
 * comes of it is a useless prefetch (a prefetch of any address is
 * harmless).  The fetch itself goes through the buffer manager as before.
 *
 * A scan starts prefetching only after PREFETCH_AFTER rows: most nodes
 * have a few edges, and their scans pay for no lookup they do not use.
 * Rows on the page looked up last (an inverted index's heap, filled in
 * key order) are not looked up again.  The distances were measured on the
 * 10M-edge R-MAT graph's out-hub (28932 rows with data, 6 GB of shared
 * buffers, 32 MB of L3): 20% more calls a second; 4..12 rows ahead are
 * within noise of each other, and the second stage is worth a few per cent.
 * The page's buffer mapping look-up itself still stalls: only the buffer
 * manager knows where its hash entry is.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "storage/bufmgr.h"
#include "storage/bufpage.h"
#include "storage/buf_internals.h"

#include "adjlist.h"
#include "heap_prefetch.h"

/* rows ahead whose page is looked up, and whose tuple is prefetched */
#define PREFETCH_FAR		8
#define PREFETCH_NEAR		4
/* rows a scan returns before it prefetches */
#define PREFETCH_AFTER		16

/*
 * Stage two reads a line pointer of a page this backend has not pinned,
 * which a build for valgrind marks inaccessible: that build leaves it out.
 */
#ifdef USE_VALGRIND
#define PREFETCH_TUPLES		false
#else
#define PREFETCH_TUPLES		true
#endif

StaticAssertDecl(PREFETCH_FAR < HEAP_PREFETCH_RING && PREFETCH_NEAR < PREFETCH_FAR,
				 "the ring must hold the buffers of the rows between the two stages");

void
adjlist_heap_prefetch_init(HeapPrefetch *hp, Relation heap, Relation index)
{
	memset(hp, 0, sizeof(*hp));
	for (int i = 0; i < HEAP_PREFETCH_RING; i++)
		hp->ring[i].blkno = InvalidBlockNumber;
	hp->last_blkno = InvalidBlockNumber;
	hp->usable = index->rd_rel->relam == BTREE_AM_OID && !RelationUsesLocalBuffers(heap);
}

/* The address of the line pointer of off on a page (not read). */
static inline const ItemIdData *
line_pointer(Page page, OffsetNumber off)
{
	return &((PageHeader) page)->pd_linp[off - 1];
}

/*
 * Stage one: look the page of a row ahead up in the buffer mapping and
 * prefetch what the fetch will touch first.  Returns its buffer, or
 * InvalidBuffer when it is not in shared buffers (PrefetchBuffer then
 * asked the kernel for it).
 */
static Buffer
prefetch_page(Relation heap, ItemPointer tid)
{
	PrefetchBufferResult res;
	Page		page;

	res = PrefetchBuffer(heap, MAIN_FORKNUM, ItemPointerGetBlockNumber(tid));
	if (!BufferIsValid(res.recent_buffer) || res.recent_buffer < 0)
		return InvalidBuffer;
	page = BufferGetPage(res.recent_buffer);
	/* pinned (its state word written) and content-locked by the fetch */
	__builtin_prefetch(GetBufferDescriptor(res.recent_buffer - 1), 1);
	__builtin_prefetch(page);
	__builtin_prefetch(line_pointer(page, ItemPointerGetOffsetNumber(tid)));
	return res.recent_buffer;
}

/*
 * Stage two: the line pointer of the row is in the cache by now; prefetch
 * its tuple (the header, and the line after it, where the data begins).
 * A line pointer that makes no sense (the buffer holds another page by
 * now, or it is being changed) is skipped.
 */
static void
prefetch_tuple(Buffer buf, ItemPointer tid)
{
	Page		page = BufferGetPage(buf);
	OffsetNumber off = ItemPointerGetOffsetNumber(tid);
	ItemIdData	lp;
	const char *tup;

	if (off < FirstOffsetNumber || off > MaxHeapTuplesPerPage)
		return;
	lp = *line_pointer(page, off);
	if (lp.lp_flags != LP_NORMAL || lp.lp_off < SizeOfPageHeaderData ||
		lp.lp_off > BLCKSZ - SizeofHeapTupleHeader)
		return;
	tup = (const char *) page + lp.lp_off;
	__builtin_prefetch(tup);
	__builtin_prefetch(tup + 64);
}

/*
 * Called after the scan returned a row, before the next is fetched.  Each
 * call looks up one new row's page (PREFETCH_FAR ahead) and prefetches
 * the tuple of one looked up earlier (PREFETCH_NEAR ahead).
 */
void
adjlist_heap_prefetch_row(HeapPrefetch *hp, Relation heap, IndexScanDesc scan,
						  ScanDirection dir)
{
	ItemPointer tid;
	uint32		r;

	if (!hp->usable)
		return;
	r = ++hp->rows;
	if (r < PREFETCH_AFTER)
		return;
	tid = adjlist_btree_tid_ahead(scan, dir, PREFETCH_FAR);
	if (tid != NULL)
	{
		uint32		slot = (r + PREFETCH_FAR) % HEAP_PREFETCH_RING;
		BlockNumber blkno = ItemPointerGetBlockNumber(tid);

		/*
		 * Rows clustered on a page (an inverted index's heap, loaded in key
		 * order) are fetched from the buffer the fetch keeps pinned: no
		 * lookup, nothing to prefetch.
		 */
		if (blkno == hp->last_blkno)
		{
			hp->ring[slot].buf = InvalidBuffer;
			hp->ring[slot].blkno = InvalidBlockNumber;
		}
		else
		{
			hp->ring[slot].buf = prefetch_page(heap, tid);
			hp->ring[slot].blkno = blkno;
			hp->last_blkno = blkno;
		}
	}
	tid = adjlist_btree_tid_ahead(scan, dir, PREFETCH_NEAR);
	if (tid != NULL)
	{
		uint32		slot = (r + PREFETCH_NEAR) % HEAP_PREFETCH_RING;

		/* looked up by this scan (a stale slot has another block, or none) */
		if (PREFETCH_TUPLES && BufferIsValid(hp->ring[slot].buf) &&
			hp->ring[slot].blkno == ItemPointerGetBlockNumber(tid))
			prefetch_tuple(hp->ring[slot].buf, tid);
	}
}
