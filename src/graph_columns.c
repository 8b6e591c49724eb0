/*-------------------------------------------------------------------------
 *
 * graph_columns.c
 *	  Keys-only one-hop reads: a call of neighbors() or reverse_neighbors()
 *	  in FROM whose data column the query never reads is replaced, while
 *	  the query is planned, by its twin neighbors_keys() or
 *	  reverse_neighbors_keys(): the same rows with data NULL, read from the
 *	  index only (no heap fetch on all-visible pages, no data copied).  A
 *	  call of which the query reads only the neighbor column (or no column:
 *	  count(*)) becomes neighbors_nodes() or reverse_neighbors_nodes(),
 *	  whose rows have pk and sk NULL too: forming a row that holds one key
 *	  instead of three is a quarter of the cost of a big hub's read.
 *
 * A set-returning function is not told which of its columns are read, but
 * its planner support function (adjlist_graph_rows, graph_estimate.c, which
 * dispatches SupportRequestSimplify here) sees the call while the query is
 * planned.  The call is recognized as the function of one of the query's
 * range table entries (same function, same arguments once expanded and
 * simplified as the planner did); the whole query is then searched for a
 * Var of that entry's data column (pk, sk) or a whole-row Var of the entry, at
 * every subquery level, through join alias variables and UNION ALL
 * translations.  Anything not understood keeps the original function: a
 * call outside FROM, in ROWS FROM with other functions, WITH ORDINALITY,
 * an entry that cannot be told apart from another.
 *
 * The twins have the same arguments and OUT columns as the originals, so
 * the range table entry stays valid.  They are called with the caller's
 * privileges on the original: a twin refuses a caller without EXECUTE on
 * neighbors() / reverse_neighbors(), so revoking EXECUTE on those keeps
 * covering a rewritten query and a direct call of a twin.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "utils/acl.h"
#include "utils/regproc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "compat.h"
#include "graph.h"

/* The functions that have twins, and the twins' suffixes. */
static const char *const originals[] = {"neighbors", "reverse_neighbors"};
static const char *const suffixes[] = {"_keys", "_nodes"};

typedef enum TwinKind
{
	TWIN_KEYS,					/* data NULL */
	TWIN_NODES					/* pk, sk and data NULL */
} TwinKind;

/* The attribute numbers of the columns a twin leaves NULL. */
typedef struct TwinColumns
{
	AttrNumber	data;
	AttrNumber	pk;
	AttrNumber	sk;
} TwinColumns;

/*
 * Whether function other is, like proc, a C function of proc's owner: only
 * a superuser creates C functions, so a function someone else created
 * under a twin's name (where the extension's catalog has no twin yet, in a
 * schema others may create in) is never called in place of the original.
 */
static bool
same_kind_of_function(Form_pg_proc proc, Oid other)
{
	HeapTuple	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(other));
	bool		same;

	if (!HeapTupleIsValid(tp))
		return false;
	same = ((Form_pg_proc) GETSTRUCT(tp))->prolang == ClanguageId &&
		proc->prolang == ClanguageId &&
		((Form_pg_proc) GETSTRUCT(tp))->proowner == proc->proowner;
	ReleaseSysCache(tp);
	return same;
}

/*
 * The function named name in the namespace of, and with the argument
 * types of, function funcid; InvalidOid if there is none.
 */
static Oid
sibling_function(Oid funcid, const char *name)
{
	HeapTuple	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	Form_pg_proc proc;
	char	   *nsp;
	Oid			found;

	if (!HeapTupleIsValid(tp))
		return InvalidOid;
	proc = (Form_pg_proc) GETSTRUCT(tp);
	nsp = get_namespace_name(proc->pronamespace);
	found = nsp == NULL ? InvalidOid :
		LookupFuncName(list_make2(makeString(nsp), makeString(pstrdup(name))),
					   proc->pronargs, proc->proargtypes.values, true);
	if (OidIsValid(found) && !same_kind_of_function(proc, found))
		found = InvalidOid;
	ReleaseSysCache(tp);
	return found;
}

