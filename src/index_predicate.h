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

#include "executor/tuptable.h"
#include "nodes/pg_list.h"
#include "nodes/primnodes.h"
#include "utils/relcache.h"

/*
 * The text to store of a predicate the user gave for a base table:
 * checked (boolean, immutable, the table's own columns, no subqueries)
 * and deparsed with every object outside pg_catalog qualified.
 */
extern char *index_predicate_canonical(Oid baserel, const char *source);

/* The column names a stored predicate uses (a parse, no catalog lookup). */
extern List *index_predicate_columns(const char *predicate);

/* A stored predicate over rel's columns, planned (search_path pinned). */
extern Expr *index_predicate_expr(const char *predicate, Relation rel);

/* Evaluating a stored predicate on slots of rel's rowtype. */
typedef struct IndexPredicateState IndexPredicateState;
extern IndexPredicateState *index_predicate_begin(const char *predicate, Relation rel);
extern bool index_predicate_check(IndexPredicateState *s, TupleTableSlot *slot);
extern void index_predicate_end(IndexPredicateState *s);

/*
 * The predicate as a boolean SQL expression (never NULL), for statements
 * adjlist runs as the table's owner with search_path pinned; "true" when
 * there is none.
 */
extern char *index_predicate_sql(const char *predicate);

#endif							/* ADJLIST_INDEX_PREDICATE_H */
