/*-------------------------------------------------------------------------
 *
 * graph.h
 *	  Reading a graph stored as an adjacency list: declarations shared by
 *	  graph_meta.c (what a table looks like), graph_reader.c and
 *	  graph_scan_*.c (the edge scan), graph_query.c (one-hop functions),
 *	  graph_traverse.c (multi-hop functions), graph_weighted.c
 *	  (weighted shortest paths), graph_columns.c (keys-only twins of
 *	  the one-hop functions, chosen by the planner) and
 *	  graph_neighbor_scan.c (the planner's streaming scan of a one-hop
 *	  call in FROM).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_GRAPH_H
#define ADJLIST_GRAPH_H

#include "postgres.h"

#include "access/attnum.h"
#include "fmgr.h"
#include "nodes/execnodes.h"
#include "utils/array.h"
#include "utils/jsonb.h"

#include "adjlist.h"

/* What a table's graph looks like to the scan functions. */
typedef struct GraphTable
{
	Oid			baserel;
	Oid			keytype;		/* adjkey */
	char		relkind;
	bool		direct;			/* a local heap with a btree on (pk, sk, ...) */
	Oid			base_keyindex;	/* btree on (pk, sk, ...): the primary key */
	bool		base_key_is_edge;	/* that btree's key is (pk, sk): one row
									 * per edge, found by its two keys */
	bool		key_shared;		/* the table's key has columns after (pk,
								 * sk): rows may share an edge's two keys */
	AttrNumber	base_pk;		/* partition key column of the base table */
	AttrNumber	base_sk;		/* sort key column */
	AttrNumber	base_data;		/* the payload column (set_payload_column,
								 * "data" by default) if a jsonb one, or 0 */
	char	   *base_name;		/* schema-qualified, quoted */
	char	   *pk_name;		/* quoted column names */
	char	   *sk_name;
	char	   *data_name;		/* the payload column, quoted (NULL if none) */
	char	   *payload;		/* its name, unquoted, set or not */
	char	   *ttl;			/* the expiry column (set_ttl), or NULL; an
								 * index projects it under the same name */
	Oid			ttl_type;

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
	AttrNumber	inv_data;		/* the projected payload column, or 0 */
	char	   *inv_name;
	char	   *inv_pk_name;	/* quoted column names */
	char	   *inv_sk_name;
	bool		inv_sparse_only;	/* no index holds every edge, but a sparse
									 * one flips the key (for the error) */

	/*
	 * The role graph_table_get() found to have SELECT on the whole table,
	 * or InvalidOid, and SharedInvalidMessageCounter then: while no
	 * invalidation has been processed since, graph_check_select() for that
	 * role has its answer (the catalogs it would read are as they were).
	 */
	Oid			select_role;
	uint64		select_inval;

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

/*
 * Which rows are edges and how their keys map to node keys (README, "Edges
 * and nodes"), and which of those edges a call follows: with a filter, only
 * those whose data contains it (jsonb @>); an edge without data never does.
 */
typedef struct EdgeConvention
{
	const char *edge_prefix;	/* the prefix of an edge's sort key */
	int			eplen;
	const char *target_prefix;	/* prepended to the rest to name the target */
	int			tplen;
	bool		sk_is_target;	/* the sort key is the target itself */
	Jsonb	   *filter;			/* edge_filter, or NULL: every edge */
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
	int64		limit;			/* <= 0: no limit (counts only edges that pass
								 * the filter: graph_row_is_edge) */
	bool		want_data;		/* the edge's data where it is at hand: in
								 * reverse, when the index projects it */
	bool		need_data;		/* the edge's data in any case: in reverse,
								 * read from the base row when the index does
								 * not project it */
} GraphScan;

/* graph_meta.c */
extern GraphTable *graph_table_get(Oid relid, bool need_inverted);
extern bool graph_require_some_select(Oid relid);
extern void graph_check_data(GraphTable *g, const char *what);
/* called by the library's relcache callback (catalog.c) */
extern void graph_meta_relcache_invalidate(Oid relid);

/* graph_estimate.c */
extern double graph_prefix_rows(Oid relid, AttrNumber att, const char *prefix, int len);

/* graph_reader.c */
typedef struct GraphReader GraphReader;

extern int	adjlist_max_memory;
extern GraphReader *graph_reader_begin(GraphTable *g);

typedef struct GraphStream GraphStream;

extern GraphStream *graph_stream_begin(GraphTable *g, const GraphScan *req);
extern bool graph_stream_next(GraphStream *s, GraphEdge *edge);
extern void graph_stream_end(GraphStream *s);
extern int64 graph_reader_scan(GraphReader *r, const GraphScan *req,
							   GraphEdgeCallback cb, void *arg);
extern void graph_reader_any_order(GraphReader *r);
struct NodeSet;
extern void graph_reader_skip_known(GraphReader *r, struct NodeSet *set);
extern void graph_reader_end(GraphReader *r);
extern int64 graph_reader_scan_one(GraphReader *r, const GraphScan *req,
								   GraphEdgeCallback cb, void *arg);
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
extern Jsonb *graph_filter_arg(FunctionCallInfo fcinfo, int argno);
extern int64 graph_limit_arg(FunctionCallInfo fcinfo, int argno);
extern bool graph_args_null(FunctionCallInfo fcinfo, int n);
extern bool graph_data_contains(Datum data, bool isnull, Jsonb *filter,
								MemoryContext scratch);
extern const char *graph_scan_partition(const GraphScan *req, int *len);

/* (inline: the scans test every row they read) */
/*
 * The longest sort key of an out-edge that names a target: one longer
 * would make the target (target prefix + the rest after the edge prefix)
 * longer than any key may be.  ADJKEY_MAX_BYTES when every key fits.
 */
static inline int
graph_edge_max_sklen(const EdgeConvention *conv)
{
	if (conv->sk_is_target || conv->tplen <= conv->eplen)
		return ADJKEY_MAX_BYTES;
	return ADJKEY_MAX_BYTES - (conv->tplen - conv->eplen);
}

/*
 * Is a row the scan of a node found (its sort key of sklen bytes, with the
 * edge prefix) an edge of the convention, one graph_edge_neighbor() names a
 * neighbor for?  Not when nothing follows the edge prefix (an item whose
 * sort key is the prefix itself, 'FOLLOWS#', names no target), nor when the
 * target would be longer than any key may be.  In-edges and sk_is_target
 * rows always are.  The scans count only edges against a limit
 * (GraphScan.limit): a row that is none is handed over uncounted, so a page
 * of lim edges has lim edges whatever rows lie between them.
 */
static inline bool
graph_row_is_edge(const EdgeConvention *conv, bool reverse, int sklen)
{
	if (reverse || conv->sk_is_target)
		return true;
	return sklen > conv->eplen && sklen <= graph_edge_max_sklen(conv);
}

/* graph_dynamo_query.c: exclusive start keys, the cursor of paged calls */
extern int	graph_key_member_role(const char *name, int len, const char *const *keycols,
								  int ncols);
extern void graph_start_key_check_object(Jsonb *esk);
extern void graph_start_key_check_members(Jsonb *esk, const char *const *names, int n);
extern char *graph_start_key_member(Jsonb *esk, const char *const *names, int n, int i,
									bool required);
/* raises 22023: "the provided starting key is invalid" (does not return) */
extern void graph_invalid_start_key(const char *detail);

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
	NodeKey		key;			/* the node's bytes, in the set's arena */
	int32		id;
	int32		depth;
	int32		parent;			/* id of the node it was reached from, or -1 */
	int64		score;
} GNode;