/* The row type of a function with OUT parameters (NULL if it has none). */
static TupleDesc
result_desc(Oid funcid)
{
	HeapTuple	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	TupleDesc	desc;

	if (!HeapTupleIsValid(tp))
		return NULL;
	desc = build_function_result_tupdesc_t(tp);
	ReleaseSysCache(tp);
	return desc;
}

/*
 * The twin of a kind of funcid, when it is neighbors() or
 * reverse_neighbors() and its twin exists with the same columns (an
 * extension whose catalog is not updated yet has none); *cols gets the
 * attribute numbers of data, pk and sk.
 */
static Oid
twin_of(Oid funcid, TwinKind kind, TwinColumns *cols)
{
	char	   *name = get_func_name(funcid);
	Oid			twin = InvalidOid;
	TupleDesc	a;
	TupleDesc	b;

	for (int i = 0; name != NULL && i < (int) lengthof(originals); i++)
		if (strcmp(name, originals[i]) == 0)
			twin = sibling_function(funcid, psprintf("%s%s", originals[i], suffixes[kind]));
	if (!OidIsValid(twin))
		return InvalidOid;
	a = result_desc(funcid);
	b = result_desc(twin);
	if (a == NULL || b == NULL || a->natts != b->natts)
		return InvalidOid;
	memset(cols, 0, sizeof(*cols));
	for (int i = 0; i < a->natts; i++)
	{
		Form_pg_attribute x = TupleDescAttr(a, i);
		Form_pg_attribute y = TupleDescAttr(b, i);

		if (x->atttypid != y->atttypid || strcmp(NameStr(x->attname), NameStr(y->attname)) != 0)
			return InvalidOid;
		if (strcmp(NameStr(x->attname), "data") == 0)
			cols->data = i + 1;
		else if (strcmp(NameStr(x->attname), "pk") == 0)
			cols->pk = i + 1;
		else if (strcmp(NameStr(x->attname), "sk") == 0)
			cols->sk = i + 1;
	}
	if (cols->data == InvalidAttrNumber ||
		(kind == TWIN_NODES && (cols->pk == InvalidAttrNumber || cols->sk == InvalidAttrNumber)))
		return InvalidOid;
	return twin;
}

/* ----------------------------------------------------------------------
 * Which range table entry the call is
 * ----------------------------------------------------------------------
 */

typedef struct CallCount
{
	Oid			funcid;
	int			n;
} CallCount;

/* Calls of funcid at this query level (not in sublinks' subqueries). */
static bool
count_calls_walker(Node *node, void *arg)
{
	CallCount  *cc = (CallCount *) arg;

	if (node == NULL || IsA(node, Query))
		return false;
	if (IsA(node, FuncExpr) && ((FuncExpr *) node)->funcid == cc->funcid)
		cc->n++;
	return expression_tree_walker(node, count_calls_walker, arg);
}

/* The call alone in a FROM item without ordinality, or NULL. */
static FuncExpr *
from_call(RangeTblEntry *rte, Oid funcid)
{
	RangeTblFunction *rtf;

	if (rte->rtekind != RTE_FUNCTION || rte->funcordinality ||
		list_length(rte->functions) != 1)
		return NULL;
	rtf = linitial_node(RangeTblFunction, rte->functions);
	if (!IsA(rtf->funcexpr, FuncExpr) || ((FuncExpr *) rtf->funcexpr)->funcid != funcid)
		return NULL;
	return (FuncExpr *) rtf->funcexpr;
}

/*
 * The arguments of a call of the range table as the planner simplifies
 * them: defaults and named arguments put in place, constants folded.
 */
static List *
planned_args(PlannerInfo *root, FuncExpr *f)
{
	HeapTuple	tp = SearchSysCache1(PROCOID, ObjectIdGetDatum(f->funcid));
	List	   *args;

	if (!HeapTupleIsValid(tp))
		return NIL;
	args = expand_function_arguments(copyObject(f->args), false, f->funcresulttype, tp);
	ReleaseSysCache(tp);
	return (List *) eval_const_expressions(root, (Node *) args);
}

/*
 * The range table indexes of the FROM items that may be this call, or NIL
 * when the call may be elsewhere too (the function is called outside a
 * plain FROM item at this level).
 */
