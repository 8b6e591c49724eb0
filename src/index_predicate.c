/*-------------------------------------------------------------------------
 *
 * index_predicate.c
 *	  Sparse inverted indexes: create_inverted_index(..., predicate => '...')
 *	  indexes only the rows for which a boolean expression over the base
 *	  table's columns is true, as a partial index does.
 *
 * The predicate is checked as PostgreSQL checks a partial index's WHERE
 * clause (no subqueries, aggregates, window or set-returning functions,
 * only immutable functions, the base table's own columns) and stored in
 * the registry as text, deparsed with every object qualified (so that it
 * means the same under any search_path, and survives pg_dump by name).
 * Each reader parses it again against the relation at hand (the base
 * table, a partition with its own column order, a transition table's
 * rowtype) with the search_path pinned to pg_catalog, pg_temp.
 *
 * Where rows are read with SQL (backfills, verify, the write API's
 * RETURNING), the predicate is one more output column; where they come as
 * slots (the triggers' transition tables), it is evaluated by an
 * ExprState.  Either way index_row() gets its truth value as the base
 * row's value after the registry columns (index_rule.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "parser/parse_collate.h"
#include "parser/parse_expr.h"
#include "parser/parse_relation.h"
#include "parser/parser.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_predicate.h"

struct IndexPredicateState
{
	EState	   *estate;
	ExprState  *state;
	ExprContext *econtext;
};

/*
 * An error's position is one in the predicate's text, not in the query
 * that passed it: say so, as errors inside a function's body do.
 */
static void
predicate_error_callback(void *arg)
{
	int			pos = geterrposition();

	if (pos > 0)
	{
		errposition(0);
		internalerrposition(pos);
		internalerrquery((const char *) arg);
	}
	errcontext("predicate of an inverted index");
}

/* The one expression of "SELECT (source)", or an error. */
static Node *
raw_predicate(const char *source)
{
	List	   *stmts;
	SelectStmt *sel;
	char	   *sql = psprintf("SELECT (%s)", source);
	ErrorContextCallback callback;

	callback.callback = predicate_error_callback;
	callback.arg = sql;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	stmts = raw_parser(sql, RAW_PARSE_DEFAULT);
	error_context_stack = callback.previous;
	if (list_length(stmts) == 1 && IsA(((RawStmt *) linitial(stmts))->stmt, SelectStmt))
	{
		sel = (SelectStmt *) ((RawStmt *) linitial(stmts))->stmt;
		if (sel->op == SETOP_NONE && list_length(sel->targetList) == 1 &&
			sel->fromClause == NIL && sel->whereClause == NULL && sel->groupClause == NIL &&
			sel->havingClause == NULL && sel->windowClause == NIL && sel->valuesLists == NIL &&
			sel->sortClause == NIL && sel->limitOffset == NULL && sel->limitCount == NULL &&
			sel->lockingClause == NIL && sel->withClause == NULL && sel->distinctClause == NIL &&
			sel->intoClause == NULL)
			return ((ResTarget *) linitial(sel->targetList))->val;
	}
	ereport(ERROR,
			(errcode(ERRCODE_SYNTAX_ERROR),
			 errmsg("the predicate of an inverted index must be one expression"),
			 errdetail("It was: %s", source)));
	return NULL;				/* keep the compiler quiet */
}

static bool
only_user_columns(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if (v->varattno <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("the predicate of an inverted index may use only the table's own columns"),
					 errdetail("System columns and whole rows change when a row moves.")));
		return false;
	}
	return expression_tree_walker(node, only_user_columns, context);
}

/*
 * The predicate over rel, transformed, of type boolean.  search_path is
 * the caller's when the text comes from the user, pinned otherwise.
 */
static Node *
transform_predicate(const char *source, Relation rel)
{
	ParseState *pstate = make_parsestate(NULL);
	ParseNamespaceItem *nsitem;
	Node	   *expr;
	Node	   *raw = raw_predicate(source);
	ErrorContextCallback callback;

	pstate->p_sourcetext = psprintf("SELECT (%s)", source);
	callback.callback = predicate_error_callback;
	callback.arg = (void *) pstate->p_sourcetext;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	nsitem = addRangeTableEntryForRelation(pstate, rel, AccessShareLock, NULL, false, true);
	addNSItemToQuery(pstate, nsitem, false, true, true);
	expr = transformExpr(pstate, raw, EXPR_KIND_INDEX_PREDICATE);
	expr = coerce_to_boolean(pstate, expr, "predicate");
	assign_expr_collations(pstate, expr);
	error_context_stack = callback.previous;
	free_parsestate(pstate);
	(void) only_user_columns(expr, NULL);
	return expr;
}

char *
index_predicate_canonical(Oid baserel, const char *source)
{
	Relation	rel = table_open(baserel, AccessShareLock);
	Node	   *expr;
	int			nest;
	char	   *text;

	/* read with adjlist's operators at hand, whatever the caller's path */
	nest = NewGUCNestLevel();
	(void) set_config_option("search_path",
							 psprintf("pg_catalog, %s, pg_temp",
									  adjlist_catalog()->nspname),
							 PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
	expr = transform_predicate(source, rel);
	AtEOXact_GUC(true, nest);

	if (contain_mutable_functions((Node *) expression_planner((Expr *) expr)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("functions in the predicate of an inverted index must be marked IMMUTABLE")));
	/* every object not in pg_catalog is written with its schema */
	nest = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	text = deparse_expression(expr, deparse_context_for(RelationGetRelationName(rel), baserel),
							  false, false);
	AtEOXact_GUC(true, nest);
	table_close(rel, NoLock);
	return text;
}

/* Collect the names of the columns a raw expression refers to. */
static bool
column_names(Node *node, List **names)
{
	if (node == NULL)
		return false;
	if (IsA(node, ColumnRef))
	{
		List	   *fields = ((ColumnRef *) node)->fields;
		Node	   *last = llast(fields);

		if (IsA(last, String))
			*names = lappend(*names, pstrdup(strVal(last)));
		return false;
	}
	return raw_expression_tree_walker(node, column_names, (void *) names);
}

List *
index_predicate_columns(const char *predicate)
{
	List	   *names = NIL;

	(void) column_names(raw_predicate(predicate), &names);
	return names;
}

Expr *
index_predicate_expr(const char *predicate, Relation rel)
{
	int			nest = NewGUCNestLevel();
	Node	   *expr;

	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	expr = transform_predicate(predicate, rel);
	AtEOXact_GUC(true, nest);
	return expression_planner((Expr *) expr);
}

IndexPredicateState *
index_predicate_begin(const char *predicate, Relation rel)
{
	IndexPredicateState *s = palloc(sizeof(IndexPredicateState));
	Expr	   *expr = index_predicate_expr(predicate, rel);
	MemoryContext old;

	s->estate = CreateExecutorState();
	old = MemoryContextSwitchTo(s->estate->es_query_cxt);
	s->state = ExecInitQual(list_make1(expr), NULL);
	MemoryContextSwitchTo(old);
	s->econtext = GetPerTupleExprContext(s->estate);
	return s;
}

bool
index_predicate_check(IndexPredicateState *s, TupleTableSlot *slot)
{
	bool		result;

	s->econtext->ecxt_scantuple = slot;
	result = ExecQual(s->state, s->econtext);
	ResetExprContext(s->econtext);
	return result;
}

void
index_predicate_end(IndexPredicateState *s)
{
	FreeExecutorState(s->estate);
	pfree(s);
}

char *
index_predicate_sql(const char *predicate)
{
	if (predicate == NULL)
		return "true";
	return psprintf("COALESCE((%s), false)", predicate);
}