typedef struct NodeEntry NodeEntry;

typedef struct NodeSet
{
	NodeEntry  *table;			/* hash, id, short keys (graph_nodes.c) */
	uint32		mask;			/* buckets - 1 */
	GNode	  **byid;			/* id -> node */
	int32		n;
	int32		cap;
	GNode	   *nodes;			/* the current block of GNodes */
	int32		nodes_free;		/* unused GNodes left in it */
	char	   *arena;			/* the current block of key bytes */
	Size		arena_free;		/* unused bytes left in it */
	MemoryContext cxt;			/* the set's memory */
	MemoryContext charged;		/* what graph_charge() checks */
	const char *what;			/* the function, for the error message */
} NodeSet;

extern void nodeset_init(NodeSet *set, MemoryContext parent, const char *what);
extern GNode *nodeset_find(NodeSet *set, const char *data, int len);
extern GNode *nodeset_add(NodeSet *set, const char *data, int len, bool *isnew);
extern uint32 nodeset_hash(const char *data, int len);
extern int32 nodeset_find_id(NodeSet *set, const char *data, int len);
extern GNode *nodeset_find_hashed(NodeSet *set, const char *data, int len, uint32 hash);
extern GNode *nodeset_add_with_hash(NodeSet *set, const char *data, int len, uint32 hash,
									bool *isnew);

/* Keys waiting to be added to a set together (graph_nodes.c: Batches). */
#define NODE_BATCH 32
#define NODE_BATCH_BYTES 8192	/* at least 2 x ADJKEY_MAX_BYTES */

typedef struct NodeBatch
{
	int			n;
	int			used;			/* bytes in use */
	int			off[NODE_BATCH];
	int			len[NODE_BATCH];
	int			origin[NODE_BATCH];
	char		bytes[NODE_BATCH_BYTES];
} NodeBatch;