static List *
call_entries(PlannerInfo *root, FuncExpr *call)
{
	Query	   *q = root->parse;
	CallCount	cc = {call->funcid, 0};
	List	   *rtis = NIL;
	int			in_from = 0;
	Index		rti = 0;
	ListCell   *lc;

	(void) query_tree_walker(q, count_calls_walker, &cc, QTW_IGNORE_RC_SUBQUERIES);
	foreach(lc, q->rtable)
	{
		FuncExpr   *f = from_call(lfirst_node(RangeTblEntry, lc), call->funcid);

		rti++;
		if (f == NULL)
			continue;
		in_from++;
		if (equal(planned_args(root, f), call->args))
			rtis = lappend_int(rtis, (int) rti);
	}
	if (cc.n != in_from)
		return NIL;
	return rtis;
}

/* ----------------------------------------------------------------------
 * Whether the query reads given columns of an entry
 * ----------------------------------------------------------------------
 */

typedef struct ReadsData
{
	Query	   *top;			/* the query of the call's level */
	int			rti;			/* the call's entry in top->rtable */
	AttrNumber	atts[3];		/* the columns asked about */
	int			natts;
	int			sublevels_up;	/* how deep the walk is below top */
} ReadsData;

static bool reads_data_walker(Node *node, void *arg);

/* A Var of a join of the call's level: whether what it stands for reads data. */
static bool
join_var_reads(Var *v, ReadsData *ctx)
{
	RangeTblEntry *rte;
	int			save = ctx->sublevels_up;
	bool		reads;

	if (v->varno < 1 || v->varno > list_length(ctx->top->rtable))
		return false;
	rte = rt_fetch(v->varno, ctx->top->rtable);
	if (rte->rtekind != RTE_JOIN)
		return false;
	if (rte->joinaliasvars == NIL || v->varattno < 0 ||
		v->varattno > list_length(rte->joinaliasvars))
		return true;			/* cannot tell */
	ctx->sublevels_up = 0;		/* the aliases are Vars of the top level */
	reads = reads_data_walker(v->varattno == 0 ? (Node *) rte->joinaliasvars :
							  (Node *) list_nth(rte->joinaliasvars, v->varattno - 1), ctx);
	ctx->sublevels_up = save;
	return reads;
}

static bool
reads_data_walker(Node *node, void *arg)
{
	ReadsData  *ctx = (ReadsData *) arg;

	if (node == NULL)
		return false;
	if (IsA(node, Var))
	{
		Var		   *v = (Var *) node;

		if ((int) v->varlevelsup != ctx->sublevels_up)
			return false;
		if (v->varno == ctx->rti)
		{
			for (int i = 0; i < ctx->natts; i++)
				if (v->varattno == ctx->atts[i])
					return true;
			return v->varattno == InvalidAttrNumber;
		}
		return join_var_reads(v, ctx);
	}
	if (IsA(node, Query))
	{
		bool		reads;

		ctx->sublevels_up++;
		reads = query_tree_walker((Query *) node, reads_data_walker, arg,
								  QTW_IGNORE_JOINALIASES);
		ctx->sublevels_up--;
		return reads;
	}
	return expression_tree_walker(node, reads_data_walker, arg);
}

/*
 * Whether the query of root reads column att1 or att2 or att3 (0: none) or
 * the whole row of range table entry rti: anywhere in it, in its
 * subqueries, or through the translations of a UNION ALL pulled up into it.
 */
static bool
query_reads(PlannerInfo *root, Index rti, AttrNumber att1, AttrNumber att2, AttrNumber att3)
{
	ReadsData	ctx = {root->parse, (int) rti, {att1, att2, att3}, 3, 0};
	ListCell   *lc;

	if (query_tree_walker(root->parse, reads_data_walker, &ctx, QTW_IGNORE_JOINALIASES))
		return true;
	foreach(lc, root->append_rel_list)
	{
		AppendRelInfo *ai = lfirst_node(AppendRelInfo, lc);

		if (reads_data_walker((Node *) ai->translated_vars, &ctx))
			return true;
	}
	return false;
}

