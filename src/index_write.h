/*-------------------------------------------------------------------------
 *
 * index_write.h
 *	  Writing the rows of a table that adjlist maintains (an index table, a
 *	  counter table): the one writer the triggers, the write API and the
 *	  maintenance functions share.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_WRITE_H
#define ADJLIST_INDEX_WRITE_H

#include "postgres.h"

typedef struct IndexWriter IndexWriter;
struct _SPI_plan;

typedef enum WriteMode
{
	WRITE_UPSERT,				/* a row with the same key is replaced */
	WRITE_APPEND,				/* plain inserts (counter deltas, a multiset
								 * key, a table known to be empty) */
	WRITE_IF_ABSENT				/* a row whose key is there is skipped (a
								 * concurrent build's backfill, which holds
								 * the base rows it writes the index rows of,
								 * so that nobody else inserts their keys) */
} WriteMode;

/*
 * Start writing relid, whose columns colnames[0..ncols) get the values;
 * the first nkeys of them identify a row.  The caller acts as the table's
 * owner (adjlist_become()) from here to index_writer_end(), and is
 * connected to SPI if the table may need it.  bulk: many rows are coming,
 * buffer them.
 */
extern IndexWriter *index_writer_begin(Oid relid, char **colnames, int ncols,
									   int nkeys, WriteMode mode, bool bulk);

/* Insert a row (values in column order), or replace the one with its key. */
extern void index_writer_put(IndexWriter *w, Datum *values, bool *nulls);

/*
 * Does the table hold a multiset of keys?  When its key index is deferrable
 * the writer appends instead of upserting (see index_write.c), and a row
 * whose other columns change is removed and put again.
 */
extern bool index_writer_multiset(IndexWriter *w);

/*
 * In a multiset: insert the row unless a row with its key is there (then
 * false).  A statement's new row meeting a row of its key that the
 * statement did not remove is out of step (index_sync.c): appending it
 * would raise the unique violation of an immediate check that the base
 * table, whose rows are right, does not raise.
 */
extern bool index_writer_put_new(IndexWriter *w, Datum *values, bool *nulls);

/*
 * Rewrite in place the row with the key of values (the other columns
 * change; not for a multiset): only if the row there is oldvalues (the
 * same key, and its other columns those of oldvalues).  Otherwise nothing
 * is put, a row found with other columns is deleted, and false returned:
 * the table was not what the caller knew (index_sync.c says when).
 */
extern bool index_writer_rewrite(IndexWriter *w, Datum *oldvalues, bool *oldnulls,
								 Datum *values, bool *nulls);

/*
 * Delete one row with the key of the given row (values and nulls in column
 * order); in a multiset, one equal to the whole row.  False if none.
 */
extern bool index_writer_remove(IndexWriter *w, Datum *values, bool *nulls);

/*
 * Delete every row whose columns cols[0..n) (indexes into the writer's
 * columns, none null) equal values, whatever its other columns: all the
 * rows a multiset holds of one base key (index_sync.c).  The caller is
 * connected to SPI; a writer is asked for one set of columns.  Returns how
 * many were deleted.
 */
extern uint64 index_writer_remove_all(IndexWriter *w, int n, const int *cols, Datum *values);

/* Flush and close; locks are held until the end of the transaction. */
extern void index_writer_end(IndexWriter *w);

/*
 * Does writing relid in this mode take the SQL path (a partitioned or
 * foreign table, Citus, a key that is not the primary key)?  *runs_code
 * (if not NULL): can writing one of its rows run code other than core's
 * (row triggers, CHECK constraints, generated columns, expression or
 * partial indexes)?  Both are cached per table until its next relcache
 * invalidation.  The caller holds a lock on relid (the triggers lock every
 * index table before they ask).
 */
extern bool index_writer_needs_spi(Oid relid, char **colnames, int nkeys, WriteMode mode,
								   bool *runs_code);

/* Is the key index of relid deferrable (then rows form a multiset)? */
extern bool index_writer_key_deferrable(Oid relid, char **colnames, int nkeys);

/*
 * Empty relid and its partitions: TRUNCATE (core's, on the tables opened by
 * OID: no name looked up, no privilege checked), or DELETE where this
 * session still has a table open (TRUNCATE refuses that).  The caller acts
 * as the owner and is connected to SPI (a foreign table's DELETE).
 */
extern void index_writer_truncate(Oid relid);

/*
 * adjlist's own statements on an index or counter table: the only writes
 * their guard lets through.  index_execute_plan() runs a saved plan with
 * the latest snapshot (as the SQL path of the writer does); both raise an
 * error unless the statement returns "expected" (0: anything).
 */
extern bool index_writes_allowed(void);
extern int	index_execute_plan(struct _SPI_plan *plan, Datum *values, const char *nulls,
							   int expected);
extern int	index_execute_sql(const char *sql, bool read_only, int expected);

/* called by the library's relcache callback (catalog.c); writer_info.c */
extern void index_write_relcache_invalidate(Oid relid);

#endif							/* ADJLIST_INDEX_WRITE_H */