static inline bool
nodebatch_full(const NodeBatch *b, int len)
{
	return b->n == NODE_BATCH || b->used + len > NODE_BATCH_BYTES;
}

typedef bool (*NodeBatchCallback) (void *arg, NodeSet *set, int32 id, int origin);

extern void nodebatch_push(NodeBatch *b, const char *data, int len, int origin);
extern bool nodeset_add_batch(NodeSet *set, NodeBatch *b, NodeBatchCallback cb, void *arg);

/* A callback of expansion: nb is the neighbor, origin the expanded node's index. */
typedef bool (*NeighborCallback) (void *arg, const char *nb, int nblen, int origin,
								  bool reverse, const GraphEdge *edge);

extern void graph_expand_level(GraphReader *rd, const EdgeConvention *conv, Direction dir,
							   GNode **nodes, int n, NeighborCallback cb, void *arg);
extern void graph_expand(GraphReader *rd, const EdgeConvention *conv, Direction dir,
						 const char *node, int nodelen, NeighborCallback cb, void *arg);
extern GraphTable *graph_open(Oid relid, Direction dir, bool want_data);
extern ArrayType *graph_path_array(GraphTable *g, NodeSet *set, GNode *node);

/* graph_query.c: a call of a one-hop function, read in batches or at once */
typedef enum NeighborColumns
{
	COLUMNS_ALL,				/* neighbors(), reverse_neighbors() */
	COLUMNS_KEYS,				/* the keys-only twins: data NULL */
	COLUMNS_NODE				/* the node-only twins: only neighbor */
} NeighborColumns;

typedef struct NeighborCall
{
	Oid			relid;
	NeighborColumns cols;
	EdgeConvention conv;
	GraphScan	req;			/* req.after and req.limit change per batch */
	int64		limit;			/* the call's (0: none) */
	int64		handed;			/* edges the batches counted so far */
	bool		done;			/* no batch left */
	bool		key_shared;		/* rows may share an edge's keys: one batch */
	GraphTable *g;				/* from neighbor_call_begin to the first batch */
	char	   *resume;			/* the scan key of the last edge read (NULL
								 * until a batch or a start key needs it) */
	int			resumelen;
	struct varlena *nbkey;		/* a row's neighbor key (NULL until needed) */
	char	   *tbuf;			/* target_prefix + rest, for each row */
	MemoryContext rowcxt;		/* keys the scan gave as bytes only (or NULL
								 * before the first such row) */
	MemoryContext cxt;			/* the call's, outliving its batches */
	struct GraphStream *stream; /* reading one edge at a time, or NULL */
} NeighborCall;

/*
 * Takes a row (neighbor, pk, sk, data), valid only during the call; false
 * when the batch would rather end (a batch that cannot end early, of a
 * call read at once, goes on: put must take every row).
 */
typedef bool (*NeighborPut) (void *arg, Datum *values, bool *nulls);

extern bool neighbor_call_begin(FunctionCallInfo fcinfo, bool reverse, NeighborColumns cols,
								NeighborCall *call);
extern void neighbor_call_batch(NeighborCall *call, int64 max_edges, NeighborPut put, void *arg);
extern bool neighbor_call_stream(NeighborCall *call);
extern bool neighbor_call_next(NeighborCall *call, Datum *values, bool *nulls);
extern void neighbor_call_end(NeighborCall *call);
extern bool neighbor_function_kind(PGFunction fn, bool *reverse, NeighborColumns *cols);

/* graph_neighbor_scan.c: the custom scan of a one-hop call in FROM */
extern bool adjlist_enable_neighbor_scan;
extern void graph_neighbor_scan_init(void);

/* graph_columns.c: keys-only twins of neighbors() and reverse_neighbors() */
struct SupportRequestSimplify;
extern Node *graph_columns_simplify(struct SupportRequestSimplify *req);
extern const char *graph_columns_estimated_as(const char *fn);
extern void graph_columns_check_twin(FunctionCallInfo fcinfo);
extern void graph_columns_proc_invalidate(void);

/*
 * Whether the executor passed the row type it expects from a set-returning
 * function (it does in FROM and in a select list, for a row type): then
 * InitMaterializedSRF(MAT_SRF_USE_EXPECTED_DESC) copies it instead of
 * building it from pg_proc on every call.
 */
static inline bool
rsinfo_has_expected_desc(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	return rsinfo != NULL && IsA(rsinfo, ReturnSetInfo) && rsinfo->expectedDesc != NULL;
}

#endif							/* ADJLIST_GRAPH_H */
