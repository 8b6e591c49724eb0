/*-------------------------------------------------------------------------
 *
 * index_rule.h
 *	  What an inverted index holds for a base row, and what its degree
 *	  counters count: the one definition of each rule.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_RULE_H
#define ADJLIST_INDEX_RULE_H

#include "postgres.h"

#include "executor/tuptable.h"
#include "utils/hsearch.h"
#include "utils/tuplestore.h"

#include "registry.h"

/*
 * The values of a base row that its index row is made of: the index's
 * registry columns (IndexDef.colnames), in order, then the value of the
 * index's predicate (a sparse index; unused without one).  Arrays of base
 * values have INDEX_BASE_LEN(ix) entries.
 */
#define INDEX_BASE_LEN(ix)		((ix)->ncols + 1)

/*
 * The index row of a base row.  base[i] / basenull[i] are the base row's
 * values (INDEX_BASE_LEN).
 * Fills row[] / rownull[] with the index row as stored (the partition key
 * under its write shard) and returns true; returns false when the row is
 * not indexed (its predicate is not true, or a key column is null: a sparse
 * index; or, a row older than the limits, its write-sharded partition key
 * would be too long to be stored).  It checks no size limit: it computes
 * the rows removed as well as the rows added, and a writer checks the rows
 * it adds with index_row_check_base().  *logical gets the partition key
 * before sharding (what the counters count).
 */
extern bool index_row(const IndexDef *ix, Datum *base, bool *basenull,
					  Datum *row, bool *rownull, Datum *logical);

/*
 * DynamoDB's limits on the keys of a table: an error (22001) with
 * DynamoDB's wording when a key of role KEY_ROLE_PARTITION has more than
 * ADJKEY_MAX_BYTES of UTF-8, or one of KEY_ROLE_SORT more than
 * ADJKEY_MAX_SORT_BYTES.  relid is the table (an inverted index's when
 * of_index), column the key column (or the attribute) named in the detail.
 * A partition key needs the check only where it is not an adjkey yet:
 * adjkey's own limit, ADJKEY_MAX_BYTES, is DynamoDB's.
 */
#define KEY_ROLE_PARTITION	0
#define KEY_ROLE_SORT		1
extern void check_key_size(Oid relid, bool of_index, int role, const char *column, int len);
/* the sort key limit on a base table's column "column" */
extern void check_base_sort_key(Oid relid, const char *column, Datum key);

/*
 * The limits on a new base row of ix's table (base values as index_row()
 * takes them): the base table's sort key, whether ix holds the row or not,
 * and, where ix holds it, the index's sort key and a write-sharded index's
 * partition key with its suffix.  An error (22001; 54000 for a shard key)
 * at the first key that breaks its limit.  Every writer calls it on the
 * rows it adds, never on the rows it removes.
 */
extern void index_row_check_base(const IndexDef *ix, Datum *base, bool *basenull);

/*
 * The same without an error: false when the row keeps every limit, else
 * true with the first key that breaks one (what verify_inverted_index()
 * reports).
 */
typedef struct KeyBreach
{
	Oid			relid;			/* the base table, or the index table */
	bool		of_index;		/* a key of the index table */
	bool		partition;		/* its partition key (write-sharded), else
								 * a sort key */
	const char *column;			/* the registry column */
	int			len;			/* its bytes of UTF-8 (with a shard suffix) */
	int			limit;
} KeyBreach;
extern bool index_row_breach(const IndexDef *ix, Datum *base, bool *basenull, KeyBreach *kb);

/*
 * The context line of an error about a base row being added to ix (a
 * build, a backfill): "row (pk, sk)=(a, b) of table ..., for inverted index
 * ...", the key clipped (index_row_key_desc()).  Call it from an error
 * context callback.
 */
extern void index_row_errcontext(const IndexDef *ix, Datum *base, bool *basenull);

/*
 * Can ix leave a base row out (a predicate, or a key column outside the
 * base key that may be NULL)?  Then index_row() does not see every row,
 * and a build checks the others with index_row_check_base().
 */
extern bool index_skips_rows(const IndexDef *ix);

/* The base key of a base row, for an error: "(pk, sk)=(a, b)", clipped. */
extern char *index_row_key_desc(const IndexDef *ix, Datum *base, bool *basenull);

/* The registry columns of ix as attribute numbers of a tuple descriptor. */
extern AttrNumber *index_row_attnos(const IndexDef *ix, TupleDesc desc);

/*
 * Extract the base values of ix from a slot; pred evaluates ix's predicate
 * on it (index_predicate_begin() over the slot's relation), NULL when ix
 * has none.
 */
struct IndexPredicateState;
extern void index_row_extract(const IndexDef *ix, const AttrNumber *attnos,
							  struct IndexPredicateState *pred,
							  TupleTableSlot *slot, Datum *base, bool *basenull);

/* Are columns [from, to) of two index rows the same bytes? */
extern bool index_row_equal(const IndexDef *ix, int from, int to, Datum *a, bool *anull,
							Datum *b, bool *bnull);

/*
 * Degree counters.  An index row with partition key P (before sharding)
 * and sort key S is an out-edge of S and, when P has a second part, an
 * in-edge of the rest of P, both under the edge name: P's first part.
 * Deltas are summed in a Counts table and written as insert-only rows.
 */
typedef struct Counts Counts;

extern Counts *counts_create(const IndexDef *ix);
/* Send flushed counts to a tuplestore (node, edge, direction, n) instead. */
extern void counts_set_sink(Counts *c, Tuplestorestate *ts, TupleDesc desc);
extern void counts_add(Counts *c, Datum logical_partition, Datum sort_key, int64 delta);
extern void counts_flush(Counts *c);	/* the caller acts as the owner */
extern void counts_destroy(Counts *c);

/* An edge name as edge_count() and the counters spell it, or an error. */
extern text *counts_edge_name(text *edge);

/*
 * Every row of a base table (or of one of its partitions), as its owner
 * sees it without row-level security, in batches: cb gets the values of
 * ix's registry columns.  The caller is connected to SPI and acts as the
 * owner.  cb gets INDEX_BASE_LEN(ix) values, the predicate's included.
 * latest: read with the latest snapshot (the caller holds a lock
 * that keeps writers out, taken after its own snapshot), else with the
 * active one (to compare with other reads of the same query).  all_rows:
 * the rows a sparse index leaves out too (the predicate's value tells
 * them apart), else only the rows its predicate is true for.
 */
typedef void (*BaseRowCallback) (void *arg, Datum *base, bool *basenull);

extern void base_scan(Oid relid, const IndexDef *ix, bool latest, bool all_rows,
					  BaseRowCallback cb, void *arg);

/*
 * The same rows read in C (base_scan.c), with no privilege check and no
 * row-level security: for the DDL and TRUNCATE of members and the TRUNCATE
 * of the base table, which must not depend on the owner's privileges.  A
 * foreign member is still read with base_scan().  Same contract otherwise.
 */
extern void base_scan_direct(Oid relid, const IndexDef *ix, bool latest, bool all_rows,
							 BaseRowCallback cb, void *arg);

#endif							/* ADJLIST_INDEX_RULE_H */
