/*-------------------------------------------------------------------------
 *
 * index_predicate.c
 *	  Sparse inverted indexes: create_inverted_index(..., predicate => '...')
 *	  indexes only the rows for which a boolean expression over the base
 *	  table's columns is true, as a partial index does.
 *
 * The predicate is checked as PostgreSQL checks a partial index's WHERE
 * clause (no subqueries, aggregates, window or set-returning functions,
 * only immutable functions, the base table's own columns) and bound, as
 * core binds a partial index's predicate: the transformed expression
 * (nodeToString(), in adjlist_index_predicates) names its functions,
 * operators, types and collations by OID, and the index and counter tables
 * depend on each of them in pg_depend.  So no later name lookup decides
 * what runs as the table's owner: a function cannot be dropped from under
 * the index (2BP01 without CASCADE; CASCADE drops the index and counter
 * tables, and the sql_drop trigger unregisters them), and a renamed schema
 * or function, or a new one under the old name, changes nothing.
 *
 * The registry's predicate column keeps the text: deparsed from the bound
 * expression with every object outside pg_catalog qualified, written again
 * after DDL that renames or moves what it names (index_predicate_refresh()).
 * That text is what pg_dump carries (the bound table is not configuration:
 * OIDs do not survive a restore), and the restore binds it again
 * (index_restore.c).
 *
 * pg_upgrade is the other way OIDs go stale: it copies the bound table's
 * file as it is, but re-creates functions and operators (a binary-upgrade
 * dump) under new OIDs, and the pg_depend entries recorded here are not
 * carried.  Relation and type OIDs are kept, so the registry itself is
 * right; a bound expression would call whatever function now has the old
 * OID.  So each bound expression says which cluster it was bound in (its
 * system identifier, which a new cluster does not share), and one from
 * another cluster is never evaluated: the registry's text is bound again
 * (index_predicate_rebind()), in memory for the backend that reads it (a
 * standby, a read-only transaction), and written back with its pg_depend
 * entries where the transaction can write.  Any DDL that could rename or
 * drop what a predicate names binds every such predicate first
 * (index_predicate_rebind_all(), from the ddl_command_start trigger), so
 * that the text still names what the old expression did; another role's
 * only if its tables can be locked at once, and an error binding one is
 * no error of the DDL's.
 *
 * Binding runs as the base table's owner, in a security-restricted
 * operation with search_path pinned, as core's DefineIndex() binds a
 * partial index's predicate: whoever sets it off (a superuser restoring a
 * dump, any role's DDL after pg_upgrade) runs none of the owner's code
 * with its own rights.  Binding again from a text already checked (after
 * pg_upgrade) does not plan it, and so runs none of the owner's code.
 *
 * Evaluation is always of the bound expression, in C, never of the text
 * parsed again: on slots (the triggers' transition tables, the write API),
 * its columns mapped by name to the relation at hand (a partition may
 * order them differently); and where rows are read with SQL (backfills,
 * verify, rebuild), on the columns it reads, which the statement selects
 * by name after its own (a statement sent to Citus workers, whose catalogs
 * have other OIDs, selects plain columns).  index_row() gets its truth
 * value as the base row's value after the registry columns (index_rule.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tupdesc.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/partition.h"
#include "catalog/pg_attribute.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_coerce.h"
#include "parser/parse_collate.h"
#include "parser/parse_expr.h"
#include "parser/parse_relation.h"
#include "parser/parser.h"
#include "rewrite/rewriteManip.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "index_predicate.h"
#include "registry.h"


struct IndexPredicateState
{
	EState	   *estate;
	ExprState  *state;
	ExprContext *econtext;
	TupleTableSlot *slot;		/* of the columns read with SQL, or NULL */
	int			nvalues;		/* how many */
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

