/*-------------------------------------------------------------------------
 *
 * graph.h
 *	  Reading a graph stored as an adjacency list: declarations shared by
 *	  graph_meta.c (what a table looks like), graph_source.c (the edge
 *	  scan), graph_query.c (one-hop functions) and graph_traverse.c
 *	  (multi-hop functions).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_GRAPH_H
#define ADJLIST_GRAPH_H

#include "postgres.h"

#include "access/attnum.h"
#include "fmgr.h"
#include "utils/array.h"

/* What a table's graph looks like to the scan functions. */
typedef struct GraphTable
{
	Oid			baserel;
	Oid			keytype;		/* adjkey */
	char		relkind;
	bool		direct;			/* a local heap with a btree on (pk, sk, ...) */
	Oid			base_keyindex;	/* btree on (pk, sk, ...): the primary key */
	AttrNumber	base_pk;		/* partition key column of the base table */
	AttrNumber	base_sk;		/* sort key column */
	AttrNumber	base_data;		/* a jsonb column named "data", or 0 */
	char	   *base_name;		/* schema-qualified, quoted */
	char	   *pk_name;		/* quoted column names */
	char	   *sk_name;
	char	   *data_name;

	/* the inverted index (partition key = sk, sort key = pk), if any */
	Oid			inv_rel;
	bool		inv_gone;		/* dropped while this was being built */
	bool		inv_ready;		/* false while built concurrently: readers
								 * that need it refuse it */
	Oid			inv_owner;
	char		inv_relkind;
	bool		inv_direct;
	TransactionId inv_xmin;		/* of its registry row */
	Oid			inv_keyindex;	/* btree on (sk, pk, ...) */
	int			inv_shards;		/* write shards: sk is stored as sk#0..sk#N-1 */
	AttrNumber	inv_sk;
	AttrNumber	inv_pk;
	AttrNumber	inv_data;		/* a projected jsonb "data" column, or 0 */
	char	   *inv_name;
	char	   *inv_pk_name;	/* quoted column names */
	char	   *inv_sk_name;

	/* btree support of adjkey */
	RegProcedure eq_proc;
	RegProcedure lt_proc;
	RegProcedure gt_proc;
	RegProcedure ge_proc;
	Oid			eq_op;
	char	   *op_schema;		/* schema of adjkey's operators, quoted */
} GraphTable;

/*
 * One edge as the scan hands it over.  Pointers are valid only during the
 * callback.  "other" is the key at the far end: sk for a forward scan, the
 * source pk for a reverse scan.
 */
typedef struct GraphEdge
{
	const char *pk;
	int			pklen;
	const char *sk;
	int			sklen;
	Datum		data;			/* jsonb, when asked for */
	bool		data_isnull;
	Datum		pkdatum;		/* the keys as adjkey datums, or 0 */
	Datum		skdatum;
	int			origin;			/* in a level scan: the index of its node */
} GraphEdge;

/* Return false to stop the scan. */
typedef bool (*GraphEdgeCallback) (void *arg, const GraphEdge *edge);

/* How edge keys map to node keys (README, "Edges and nodes"). */
typedef struct EdgeConvention
{
	const char *edge_prefix;	/* the prefix of an edge's sort key */
	int			eplen;
	const char *target_prefix;	/* prepended to the rest to name the target */
	int			tplen;
	bool		sk_is_target;	/* the sort key is the target itself */
} EdgeConvention;

/* A scan request. */
typedef struct GraphScan
{
	bool		reverse;		/* in-edges, through the inverted index */
	const char *node;			/* the node whose edges are read */
	int			nodelen;
	const EdgeConvention *conv;
	const char *after;			/* exclusive start (sk forward, pk reverse), or NULL */
	int			afterlen;
	bool		backward;		/* descending order */
	int64		limit;			/* <= 0: no limit */
	bool		want_data;
} GraphScan;

/* graph_meta.c */
extern GraphTable *graph_table_get(Oid relid, bool need_inverted);
extern void graph_require_some_select(Oid relid);
/* called by the library's relcache callback (catalog.c) */
extern void graph_meta_relcache_invalidate(Oid relid);

/* graph_reader.c */
typedef struct GraphReader GraphReader;

extern int	adjlist_max_memory;
extern GraphReader *graph_reader_begin(GraphTable *g);
extern int64 graph_reader_scan(GraphReader *r, const GraphScan *req,
							   GraphEdgeCallback cb, void *arg);
extern void graph_reader_end(GraphReader *r);
extern void graph_reader_scan_level(GraphReader *r, const GraphScan *tmpl,
									const char **nodes, const int *lens, int n,
									GraphEdgeCallback cb, void *arg);
extern void graph_charge(MemoryContext cxt, const char *what);
extern void graph_check_select(GraphTable *g, bool want_data);
extern int64 graph_scan(GraphTable *g, const GraphScan *req,
						GraphEdgeCallback cb, void *arg);
extern bool graph_edge_neighbor(const EdgeConvention *conv, bool reverse,
								const GraphEdge *edge, const char **out,
								int *outlen, char **buf);
extern void graph_convention_from_args(EdgeConvention *conv, text *edge_prefix,
									   text *target_prefix, bool sk_is_target);

/* graph_nodes.c: node sets, directions and expansion for multi-hop calls */
extern int	adjlist_max_visited;

typedef enum Direction			/* the values of catalog.h's AdjlistDirection */
{
	DIR_OUT = 1,
	DIR_IN = 2,
	DIR_BOTH = 3
} Direction;

extern Direction graph_parse_direction(text *t, bool both_ok);
extern Direction graph_reverse_direction(Direction d);
extern int32 graph_check_depth(int32 max_depth);

typedef struct NodeKey
{
	const char *data;
	int			len;
} NodeKey;

typedef struct GNode
{
	NodeKey		key;			/* hash key: must be first */
	int32		id;
	int32		depth;
	int32		parent;			/* id of the node it was reached from, or -1 */
	int64		score;
} GNode;

typedef struct NodeSet
{
	struct HTAB *hash;
	GNode	  **byid;			/* id -> node */
	int32		n;
	int32		cap;
	MemoryContext cxt;			/* the set's memory */
	MemoryContext charged;		/* what graph_charge() checks */
	const char *what;			/* the function, for the error message */
} NodeSet;

extern void nodeset_init(NodeSet *set, MemoryContext parent, const char *what);
extern GNode *nodeset_find(NodeSet *set, const char *data, int len);
extern GNode *nodeset_add(NodeSet *set, const char *data, int len, bool *isnew);

/* A callback of expansion: nb is the neighbor, origin the expanded node's index. */
typedef bool (*NeighborCallback) (void *arg, const char *nb, int nblen, int origin,
								  bool reverse, const GraphEdge *edge);

extern void graph_expand_level(GraphReader *rd, const EdgeConvention *conv, Direction dir,
							   GNode **nodes, int n, NeighborCallback cb, void *arg);
extern void graph_expand(GraphReader *rd, const EdgeConvention *conv, Direction dir,
						 const char *node, int nodelen, NeighborCallback cb, void *arg);
extern GraphTable *graph_open(Oid relid, Direction dir, bool want_data);
extern ArrayType *graph_path_array(GraphTable *g, NodeSet *set, GNode *node);

#endif							/* ADJLIST_GRAPH_H */
