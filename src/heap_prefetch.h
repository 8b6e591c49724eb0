/*-------------------------------------------------------------------------
 *
 * heap_prefetch.h
 *	  Prefetching the heap tuples a btree scan will fetch a few rows on
 *	  (heap_prefetch.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_HEAP_PREFETCH_H
#define ADJLIST_HEAP_PREFETCH_H

#include "access/relscan.h"
#include "access/sdir.h"
#include "storage/block.h"
#include "storage/buf.h"
#include "utils/rel.h"

/* the buffers of the rows prefetched last, by their distance (a power of 2) */
#define HEAP_PREFETCH_RING 16

typedef struct HeapPrefetch
{
	bool		usable;			/* a btree scan of a table in shared buffers */
	uint32		rows;			/* rows the scan has returned since its rescan
								 * (wraps around harmlessly) */
	BlockNumber last_blkno;		/* the page prefetched last */
	struct
	{
		Buffer		buf;
		BlockNumber blkno;
	}			ring[HEAP_PREFETCH_RING];
} HeapPrefetch;

extern void adjlist_heap_prefetch_init(HeapPrefetch *hp, Relation heap, Relation index);
extern void adjlist_heap_prefetch_row(HeapPrefetch *hp, Relation heap, IndexScanDesc scan,
									  ScanDirection dir);

/* The scan has new keys (index_rescan): start counting its rows again. */
static inline void
adjlist_heap_prefetch_rescan(HeapPrefetch *hp)
{
	hp->rows = 0;
	hp->last_blkno = InvalidBlockNumber;
}

#endif							/* ADJLIST_HEAP_PREFETCH_H */