/* Run with search_path set to path until path_restore(). */
static int
path_pin(const char *path)
{
	int			nest = NewGUCNestLevel();

	(void) set_config_option("search_path", path, PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return nest;
}

static void
path_restore(int nest)
{
	AtEOXact_GUC(true, nest);
}

/*
 * A deparse context for the columns of baserel that does not open it.
 * deparse_context_for() opens the table (AccessShareLock) to read its
 * column names, and index_predicate_refresh() deparses every predicate of
 * the database after any role's RENAME: a lock on it would make that DDL
 * wait behind any session holding a lock on any base table, whoever owns
 * it (LOCK TABLE ... IN ACCESS EXCLUSIVE MODE in an open transaction).
 * The text needs only the column names, read here from the catalog as of
 * now: an RTE that is no relation (ruleutils then names its columns from
 * eref, as for a VALUES list; a predicate has no other Var), the dropped
 * columns unnamed as ruleutils names them.  NIL if baserel is gone.
 */
static List *
deparse_context_unlocked(Oid baserel)
{
	HeapTuple	reltup = SearchSysCache1(RELOID, ObjectIdGetDatum(baserel));
	char	   *relname;
	AttrNumber	natts;
	List	   *colnames = NIL;
	RangeTblEntry *rte;
	PlannedStmt *pstmt;

	if (!HeapTupleIsValid(reltup))
		return NIL;
	relname = pstrdup(NameStr(((Form_pg_class) GETSTRUCT(reltup))->relname));
	natts = ((Form_pg_class) GETSTRUCT(reltup))->relnatts;
	ReleaseSysCache(reltup);
	for (AttrNumber a = 1; a <= natts; a++)
	{
		HeapTuple	tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(baserel), Int16GetDatum(a));
		char	   *name = "";

		if (HeapTupleIsValid(tp))
		{
			Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(tp);

			if (!att->attisdropped)
				name = pstrdup(NameStr(att->attname));
			ReleaseSysCache(tp);
		}
		colnames = lappend(colnames, makeString(name));
	}
	rte = makeNode(RangeTblEntry);
	rte->rtekind = RTE_VALUES;
	rte->alias = makeAlias(relname, colnames);
	rte->eref = rte->alias;
	rte->inFromCl = true;
	pstmt = makeNode(PlannedStmt);
	pstmt->rtable = list_make1(rte);
	return deparse_context_for_plan_tree(pstmt, list_make1(relname));
}

/*
 * The text of a bound predicate over baserel: every object not in
 * pg_catalog written with its schema, as pg_get_expr() writes it.  NULL
 * if baserel is gone.
 */
static char *
deparse_bound(Node *expr, Oid baserel)
{
	List	   *context = deparse_context_unlocked(baserel);
	int			nest;
	char	   *text;

	if (context == NIL)
		return NULL;
	nest = path_pin("pg_catalog, pg_temp");
	text = deparse_expression(expr, context, false, false);
	path_restore(nest);
	return text;
}

/*
 * Bind source over baserel, as its owner in a security-restricted
 * operation with search_path pinned, as core's DefineIndex() binds an
 * index predicate: the planner that checks mutability folds constants,
 * running the predicate's IMMUTABLE functions, and the role that gets
 * here is whoever set it off (a superuser restoring a dump or enabling
 * the registry's triggers), never one the owner's code may act as.
 * check: whether to check mutability (with the planner, as core's
 * CheckMutability()); a predicate bound again from the text it was
 * checked with (after pg_upgrade) is not, so that binding it runs no
 * code at all: only names are looked up, as pg_depend's are.
 */
static char *
bind_as_owner(Oid baserel, const char *source, char **text, bool check)
{
	Relation	rel = table_open(baserel, AccessShareLock);
	AdjlistRoleSwitch role;
	Node	   *expr;
	int			nest;

	adjlist_become_restricted(rel->rd_rel->relowner, &role);
	/* read with adjlist's operators at hand, whatever the caller's path */
	nest = path_pin(psprintf("pg_catalog, %s, pg_temp", adjlist_catalog()->nspname));
	expr = transform_predicate(source, rel);
	if (check && contain_mutable_functions((Node *) expression_planner((Expr *) expr)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
				 errmsg("functions in the predicate of an inverted index must be marked IMMUTABLE")));
	path_restore(nest);
	*text = deparse_bound(expr, baserel);
	adjlist_unbecome(&role);
	table_close(rel, NoLock);
	return nodeToString(expr);
}

char *
index_predicate_bind(Oid baserel, const char *source, char **text)
{
	return bind_as_owner(baserel, source, text, true);
}

char *
index_predicate_text(Oid baserel, const char *bound)
{
	return deparse_bound(stringToNode(bound), baserel);
}

