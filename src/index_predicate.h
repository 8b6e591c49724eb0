/*-------------------------------------------------------------------------
 *
 * index_predicate.h
 *	  The predicate of a sparse inverted index (index_predicate.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_PREDICATE_H
#define ADJLIST_INDEX_PREDICATE_H

#include "postgres.h"

#include "access/htup.h"
#include "access/tupdesc.h"
#include "executor/tuptable.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "utils/relcache.h"

#include "registry.h"

/*
 * A predicate the user gave (or pg_restore brought) for a base table,
 * checked (boolean, immutable, the table's own columns, no subqueries) and
 * bound: the result is the transformed expression, nodeToString(), that
 * names what it calls by OID; *text gets it deparsed, every object outside
 * pg_catalog qualified.
 */
extern char *index_predicate_bind(Oid baserel, const char *source, char **text);

/*
 * Record that the index table (and the counter table, if valid) depend on
 * the functions, operators, types and collations of a bound predicate.
 */
extern void index_predicate_depend(Oid indexrel, Oid counterrel, const char *bound);

/*
 * Bind the predicates of the registrations of baserel (of every table, when
 * InvalidOid) that have text but no bound form: registry rows that
 * pg_restore brought (index_restore.c; with --disable-triggers, when the
 * registry's triggers are enabled again, index_guard.c).
 */
extern void index_predicate_bind_missing(Oid baserel);

/*
 * After pg_upgrade (a bound predicate made in another cluster, whose OIDs
 * it names): ix's predicate bound again from its text, in memory, as the
 * owner and running none of its code; NULL if it cannot be bound (any
 * error, but a cancel, stays there), or, with *deferred set, if another
 * role's table is locked by a session and this one must not wait.  index_predicate_persist() writes ix's predicate so
 * bound, and its pg_depend entries, when the transaction can write and no
 * other session is writing it.
 */
extern char *index_predicate_rebind(const IndexDef *ix, bool *deferred);
extern void index_predicate_persist(const IndexDef *ix);

/*
 * Bind again and write back every predicate bound in another cluster,
 * waiting for sessions doing the same on the current role's own tables
 * (another role's are skipped when they cannot be locked at once, and
 * left to a later session): before DDL that could rename or drop what one
 * names (a no-op once none is left).
 */
extern void index_predicate_rebind_all(void);

/*
 * A bound predicate deparsed now, as the registry's predicate column has
 * it (NULL if baserel is gone).  Takes no lock on baserel.
 */
extern char *index_predicate_text(Oid baserel, const char *bound);

/* Has a column a bound predicate reads been dropped or changed its type? */
extern bool index_predicate_columns_changed(Oid baserel, const char *bound);

/*
 * The first virtual generated column (PostgreSQL 18) a bound predicate
 * reads, or NULL: create_inverted_index() refuses such a predicate.
 */
extern char *index_predicate_virtual_column(Oid baserel, const char *bound);

/*
 * After DDL that renames or moves objects: write the registry's text of
 * each bound predicate that no longer deparses to it.  Locks no base
 * table: any role's RENAME runs it.
 */
extern void index_predicate_refresh(void);

/* The column names a predicate's text uses (a parse, no catalog lookup). */
extern List *index_predicate_columns(const char *predicate);

/*
 * Evaluating the bound predicate of ix on slots of rel's rowtype (rel: the
 * base table or a partition of it).
 */
typedef struct IndexPredicateState IndexPredicateState;
extern IndexPredicateState *index_predicate_begin(const IndexDef *ix, Relation rel);
extern bool index_predicate_check(IndexPredicateState *s, TupleTableSlot *slot);
extern void index_predicate_end(IndexPredicateState *s);

/*
 * Rows read with SQL: index_predicate_select() is what to add to a SELECT
 * list for ix's predicate ("" without one): the columns it reads, by name,
 * each once; index_predicate_begin_sql() evaluates it on those columns of a
 * result row, the first at column number first (NULL without a predicate,
 * for which index_predicate_check_row() is true).
 */
extern char *index_predicate_select(const IndexDef *ix);
extern IndexPredicateState *index_predicate_begin_sql(const IndexDef *ix);
extern bool index_predicate_check_row(IndexPredicateState *s, HeapTuple tup, TupleDesc desc,
									  int first);

#endif							/* ADJLIST_INDEX_PREDICATE_H */
