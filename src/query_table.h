/*-------------------------------------------------------------------------
 *
 * query_table.h
 *	  The key of a table that query() and its relatives read, and the
 *	  statements they run on it, cached per session (query_table.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_QUERY_TABLE_H
#define ADJLIST_QUERY_TABLE_H

#include "postgres.h"

#include "utils/relcache.h"

/*
 * Statements are remembered per shape: kind (rows, count, counted page)
 * times sort condition (8) times start key, backward and limit (2 each).
 */
#define QUERY_SHAPES (3 * 8 * 2 * 2 * 2)

/* The key of the table query() reads. */
typedef struct QueryTable
{
	Oid			relid;
	char	   *qname;			/* schema-qualified, quoted */
	int			ncols;			/* key columns: partition, sort, others */
	char	  **cols;
	Oid		   *types;
	/*
	 * per key column: the btree operator family of its key (the primary key
	 * index's operator class, else the type's default one) and the input
	 * type of that class (text for a varchar column, the base type for a
	 * domain, anyenum for an enum...)
	 */
	Oid		   *opfamilies;
	Oid		   *opcintypes;
	/* per key column (from 1): the operators of that family, as SQL */
	char	  **lt_sql;			/* OPERATOR(schema.<) */
	char	  **gt_sql;
	char	  **eq_sql;
	char	  **cast_sql;		/* "::type" that makes the column's values the
								 * operators' input type, or "" */
	char	  **type_sql;		/* the column's type, qualified, for a cast
								 * (no type modifier: bpchar, not character) */
	int			shards;			/* write shards of a registered index table */
	bool		is_index;		/* a registered index table */
	bool		limited;		/* keys kept within DynamoDB's limits: an
								 * index table, or a table with an index
								 * (or a partition of one) */
	TransactionId index_xmin;	/* then its registry row's xmin */
	Oid			optrel;			/* the table whose options apply (the base) */
	char	   *live;			/* the items that have not expired, as SQL
								 * over t (table_options.c), or NULL */
	char	   *item_sql;		/* a row t as a jsonb object: to_jsonb(t) */
	char	   *key_sql;		/* the key columns of t as a jsonb object */
	uint64		build;			/* the build of the cache entry it was
								 * copied from (query_table_sql()) */
	Relation	rel;			/* the table, held open by the caller's copy
								 * until query_table_release() */
} QueryTable;

/*
 * The key of relid, which the caller may SELECT some of: locked
 * (AccessShareLock, to the end of the transaction), then read from the
 * cache, built again after any invalidation of the table, its base table,
 * the registry, the options or a schema.  The result is a copy in the
 * caller's memory context, never a pointer into the cache: a caller goes
 * on using it while user code runs (a type's input function, a domain's
 * CHECK, a row-level security policy, a trigger), and that code may call
 * query() again, whose rebuild of an invalidated entry, or start over at
 * the cache's bound, frees the entry's memory.
 *
 * The copy also holds the table open until query_table_release(), so that
 * such user code cannot ALTER or DROP the table under the call (PostgreSQL
 * refuses it, as for a table an active query uses: CheckTableNotInUse()).
 * An error lets go of it with the transaction's resources.
 */
extern QueryTable *query_table_get(Oid relid);
extern void query_table_release(QueryTable *q);

/*
 * The statement of shape for q, built by build(q, arg) on first use and
 * remembered in the cache entry q was copied from, while that entry is
 * still the same build (a statement of a later build is built again from
 * that build's table); returned in the caller's memory context.  build
 * must run no user code.
 */
extern char *query_table_sql(QueryTable *q, int shape,
							 char *(*build) (QueryTable *q, const void *arg),
							 const void *arg);

/* called by the library's invalidation callbacks (catalog.c) */
extern void query_table_relcache_invalidate(Oid relid);

#endif							/* ADJLIST_QUERY_TABLE_H */