/* Has a column a bound predicate reads been dropped or changed its type? */
static bool
column_changed(Node *node, Oid *baserel)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		HeapTuple	tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(*baserel),
										 Int16GetDatum(v->varattno));
		bool		changed = true;

		if (HeapTupleIsValid(tp))
		{
			Form_pg_attribute att = (Form_pg_attribute) GETSTRUCT(tp);

			changed = att->attisdropped || att->atttypid != v->vartype ||
				att->atttypmod != v->vartypmod || att->attcollation != v->varcollid;
			ReleaseSysCache(tp);
		}
		return changed;
	}
	return expression_tree_walker(node, column_changed, (void *) baserel);
}

bool
index_predicate_columns_changed(Oid baserel, const char *bound)
{
	return column_changed(stringToNode(bound), &baserel);
}

/*
 * Does a bound predicate read a virtual generated column (PostgreSQL 18)?
 * Such a column has no value in a stored row: evaluated on the triggers'
 * transition tables or the write API's rows the predicate fails
 * ("unexpected virtual generated column reference").
 */
typedef struct VirtualColumnSearch
{
	Oid			baserel;
	char	   *found;			/* the first such column's name, or NULL */
} VirtualColumnSearch;

static bool
virtual_column(Node *node, VirtualColumnSearch *s)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		AttrNumber	a = ((Var *) node)->varattno;

		if (ADJLIST_ATTGENERATED_VIRTUAL(get_attgenerated(s->baserel, a)))
			s->found = get_attname(s->baserel, a, false);
		return s->found != NULL;
	}
	return expression_tree_walker(node, virtual_column, (void *) s);
}

char *
index_predicate_virtual_column(Oid baserel, const char *bound)
{
	VirtualColumnSearch s = {baserel, NULL};

	(void) virtual_column(stringToNode(bound), &s);
	return s.found;
}

/* The Vars of a bound predicate as Params: no dependency on the columns. */
static Node *
vars_to_params(Node *node, void *context)
{
	if (node == NULL)
		return NULL;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;
		Param	   *p = makeNode(Param);

		p->paramkind = PARAM_EXTERN;
		p->paramid = v->varattno;
		p->paramtype = v->vartype;
		p->paramtypmod = v->vartypmod;
		p->paramcollid = v->varcollid;
		p->location = -1;
		return (Node *) p;
	}
	return expression_tree_mutator(node, vars_to_params, context);
}

void
index_predicate_depend(Oid indexrel, Oid counterrel, const char *bound)
{
	Node	   *expr = vars_to_params(stringToNode(bound), NULL);
	ObjectAddress depender;

	/*
	 * Not on the base table's columns: the sql_drop trigger already takes
	 * the index with its base table, and DDL on a column the predicate
	 * uses is refused by the registry's checks (registry.c), naming it.
	 */
	ObjectAddressSet(depender, RelationRelationId, indexrel);
	recordDependencyOnExpr(&depender, expr, NIL, DEPENDENCY_NORMAL);
	if (OidIsValid(counterrel))
	{
		ObjectAddressSet(depender, RelationRelationId, counterrel);
		recordDependencyOnExpr(&depender, expr, NIL, DEPENDENCY_NORMAL);
	}
}

/*
 * Any role's ALTER ... RENAME or SET SCHEMA of anything runs this, over
 * every registration of the database: it must neither lock nor fail on
 * tables that DDL does not touch.  So it deparses without opening the base
 * tables (deparse_context_unlocked()), reading only the catalogs, which
 * the renaming statement has already changed.  Every predicate is
 * deparsed again rather than the ones the renamed object appears in: a
 * rename can change the text through objects that pg_depend does not
 * record the predicate using (the type of a cast, a schema), and a text
 * left stale would name, in a dump, whatever takes the old name.  Only a
 * text that changed is written, which is the registry row of an index
 * whose predicate names what was renamed.
 */
void
index_predicate_refresh(void)
{
	Oid		   *indexes;
	Oid		   *bases;
	Oid		   *counters;
	int			n = registry_all(&indexes, &bases, &counters);

	for (int i = 0; i < n; i++)
	{
		IndexDef   *ix = registry_index(indexes[i], false);
		char	   *text;

		/* (what cannot be deparsed now is refused at use, by name) */
		if (ix == NULL || ix->predicate_expr == NULL ||
			get_rel_name(ix->baserel) == NULL ||
			index_predicate_columns_changed(ix->baserel, ix->predicate_expr))
			continue;
		text = index_predicate_text(ix->baserel, ix->predicate_expr);
		if (text != NULL && (ix->predicate == NULL || strcmp(text, ix->predicate) != 0))
			registry_set_predicate_text(ix->indexrel, text);
	}
}

