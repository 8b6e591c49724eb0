/*-------------------------------------------------------------------------
 *
 * graph_scan_direct_int.h
 *	  What the direct btree path's scans (graph_scan_direct.c) share with
 *	  its prefix pass over the inverted index (graph_scan_prefix.c): the
 *	  reader and its open scans, and the calls that prepare a scan, read
 *	  its next row and make an edge of it.  Not for other modules: they go
 *	  through graph_scan.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_GRAPH_SCAN_DIRECT_INT_H
#define ADJLIST_GRAPH_SCAN_DIRECT_INT_H

#include "access/relscan.h"
#include "access/sdir.h"
#include "executor/tuptable.h"
#include "storage/buf.h"
#include "utils/rel.h"

#include "adjlist.h"
#include "graph.h"
#include "graph_scan.h"
#include "heap_prefetch.h"

/*
 * A level is read by one pass over an index when it has more nodes than
 * the index has tuples / LEVEL_PASS_RATIO (direct_level_pass).
 */
#define LEVEL_PASS_RATIO 64

static inline Datum
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
	const char *endprefix;		/* the scan ends at the first key without it */
	int			endprefixlen;
	int			endatt;			/* of that key column: 1 (the sort key), or 0 */
	struct LevelMerge *merge;	/* a level read in one pass, or NULL */
	bool		positioned;		/* the scan has returned a tuple since its
								 * rescan (direct_int_next) */
	const char *part;			/* the partition of a scan of one (scan_open) */
	int			partlen;
	int			seen;			/* tuples it has returned */
	bool		part_in_c;		/* its pk = part key tested in C (no longer
								 * by the btree) */
	HeapPrefetch prefetch;		/* of the heap tuples it reads ahead */
} DirectScan;

struct DirectReader
{
	GraphTable *g;
	DirectScan	dirs[3];		/* forward, reverse, base rows by key */
	MemoryContext cxt;
	MemoryContext filtercxt;	/* what one filter test allocates (made at
								 * the first test: filter_cxt) */
};

/* A scan has new keys (index_rescan). */
static inline void
scan_rescanned(DirectScan *ds)
{
	ds->positioned = false;
	ds->seen = 0;
	ds->part_in_c = false;
	adjlist_heap_prefetch_rescan(&ds->prefetch);
}

/* graph_scan_direct.c */
extern void direct_int_prepare(DirectReader *r, DirectScan *ds, Oid relid, Oid indexid,
							   int nkeys, bool index_only, AttrNumber data_att);
extern bool direct_int_next(GraphTable *g, DirectScan *ds, bool reverse, ScanDirection dir,
							Datum *partd, Datum *sortd, Datum *data, bool *data_isnull);
extern void direct_int_edge(GraphEdge *edge, bool reverse, Datum partd, Datum sortd,
							const char *part, int partlen, Datum partdatum);

#endif							/* ADJLIST_GRAPH_SCAN_DIRECT_INT_H */
