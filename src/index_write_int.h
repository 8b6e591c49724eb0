/*-------------------------------------------------------------------------
 *
 * index_write_int.h
 *	  Inside the index writer: the IndexWriter both of its paths fill, and
 *	  the SQL path (index_write_sql.c) as the writer (index_write.c) calls it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_WRITE_INT_H
#define ADJLIST_INDEX_WRITE_INT_H

#include "access/heapam.h"
#include "executor/execdesc.h"
#include "nodes/execnodes.h"
#include "utils/rel.h"

#include "index_write.h"

#define WRITE_BATCH 1000		/* rows per table_multi_insert() */
#define SQL_BATCH 10000			/* rows per statement of a bulk SQL write */

struct IndexWriter
{
	Relation	rel;
	WriteMode	mode;
	int			ncols;
	int			nkeys;
	AttrNumber *attnos;			/* column i -> attribute of rel */
	Oid		   *types;
	int16	   *typlens;
	bool	   *typbyvals;
	bool		direct;
	bool		multiset;		/* deferrable key: WRITE_APPEND */
	bool		citus;			/* a table Citus distributes */

	/* the executor path */
	Oid			keyindex;
	MemoryContext cxt;			/* the caller's, at index_writer_begin() */
	EState	   *estate;			/* made at the first write that needs it:
								 * direct_executor() */
	EPQState	epqstate;		/* for BEFORE ROW triggers of the index table, as
								 * the replication worker passes one */
	ResultRelInfo *rri;
	List	   *arbiters;		/* the key index, for speculative inserts */
	bool		speculative;	/* upserts insert first (see direct_put()) */
	uint32		token;			/* the speculative insertion lock held, or 0
								 * (see direct_insert_speculative()) */
	TransactionId token_xid;	/* and the transaction id it was taken for */
	bool		runs_code;		/* WriterInfo's */
	bool		after_rows;		/* the table has AFTER ROW triggers (see
								 * "After-row triggers") */
	bool		wrote;			/* since the last CommandCounterIncrement() */
	bool		indexes_open;	/* ExecOpenIndices(), at the first write that
								 * inserts index entries */
	int			nscankeys;		/* WriterInfo's look-up by keyindex, or 0 */
	AttrNumber *scanattnos;
	ScanKeyData *scankeys;
	TupleTableSlot *searchslot;
	TupleTableSlot *foundslot;
	TupleTableSlot *newslot;
	bool		buffered;		/* table_multi_insert() batches */
	TupleTableSlot **batch;
	int			nbatch;
	BulkInsertState bistate;

	/* the SQL path */
	char	   *bulk_sql;		/* INSERT ... SELECT FROM unnest($1::t1[], ...):
								 * see index_write_sql.c */
	Oid		   *arraytypes;
	MemoryContext bufcxt;		/* rows buffered for bulk_sql */
	Datum	  **bufvals;		/* [column][row] */
	bool	  **bufnulls;
	int			nbuf;
	int			bufsize;		/* rows per bulk_sql statement */
	char	   *insert_sql;
	char	   *delete_sql;
	char	   *delete_one_sql;	/* a multiset: one row equal to the whole row */
	char	   *insert_new_sql;	/* a multiset: insert unless its key is there */
	char	   *delete_returning_sql;	/* by key, returning the other columns */
	char	   *remove_first_sql;	/* upsert without a unique key: delete, insert */
	char	   *remove_all_sql;	/* index_writer_remove_all()'s, built at first use */
	int			remove_all_n;
	int		   *remove_all_cols;
	Oid		   *remove_all_types;
};

/*
 * The SQL path (index_write_sql.c): the statements of a writer that does
 * not take the executor path, built by index_sql_build() at the start.
 */
extern void index_sql_build(IndexWriter *w, char **colnames, bool unique_key, bool deferrable,
							bool bulk);
/* a row buffered for the bulk statement (w->bulk_sql), sent when full */
extern void index_sql_buffer(IndexWriter *w, Datum *values, bool *nulls);
/* send the buffered rows */
extern void index_sql_flush(IndexWriter *w);
extern void index_sql_put(IndexWriter *w, Datum *values, bool *nulls);
extern bool index_sql_remove(IndexWriter *w, Datum *values, bool *nulls);
extern bool index_sql_rewrite(IndexWriter *w, Datum *oldvalues, bool *oldnulls, Datum *values,
							  bool *nulls);
extern void index_sql_remove_all_setup(IndexWriter *w, int n, const int *cols);

#endif							/* ADJLIST_INDEX_WRITE_INT_H */