/* Bind the predicate of ix from its text, if it has none bound. */
static void
bind_if_missing(const IndexDef *ix)
{
	char	   *text;
	char	   *bound;

	if (ix->predicate == NULL || ix->predicate_expr != NULL ||
		get_rel_name(ix->baserel) == NULL || get_rel_name(ix->indexrel) == NULL)
		return;
	bound = index_predicate_bind(ix->baserel, ix->predicate, &text);
	registry_bind_predicate(ix->indexrel, bound);
	index_predicate_depend(ix->indexrel, ix->counterrel, bound);
}

void
index_predicate_bind_missing(Oid baserel)
{
	if (OidIsValid(baserel))
	{
		TableIndexes *ti = registry_lookup_unchecked(baserel);

		for (int i = 0; i < ti->nindexes; i++)
			bind_if_missing(&ti->indexes[i]);
	}
	else
	{
		Oid		   *indexes;
		Oid		   *bases;
		Oid		   *counters;
		int			n = registry_all(&indexes, &bases, &counters);

		for (int i = 0; i < n; i++)
		{
			IndexDef   *ix = registry_index(indexes[i], false);

			if (ix != NULL)
				bind_if_missing(ix);
		}
	}
	CommandCounterIncrement();
}

/*
 * Write the predicate of ix, bound again in this cluster, and its
 * pg_depend entries (none were carried), unless the transaction cannot
 * write or another session is doing it (or has done it).  Sessions that bind the same
 * index at once take turns on a lock of the index table that its writers
 * and readers do not take, and the second finds the row written; one that
 * cannot have the lock at once leaves the writing to a later one
 * (index_predicate_rebind_all() waits for it).
 */
void
index_predicate_persist(const IndexDef *ix)
{
	if (ix->predicate_expr == NULL || RecoveryInProgress() || XactReadOnly ||
		IsInParallelMode() || get_rel_name(ix->indexrel) == NULL ||
		!ConditionalLockRelationOid(ix->indexrel, ShareUpdateExclusiveLock))
		return;
	if (!registry_predicate_bound_elsewhere(ix->indexrel))
		return;
	registry_bind_predicate(ix->indexrel, ix->predicate_expr);
	index_predicate_depend(ix->indexrel,
						   get_rel_name(ix->counterrel) != NULL ? ix->counterrel : InvalidOid,
						   ix->predicate_expr);
	CommandCounterIncrement();
}

/* Is this session's role (a member of) the owner of baserel, superuser aside? */
static bool
owns_base(Oid baserel)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(baserel));
	Oid			owner;

	if (!HeapTupleIsValid(tp))
		return false;
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);
	return is_member_of_role_nosuper(GetUserId(), owner);
}

/*
 * The predicate of ix bound from its text, which names every object
 * outside pg_catalog with its schema: what a restore binds.  NULL when it
 * cannot be bound now (a table is gone, the text names what is not
 * there); the registry then reports the index as unbound.  Bound as the
 * owner, without running the predicate's code (bind_as_owner()), and in
 * a subtransaction whose error, whatever it is, stays here, as plpgsql's
 * EXCEPTION WHEN OTHERS keeps it: the reader of the registry, or the role
 * whose DDL rebinds every predicate, is seldom the owner, and another
 * role's predicate must not make its statement fail.  A cancel (or a
 * statement timeout) goes on.
 */
char *
index_predicate_rebind(const IndexDef *ix, bool *deferred)
{
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner owner = CurrentResourceOwner;
	char	   *bound = NULL;
	char	   *text;

	*deferred = false;
	if (ix->predicate == NULL || get_rel_name(ix->baserel) == NULL ||
		get_rel_name(ix->indexrel) == NULL)
		return NULL;
	/* (a reader of the table holds its lock already: DDL reading them all may not wait) */
	if (!owns_base(ix->baserel) && !ConditionalLockRelationOid(ix->baserel, AccessShareLock))
	{
		*deferred = true;
		return NULL;
	}
	if (IsInParallelMode())		/* (no subtransactions there) */
		return bind_as_owner(ix->baserel, ix->predicate, &text, false);
	BeginInternalSubTransaction(NULL);
	MemoryContextSwitchTo(cxt);
	PG_TRY();
	{
		bound = bind_as_owner(ix->baserel, ix->predicate, &text, false);
		ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		FlushErrorState();
		RollbackAndReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = owner;
		if (edata->sqlerrcode == ERRCODE_QUERY_CANCELED ||
			edata->sqlerrcode == ERRCODE_ASSERT_FAILURE)
			ReThrowError(edata);
		FreeErrorData(edata);
		bound = NULL;
	}
	PG_END_TRY();
	return bound;
}