/*
 * The twin of a kind for the call (same arguments), when the caller may
 * execute it and every FROM item that may be the call reads none of the
 * columns the twin leaves NULL; else NULL.
 */
static FuncExpr *
twin_call(PlannerInfo *root, FuncExpr *call, List *rtis, TwinKind kind)
{
	TwinColumns cols;
	Oid			twin = twin_of(call->funcid, kind, &cols);
	ListCell   *lc;
	FuncExpr   *result;

	if (!OidIsValid(twin) ||
		adjlist_proc_aclcheck(twin, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		return NULL;
	foreach(lc, rtis)
		if (query_reads(root, (Index) lfirst_int(lc), cols.data,
						kind == TWIN_NODES ? cols.pk : InvalidAttrNumber,
						kind == TWIN_NODES ? cols.sk : InvalidAttrNumber))
			return NULL;
	result = copyObject(call);
	result->funcid = twin;
	return result;
}

/*
 * SupportRequestSimplify of neighbors() and reverse_neighbors(): the call
 * of the node-only twin when the call is a FROM item of which the query
 * reads only the neighbor column, else of the keys-only twin when it does
 * not read data, else NULL (the call is kept).
 */
Node *
graph_columns_simplify(SupportRequestSimplify *req)
{
	FuncExpr   *call = req->fcall;
	PlannerInfo *root = req->root;
	List	   *rtis;
	FuncExpr   *twin;

	if (root == NULL || root->parse == NULL)
		return NULL;
	rtis = call_entries(root, call);
	if (rtis == NIL)
		return NULL;
	twin = twin_call(root, call, rtis, TWIN_NODES);
	if (twin == NULL)
		twin = twin_call(root, call, rtis, TWIN_KEYS);
	return (Node *) twin;
}

/*
 * The function whose row estimate a function's is: the original's for a
 * twin, its own for any other.
 */
const char *
graph_columns_estimated_as(const char *fn)
{
	for (int i = 0; i < (int) lengthof(originals); i++)
		for (int k = 0; k < (int) lengthof(suffixes); k++)
			if (strncmp(fn, originals[i], strlen(originals[i])) == 0 &&
				strcmp(fn + strlen(originals[i]), suffixes[k]) == 0)
				return originals[i];
	return fn;
}

/*
 * The originals of the twins called in this backend, found by name once:
 * a search of pg_proc per call was a twentieth of a one-hop call on a
 * small node.  Forgotten when any function changes (a syscache callback on
 * pg_proc, catalog.c).
 */
#define TWIN_CACHE 8

static struct
{
	Oid			twin;
	Oid			original;
}			twin_cache[TWIN_CACHE];
static int	twin_cached = 0;
static uint64 twin_generation = 0;	/* counts invalidations */

void
graph_columns_proc_invalidate(void)
{
	twin_cached = 0;
	twin_generation++;
}

static Oid
twin_original(Oid self)
{
	char	   *name;
	const char *of;
	Oid			original = InvalidOid;
	uint64		generation = twin_generation;

	for (int i = 0; i < twin_cached; i++)
		if (twin_cache[i].twin == self)
			return twin_cache[i].original;
	name = get_func_name(self);
	of = name ? graph_columns_estimated_as(name) : NULL;
	if (of != NULL && of != name)
		original = sibling_function(self, of);
	if (!OidIsValid(original))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("function %s has no original to take its privileges from",
						format_procedure(self)),
				 errdetail("A keys-only function needs the function it is the twin of in its schema, with the same arguments.")));
	/* not kept when an invalidation arrived during the look-up */
	if (twin_cached < TWIN_CACHE && generation == twin_generation)
	{
		twin_cache[twin_cached].twin = self;
		twin_cache[twin_cached].original = original;
		twin_cached++;
	}
	return original;
}

/*
 * A twin is called with the privileges of its original: an error unless
 * the caller may execute neighbors() / reverse_neighbors() (checked at
 * every call; the original is found once, twin_original()).
 */
void
graph_columns_check_twin(FunctionCallInfo fcinfo)
{
	Oid			original = twin_original(fcinfo->flinfo->fn_oid);

	if (adjlist_proc_aclcheck(original, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, get_func_name(original));
}