/*
 * May this session wait for the locks of baserel's registration indexrel?
 * Only if its role is (a member of) the owner of the base table.  For
 * another role's, both tables are locked only if that can be done at
 * once, or else left to a later session (a reader of the table, which
 * binds it in memory and writes it when it can, or the owner's own DDL):
 * one role's DDL waits for no lock another role holds.  (Not superuser
 * rights: a superuser's DDL does not wait for any role's locks either.)
 */
static bool
lock_registration(Oid indexrel, Oid baserel)
{
	if (owns_base(baserel))
	{
		/* wait for a session writing it; then it is ours to write */
		LockRelationOid(indexrel, ShareUpdateExclusiveLock);
		return true;
	}
	if (!ConditionalLockRelationOid(indexrel, ShareUpdateExclusiveLock))
		return false;
	if (!ConditionalLockRelationOid(baserel, AccessShareLock))
	{
		UnlockRelationOid(indexrel, ShareUpdateExclusiveLock);
		return false;
	}
	return true;
}

void
index_predicate_rebind_all(void)
{
	static bool all_here = false;	/* none from another cluster is left */
	Oid		   *indexes;
	Oid		   *bases;
	Oid		   *counters;
	int			n;
	bool		elsewhere = false;

	if (all_here || RecoveryInProgress() || XactReadOnly)
		return;
	n = registry_all(&indexes, &bases, &counters);
	for (int i = 0; i < n; i++)
	{
		IndexDef   *ix;

		if (!registry_predicate_bound_elsewhere(indexes[i]) ||
			get_rel_name(indexes[i]) == NULL || get_rel_name(bases[i]) == NULL)
			continue;
		elsewhere = true;
		if (!lock_registration(indexes[i], bases[i]))
			continue;
		/* (bound in memory by the registry's reader: index_predicate_rebind()) */
		ix = registry_index(indexes[i], false);
		if (ix != NULL)
			index_predicate_persist(ix);
	}
	if (!elsewhere)
		all_here = true;
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

/*
 * A bound predicate planned, which runs its IMMUTABLE functions on
 * constants: in a security-restricted operation, as core plans an index
 * predicate.  The caller already acts as the owner, with search_path
 * pinned; the rows are evaluated outside it (a context switch is cheap,
 * but nothing the per-row path needs).  An error unwinds it with the
 * (sub)transaction.
 */
static Expr *
plan_restricted(Expr *expr)
{
	Oid			userid;
	int			sec_context;

	GetUserIdAndSecContext(&userid, &sec_context);
	SetUserIdAndSecContext(userid, sec_context | SECURITY_RESTRICTED_OPERATION);
	expr = expression_planner(expr);
	SetUserIdAndSecContext(userid, sec_context);
	return expr;
}

/*
 * The bound predicate of ix over rel (its base table, or a partition of
 * it, whose columns are found by name), planned.
 */
static Expr *
predicate_expr(const IndexDef *ix, Relation rel)
{
	Node	   *expr;

	if (ix->predicate_expr == NULL)
		elog(ERROR, "inverted index \"%s\" has no bound predicate", get_rel_name(ix->indexrel));
	expr = stringToNode(ix->predicate_expr);
	if (RelationGetRelid(rel) != ix->baserel)
	{
		Relation	base = table_open(ix->baserel, AccessShareLock);
		AttrMap    *map = adjlist_attrmap_by_name(RelationGetDescr(rel), RelationGetDescr(base));
		bool		whole_row;

		expr = map_variable_attnos(expr, 1, 0, map, InvalidOid, &whole_row);
		table_close(base, AccessShareLock);
	}
	return plan_restricted((Expr *) expr);
}

IndexPredicateState *
index_predicate_begin(const IndexDef *ix, Relation rel)
{
	IndexPredicateState *s = palloc0(sizeof(IndexPredicateState));
	Expr	   *expr = predicate_expr(ix, rel);
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
	if (s == NULL)
		return;
	if (s->slot != NULL)
		ExecDropSingleTupleTableSlot(s->slot);
	FreeExecutorState(s->estate);
	pfree(s);
}

/* The attribute numbers of baserel that a bound predicate reads. */
static bool
collect_attnos(Node *node, Bitmapset **attnos)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		*attnos = bms_add_member(*attnos, ((Var *) node)->varattno);
		return false;
	}
	return expression_tree_walker(node, collect_attnos, (void *) attnos);
}

static Bitmapset *
predicate_attnos(const IndexDef *ix)
{
	Bitmapset  *attnos = NULL;

	(void) collect_attnos(stringToNode(ix->predicate_expr), &attnos);
	return attnos;
}

char *
index_predicate_select(const IndexDef *ix)
{
	StringInfoData buf;
	Bitmapset  *attnos;
	int			a = -1;

	if (ix->predicate == NULL)
		return "";
	if (ix->predicate_expr == NULL)
		elog(ERROR, "inverted index \"%s\" has no bound predicate", get_rel_name(ix->indexrel));
	attnos = predicate_attnos(ix);
	initStringInfo(&buf);
	while ((a = bms_next_member(attnos, a)) >= 0)
		appendStringInfo(&buf, ", %s",
						 quote_identifier(get_attname(ix->baserel, (AttrNumber) a, false)));
	return buf.data;
}

/*
 * The predicate of ix over the columns index_predicate_select() lists, in
 * that order: its Vars renumbered, and a descriptor of those columns.
 */
IndexPredicateState *
index_predicate_begin_sql(const IndexDef *ix)
{
	IndexPredicateState *s;
	Bitmapset  *attnos;
	Node	   *expr;
	AttrMap    *map;
	TupleDesc	desc;
	bool		whole_row;
	int			a = -1;
	int			k = 0;
	MemoryContext old;

	if (ix->predicate == NULL)
		return NULL;
	attnos = predicate_attnos(ix);
	expr = stringToNode(ix->predicate_expr);
	map = make_attrmap(Max(bms_is_empty(attnos) ? 0 : bms_prev_member(attnos, -1), 1));
	desc = CreateTemplateTupleDesc(bms_num_members(attnos));
	while ((a = bms_next_member(attnos, a)) >= 0)
	{
		HeapTuple	tp = SearchSysCache2(ATTNUM, ObjectIdGetDatum(ix->baserel),
										 Int16GetDatum((AttrNumber) a));
		Form_pg_attribute att;

		if (!HeapTupleIsValid(tp))
			elog(ERROR, "cache lookup failed for attribute %d of relation %u", a, ix->baserel);
		att = (Form_pg_attribute) GETSTRUCT(tp);
		map->attnums[a - 1] = ++k;
		TupleDescInitEntry(desc, k, NameStr(att->attname), att->atttypid, att->atttypmod, 0);
		TupleDescInitEntryCollation(desc, k, att->attcollation);
		ReleaseSysCache(tp);
	}
	expr = map_variable_attnos(expr, 1, 0, map, InvalidOid, &whole_row);

	s = palloc0(sizeof(IndexPredicateState));
	s->estate = CreateExecutorState();
	old = MemoryContextSwitchTo(s->estate->es_query_cxt);
	s->state = ExecInitQual(list_make1(plan_restricted((Expr *) expr)), NULL);
	s->slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
	s->nvalues = k;
	MemoryContextSwitchTo(old);
	s->econtext = GetPerTupleExprContext(s->estate);
	return s;
}

bool
index_predicate_check_row(IndexPredicateState *s, HeapTuple tup, TupleDesc desc, int first)
{
	TupleTableSlot *slot;
	bool		result;

	if (s == NULL)
		return true;
	slot = s->slot;
	ExecClearTuple(slot);
	for (int i = 0; i < s->nvalues; i++)
		slot->tts_values[i] = SPI_getbinval(tup, desc, first + i, &slot->tts_isnull[i]);
	ExecStoreVirtualTuple(slot);
	result = index_predicate_check(s, slot);
	ExecClearTuple(slot);
	return result;
}
