/*-------------------------------------------------------------------------
 *
 * graph_neighbor_scan.c
 *	  A call of neighbors() or reverse_neighbors() (or of a twin,
 *	  graph_columns.c) in FROM, read by a custom scan that streams its rows
 *	  instead of the function scan that materializes them.
 *
 * The executor runs a set-returning function in FROM to the end and puts
 * every row into a tuplestore before the query sees the first: for the
 * in-edges of a hub that is more than half of the time of the call
 * (forming a tuple per row, copying it in, reading it back), where the
 * hand-written index scan hands its tuples straight on.  So the planner
 * is offered a path that does what the function does, a row at a time.
 * Where the direct path reads the call (graph_reader.c: a plain local
 * table, no row-level security), its btree scan stays open between rows
 * (neighbor_call_next, graph_stream_next) and each row is handed on as
 * the index tuple gave it.  Elsewhere (SQL), neighbor_call_batch() reads
 * the next edges into an array of rows, the next batch resuming after the
 * last edge read, in the query's snapshot (keyset pagination, which makes
 * the batches read exactly the rows of one scan); batches grow from a few
 * dozen edges (a LIMIT 1 reads few) to a few thousand, and stop early past
 * work_mem of rows.
 *
 * The path replaces the function scan only where it gives the same
 * answer: one function, without ORDINALITY, whose arguments are constants
 * or a prepared statement's parameters (no LATERAL reference, subquery or
 * volatile function: the function scan evaluates them once, and so does
 * the scan at each rescan), whose whole row is not used (no row mark: an
 * UPDATE ... FROM or SELECT FOR UPDATE that may recheck a row keeps the
 * function scan, which can return the row it saved).  It is never run in
 * a parallel worker (the functions are PARALLEL RESTRICTED).  Privileges
 * are checked when the scan starts, as the function's call would: EXECUTE
 * on the function (a twin, on its original), then what the function
 * checks.  Later batches, and restarts, run as the role that started the
 * call (a cursor fetched further by another role reads what the first
 * could, as the function scan would have read it all then), and the
 * relations they read stay open between batches (in use, as a cursor's
 * scanned table is: TRUNCATE is refused).  A plan that may go backward (a
 * scrollable cursor) keeps the rows as they are read, as nodeMaterial.c
 * does.  adjlist.enable_neighbor_scan = off keeps the function scan.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/relation.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "executor/executor.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/prep.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "compat.h"
#include "graph.h"

bool		adjlist_enable_neighbor_scan = true;

/* Edges of the first batch, and the most of any batch (rows grow x8). */
#define FIRST_BATCH 64
#define MAX_BATCH 8192
#define NCOLS 4					/* neighbor, pk, sk, data */

static set_rel_pathlist_hook_type prev_set_rel_pathlist = NULL;

typedef struct NeighborScanState
{
	CustomScanState css;
	FuncExpr   *fexpr;
	bool		reverse;
	NeighborColumns cols;
	int			ncols;			/* of the scan tuple: the columns read */
	int			map[NCOLS];		/* each one's index in the call's row */
	ExprState **args;			/* of each argument (NULL: a Const) */
	int			nargs;
	MemoryContext callcxt;		/* a restarted call's: arguments, its state */
	int64		starts;			/* calls started (1 + restarts) */
	MemoryContext workcxt;		/* what a batch's read allocates */
	MemoryContext rowscxt;		/* the rows of a batch */
	bool		started;
	bool		empty;			/* the call has no row */
	bool		streaming;		/* read one edge at a time */
	NeighborCall call;
	int64		batch;			/* edges in the next batch */
	Size		bytes;			/* of the batch's rows */
	int			nrows;
	int			pos;
	Datum	   *values;			/* capacity rows of ncols, or NULL */
	bool	   *nulls;
	int			capacity;
	/* the role the call runs as: the one of its first row, throughout */
	bool		have_role;
	Oid			userid;
	int			secctx;
	Oid			base_relid;		/* what its batches read */
	Oid			inv_relid;
	List	   *held;			/* relations kept open between batches */
	/* a scan that may go backward: the rows read so far, kept */
	Tuplestorestate *store;
	TupleTableSlot *mslot;		/* a kept row, read back */
	bool		eof_call;		/* the call has no row left to add */
} NeighborScanState;

static Plan *plan_neighbor_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
								List *tlist, List *clauses, List *custom_plans);
static Node *create_neighbor_scan_state(CustomScan *cscan);
static void begin_neighbor_scan(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exec_neighbor_scan(CustomScanState *node);
static void end_neighbor_scan(CustomScanState *node);
static void rescan_neighbor_scan(CustomScanState *node);
static void explain_neighbor_scan(CustomScanState *node, List *ancestors, ExplainState *es);

static const CustomPathMethods path_methods = {
	.CustomName = "adjlist neighbors",
	.PlanCustomPath = plan_neighbor_scan,
};

static const CustomScanMethods scan_methods = {
	.CustomName = "adjlist neighbors",
	.CreateCustomScanState = create_neighbor_scan_state,
};

static const CustomExecMethods exec_methods = {
	.CustomName = "adjlist neighbors",
	.BeginCustomScan = begin_neighbor_scan,
	.ExecCustomScan = exec_neighbor_scan,
	.EndCustomScan = end_neighbor_scan,
	.ReScanCustomScan = rescan_neighbor_scan,
	.ExplainCustomScan = explain_neighbor_scan,
};

/* ----------------------------------------------------------------------
 * Planning
 * ----------------------------------------------------------------------
 */

/*
 * Is the call one of the one-hop functions, and which?  Only a C function
 * whose code is this library's (only a superuser creates C functions).
 */
static bool
served_function(Oid funcid, bool *reverse, NeighborColumns *cols)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	bool		c_lang;
	FmgrInfo	flinfo;

	if (!HeapTupleIsValid(tup))
		return false;
	c_lang = ((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId;
	ReleaseSysCache(tup);
	if (!c_lang)
		return false;
	fmgr_info(funcid, &flinfo);
	return neighbor_function_kind(flinfo.fn_addr, reverse, cols);
}

/*
 * Anything in the arguments that the scan could not evaluate once per
 * (re)scan, at its start, as the function scan does: a reference to
 * another relation or a subquery's parameter, a subquery, an aggregate.
 */
static bool
not_constant_walker(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if (IsA(node, Var) || IsA(node, PlaceHolderVar) || IsA(node, SubLink) ||
		IsA(node, SubPlan) || IsA(node, AlternativeSubPlan) || IsA(node, Aggref) ||
		IsA(node, WindowFunc) || IsA(node, GroupingFunc))
		return true;
	if (IsA(node, Param) && ((Param *) node)->paramkind != PARAM_EXTERN)
		return true;
	return expression_tree_walker(node, not_constant_walker, context);
}

/* Does the query use the whole row of the call (or a system column)? */
static bool
uses_whole_row(RelOptInfo *rel)
{
	List	   *exprs = list_copy(rel->reltarget->exprs);
	List	   *vars;
	ListCell   *lc;

	foreach(lc, rel->baserestrictinfo)
		exprs = lappend(exprs, lfirst_node(RestrictInfo, lc)->clause);
	vars = pull_var_clause((Node *) exprs, PVC_RECURSE_AGGREGATES |
						   PVC_RECURSE_WINDOWFUNCS | PVC_RECURSE_PLACEHOLDERS);
	foreach(lc, vars)
	{
		Var		   *var = lfirst(lc);

		if (IsA(var, Var) && var->varattno <= 0)
			return true;
	}
	return false;
}

/*
 * The planner's hook for a base relation's paths: offer the custom scan
 * for a one-hop call it serves, costed as the function scan less what the
 * tuplestore costs (a tuple's write and read per row).  Its cost before the
 * first row is at most the function scan's (which puts none there, though
 * it reads every row first), so that a LIMIT or a cursor streams too.
 */
static void
neighbor_scan_paths(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	RangeTblFunction *rtfunc;
	FuncExpr   *fexpr;
	Path	   *fscan = NULL;
	CustomPath *cp;
	bool		reverse;
	NeighborColumns cols;
	ListCell   *lc;

	if (prev_set_rel_pathlist)
		prev_set_rel_pathlist(root, rel, rti, rte);
	if (!adjlist_enable_neighbor_scan || rte->rtekind != RTE_FUNCTION ||
		rte->funcordinality || list_length(rte->functions) != 1 ||
		!bms_is_empty(rel->lateral_relids) ||
		(rel->reloptkind != RELOPT_BASEREL && rel->reloptkind != RELOPT_OTHER_MEMBER_REL))
		return;
	rtfunc = linitial_node(RangeTblFunction, rte->functions);
	if (!IsA(rtfunc->funcexpr, FuncExpr))
		return;
	fexpr = (FuncExpr *) rtfunc->funcexpr;
	if (!fexpr->funcretset || !served_function(fexpr->funcid, &reverse, &cols))
		return;
	if (not_constant_walker((Node *) fexpr->args, NULL) ||
		contain_volatile_functions((Node *) fexpr->args) ||
		uses_whole_row(rel) || get_plan_rowmark(root->rowMarks, rti) != NULL)
		return;
	foreach(lc, rel->pathlist)
	{
		Path	   *p = lfirst(lc);

		if (p->pathtype == T_FunctionScan && p->param_info == NULL)
			fscan = p;
	}
	if (fscan == NULL)
		return;

	cp = makeNode(CustomPath);
	cp->path.pathtype = T_CustomScan;
	cp->path.parent = rel;
	cp->path.pathtarget = rel->reltarget;
	cp->path.param_info = NULL;
	cp->path.parallel_aware = false;
	cp->path.parallel_safe = false;
	cp->path.parallel_workers = 0;
	cp->path.rows = fscan->rows;
	cp->path.total_cost = Max(fscan->total_cost - fscan->rows * cpu_tuple_cost,
							  fscan->total_cost / 2);
	cp->path.startup_cost = Min(fscan->startup_cost, cp->path.total_cost);
	cp->path.pathkeys = NIL;
	/* (backward: from the rows kept as they are read, as a Material node) */
	cp->flags = CUSTOMPATH_SUPPORT_BACKWARD_SCAN;
	/* which function it is, for the plan (which depends on its OID) */
	cp->custom_private = list_make2_int(reverse, (int) cols);
	cp->methods = &path_methods;
	add_path(rel, &cp->path);
}

/*
 * The columns of the call the plan reads, as the scan tuple's: the target
 * list's Vars first, in its order, then the other columns the quals read.
 * A query that reads the neighbor only (most) then gets the scan tuple as
 * its row, with no projection (ExecInitCustomScan makes none when the
 * target list is the scan tuple), and no column it does not read is
 * copied into the slot per row.
 */
static List *
read_columns(Index relid, List *tlist, List *quals)
{
	List	   *cols = NIL;
	List	   *vars;
	ListCell   *lc;

	foreach(lc, tlist)
	{
		Var		   *var = (Var *) lfirst_node(TargetEntry, lc)->expr;

		if (IsA(var, Var) && var->varno == (int) relid && var->varlevelsup == 0)
			cols = list_append_unique_int(cols, var->varattno);
	}
	vars = pull_var_clause((Node *) list_concat(list_copy(tlist), quals),
						   PVC_RECURSE_AGGREGATES | PVC_RECURSE_WINDOWFUNCS |
						   PVC_RECURSE_PLACEHOLDERS);
	foreach(lc, vars)
	{
		Var		   *var = lfirst(lc);

		if (IsA(var, Var) && var->varno == (int) relid && var->varattno > 0)
			cols = list_append_unique_int(cols, var->varattno);
	}
	/* (none, as for count(*): the neighbor, never an empty scan tuple) */
	return cols != NIL ? cols : list_make1_int(1);
}

/*
 * The plan: the call (whose arguments setrefs.c fixes, and whose function
 * a plan depends on) in custom_exprs, the function's columns the query
 * reads as the scan tuple (scanrelid 0: no relation is opened), the
 * query's quals.
 */
static Plan *
plan_neighbor_scan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path,
				   List *tlist, List *clauses, List *custom_plans)
{
	RangeTblEntry *rte = planner_rt_fetch(rel->relid, root);
	Node	   *fexpr = linitial_node(RangeTblFunction, rte->functions)->funcexpr;
	CustomScan *cscan = makeNode(CustomScan);
	List	   *quals = extract_actual_clauses(clauses, false);
	TupleDesc	desc;
	List	   *scan_tlist = NIL;
	ListCell   *lc;

	if (get_expr_result_type(fexpr, NULL, &desc) != TYPEFUNC_COMPOSITE || desc->natts != NCOLS)
		elog(ERROR, "unexpected result type of a one-hop function");
	foreach(lc, read_columns(rel->relid, tlist, quals))
	{
		int			attno = lfirst_int(lc);
		Form_pg_attribute att;
		Var		   *var;

		if (attno < 1 || attno > NCOLS)
			elog(ERROR, "unexpected column %d of a one-hop function", attno);
		att = TupleDescAttr(desc, attno - 1);
		var = makeVar(rel->relid, attno, att->atttypid, att->atttypmod, att->attcollation, 0);
		scan_tlist = lappend(scan_tlist,
							 makeTargetEntry((Expr *) var, list_length(scan_tlist) + 1,
											 pstrdup(NameStr(att->attname)), false));
	}
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = quals;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = NIL;
	cscan->custom_exprs = list_make1(copyObject(fexpr));
	cscan->custom_private = list_copy(best_path->custom_private);
	cscan->custom_scan_tlist = scan_tlist;
	cscan->custom_relids = bms_copy(rel->relids);
	cscan->methods = &scan_methods;
	return &cscan->scan.plan;
}

/* ----------------------------------------------------------------------
 * Execution
 * ----------------------------------------------------------------------
 */

static Node *
create_neighbor_scan_state(CustomScan *cscan)
{
	NeighborScanState *ns = palloc0(sizeof(NeighborScanState));
	ListCell   *lc;

	NodeSetTag(ns, T_CustomScanState);
	ns->css.methods = &exec_methods;
	ns->fexpr = linitial_node(FuncExpr, cscan->custom_exprs);
	ns->reverse = linitial_int(cscan->custom_private) != 0;
	ns->cols = (NeighborColumns) lsecond_int(cscan->custom_private);
	foreach(lc, cscan->custom_scan_tlist)
		ns->map[ns->ncols++] = castNode(Var, lfirst_node(TargetEntry, lc)->expr)->varattno - 1;
	return (Node *) ns;
}

static void
begin_neighbor_scan(CustomScanState *node, EState *estate, int eflags)
{
	NeighborScanState *ns = (NeighborScanState *) node;
	ListCell   *lc;

	/*
	 * (most arguments are constants, the defaults: nothing to evaluate; an
	 * array, not a list grown per argument, since this runs per execution)
	 */
	ns->nargs = list_length(ns->fexpr->args);
	ns->args = palloc(sizeof(ExprState *) * Max(ns->nargs, 1));
	foreach(lc, ns->fexpr->args)
		ns->args[foreach_current_index(lc)] = IsA(lfirst(lc), Const) ? NULL :
			ExecInitExpr(lfirst(lc), &node->ss.ps);
	/* a scrollable cursor: the rows are kept as they are read */
	if (eflags & EXEC_FLAG_BACKWARD)
	{
		ns->store = tuplestore_begin_heap(true, false, work_mem);
		ns->mslot = ExecInitExtraTupleSlot(estate,
										   node->ss.ss_ScanTupleSlot->tts_tupleDescriptor,
										   &TTSOpsMinimalTuple);
	}
}

/*
 * Run step(ns) as the role the call runs as: the current user at its first
 * row, kept for its later batches and its restarts.  The function scan
 * reads every row at the first; a cursor fetched further by another role
 * (SET ROLE, a SECURITY DEFINER function it is passed to) must get neither
 * more rows nor others than that role's (row-level security and the
 * privileges apply per batch on the SQL path).
 */
static void
as_call_role(NeighborScanState *ns, void (*step) (NeighborScanState *))
{
	Oid			olduid;
	int			oldctx;

	GetUserIdAndSecContext(&olduid, &oldctx);
	if (!ns->have_role)
	{
		ns->userid = olduid;
		ns->secctx = oldctx;
		ns->have_role = true;
	}
	if (olduid == ns->userid && oldctx == ns->secctx)
	{
		step(ns);
		return;
	}
	SetUserIdAndSecContext(ns->userid, ns->secctx);
	PG_TRY();
	{
		step(ns);
	}
	PG_FINALLY();
	{
		SetUserIdAndSecContext(olduid, oldctx);
	}
	PG_END_TRY();
}

/*
 * Keep the relations a call read by batches open until the scan ends (the
 * base table, the inverted index's for in-edges, and their partitions), as
 * the executor keeps a scanned relation: a TRUNCATE or ALTER TABLE in the
 * same transaction, between two fetches of a cursor, is then refused
 * ("being used by active queries") instead of the next batch reading the
 * changed table.  The locks are the batches' (to the end of the
 * transaction); a streaming call keeps its scan's relations open itself.
 */
static void
hold_relations(NeighborScanState *ns)
{
	MemoryContext oldcxt = MemoryContextSwitchTo(ns->css.ss.ps.state->es_query_cxt);
	Oid			relids[2] = {ns->base_relid, ns->inv_relid};

	for (int i = 0; i < 2; i++)
	{
		ListCell   *lc;
		List	   *all;

		if (!OidIsValid(relids[i]))
			continue;
		all = find_all_inheritors(relids[i], AccessShareLock, NULL);
		foreach(lc, all)
			ns->held = lappend(ns->held, relation_open(lfirst_oid(lc), AccessShareLock));
	}
	MemoryContextSwitchTo(oldcxt);
}

static void
release_relations(NeighborScanState *ns)
{
	ListCell   *lc;

	foreach(lc, ns->held)
		relation_close(lfirst(lc), NoLock);
	list_free(ns->held);
	ns->held = NIL;
}

/*
 * The memory of the call about to start.  The first call's state is the
 * query's (one call's: bounded); a restarted call's goes into a context of
 * its own, reset at each restart (the inner side of a nested loop restarts
 * at each outer row).  Most scans start once: no context is made for them.
 */
static MemoryContext
call_memory(NeighborScanState *ns)
{
	MemoryContext q = ns->css.ss.ps.state->es_query_cxt;

	if (ns->starts++ == 0)
		return q;
	if (ns->callcxt == NULL)
		ns->callcxt = AllocSetContextCreate(q, "adjlist neighbor scan call",
											ALLOCSET_SMALL_SIZES);
	else
		MemoryContextReset(ns->callcxt);
	return ns->callcxt;
}

/*
 * Start the call: evaluate the arguments, check EXECUTE on the function as
 * the executor does before calling one, and begin it as the function
 * would (neighbor_call_begin: its privileges, arguments and start key).
 */
static void
start_call_step(NeighborScanState *ns)
{
	ExprContext *econtext = ns->css.ss.ps.ps_ExprContext;
	FuncExpr   *fexpr = ns->fexpr;
	int			nargs = ns->nargs;
	FmgrInfo   *flinfo;
	FunctionCallInfo fcinfo;
	MemoryContext oldcxt;
	ListCell   *lc;

	oldcxt = MemoryContextSwitchTo(call_memory(ns));
	if (adjlist_proc_aclcheck(fexpr->funcid, GetUserId(), ACL_EXECUTE) != ACLCHECK_OK)
		aclcheck_error(ACLCHECK_NO_PRIV, OBJECT_FUNCTION, get_func_name(fexpr->funcid));
	InvokeFunctionExecuteHook(fexpr->funcid);
	/*
	 * What neighbor_call_begin() reads of the call: its arguments and the
	 * function's OID (a twin's privileges are its original's).  The
	 * function is not called (the scan does what it does), so its address
	 * is not looked up: fmgr_info() was a fortieth of a median node's call.
	 */
	flinfo = palloc0(sizeof(FmgrInfo));
	flinfo->fn_oid = fexpr->funcid;
	flinfo->fn_nargs = nargs;
	flinfo->fn_strict = false;
	flinfo->fn_retset = true;
	flinfo->fn_mcxt = CurrentMemoryContext;
	flinfo->fn_expr = (Node *) fexpr;
	fcinfo = palloc0(SizeForFunctionCallInfo(nargs));
	InitFunctionCallInfoData(*fcinfo, flinfo, nargs, fexpr->inputcollid, NULL, NULL);
	foreach(lc, fexpr->args)
	{
		int			i = foreach_current_index(lc);

		if (ns->args[i] == NULL)
		{
			fcinfo->args[i].value = lfirst_node(Const, lc)->constvalue;
			fcinfo->args[i].isnull = lfirst_node(Const, lc)->constisnull;
		}
		else
			fcinfo->args[i].value = ExecEvalExpr(ns->args[i], econtext, &fcinfo->args[i].isnull);
	}
	ns->empty = !neighbor_call_begin(fcinfo, ns->reverse, ns->cols, &ns->call);
	if (!ns->empty)
	{
		ns->base_relid = ns->call.g->baserel;
		ns->inv_relid = ns->reverse ? ns->call.g->inv_rel : InvalidOid;
	}
	ns->streaming = !ns->empty && neighbor_call_stream(&ns->call);
	MemoryContextSwitchTo(oldcxt);
	ns->batch = FIRST_BATCH;
	ns->started = true;
}

static void
start_call(NeighborScanState *ns)
{
	as_call_role(ns, start_call_step);
}

/* A row of the call into the batch: the columns read, copied into the batch's memory. */
static bool
put_row(void *arg, Datum *values, bool *nulls)
{
	NeighborScanState *ns = (NeighborScanState *) arg;
	Datum	   *v;
	bool	   *n;
	MemoryContext oldcxt;

	/* (a call read at once, whose rows cannot be resumed, may need more) */
	if (ns->nrows == ns->capacity)
	{
		ns->capacity *= 2;
		ns->values = repalloc_huge(ns->values, sizeof(Datum) * ns->ncols * ns->capacity);
		ns->nulls = repalloc_huge(ns->nulls, sizeof(bool) * ns->ncols * ns->capacity);
	}
	v = &ns->values[ns->nrows * ns->ncols];
	n = &ns->nulls[ns->nrows * ns->ncols];
	oldcxt = MemoryContextSwitchTo(ns->rowscxt);

	for (int i = 0; i < ns->ncols; i++)
	{
		int			c = ns->map[i];

		n[i] = nulls[c];
		v[i] = nulls[c] ? (Datum) 0 : datumCopy(values[c], false, -1);
		if (!nulls[c])
			ns->bytes += VARSIZE_ANY(DatumGetPointer(v[i]));
	}
	MemoryContextSwitchTo(oldcxt);
	ns->nrows++;
	return ns->nrows < MAX_BATCH && ns->bytes < (Size) work_mem * 1024;
}

/* Read the next batch into the array (as the call's role). */
static void
next_batch_step(NeighborScanState *ns)
{
	MemoryContext oldcxt;

	/* (the rows of the biggest batch, made when the call needs batches) */
	if (ns->values == NULL)
	{
		MemoryContext q = ns->css.ss.ps.state->es_query_cxt;

		ns->workcxt = AllocSetContextCreate(q, "adjlist neighbor scan batch",
											ALLOCSET_DEFAULT_SIZES);
		ns->rowscxt = AllocSetContextCreate(q, "adjlist neighbor scan rows",
											ALLOCSET_DEFAULT_SIZES);
		ns->capacity = MAX_BATCH;
		ns->values = MemoryContextAlloc(q, sizeof(Datum) * ns->ncols * ns->capacity);
		ns->nulls = MemoryContextAlloc(q, sizeof(bool) * ns->ncols * ns->capacity);
	}
	MemoryContextReset(ns->rowscxt);
	ns->nrows = ns->pos = 0;
	ns->bytes = 0;
	ns->call.tbuf = NULL;		/* was in workcxt */
	oldcxt = MemoryContextSwitchTo(ns->workcxt);
	neighbor_call_batch(&ns->call, ns->batch, put_row, ns);
	MemoryContextSwitchTo(oldcxt);
	MemoryContextReset(ns->workcxt);
	ns->batch = Min(ns->batch * 8, MAX_BATCH);
	if (!ns->call.done && ns->held == NIL)
		hold_relations(ns);
}

/* Read the next batch; false when the call has no row left. */
static bool
next_batch(NeighborScanState *ns)
{
	if (ns->empty || ns->call.done)
		return false;
	as_call_role(ns, next_batch_step);
	return true;
}

/* The call's next row into the (cleared) slot; false after the last. */
static bool
next_row(NeighborScanState *ns, TupleTableSlot *slot)
{
	if (!ns->started)
		start_call(ns);
	if (ns->streaming)
	{
		Datum		values[NCOLS];
		bool		nulls[NCOLS];

		if (ns->call.done || !neighbor_call_next(&ns->call, values, nulls))
			return false;
		/* the columns read, straight into the slot (valid until the next row) */
		for (int i = 0; i < ns->ncols; i++)
		{
			slot->tts_values[i] = values[ns->map[i]];
			slot->tts_isnull[i] = nulls[ns->map[i]];
		}
		return true;
	}
	while (ns->pos >= ns->nrows)
		if (!next_batch(ns))
			return false;
	memcpy(slot->tts_values, &ns->values[ns->pos * ns->ncols], sizeof(Datum) * ns->ncols);
	memcpy(slot->tts_isnull, &ns->nulls[ns->pos * ns->ncols], sizeof(bool) * ns->ncols);
	ns->pos++;
	return true;
}

/* The call's next row in the scan slot, or NULL after the last. */
static inline TupleTableSlot *
streamed_row(NeighborScanState *ns)
{
	TupleTableSlot *slot = ns->css.ss.ss_ScanTupleSlot;

	ExecClearTuple(slot);
	if (!next_row(ns, slot))
		return NULL;
	return ExecStoreVirtualTuple(slot);
}

/*
 * The next row in the direction asked, of a scan that may go backward:
 * from the rows kept, and past the last of them from the call (each row
 * kept as it is read), as nodeMaterial.c does for a plan that cannot go
 * backward.
 */
static TupleTableSlot *
stored_row(NeighborScanState *ns, ScanDirection dir)
{
	bool		forward = ScanDirectionIsForward(dir);
	bool		eof = tuplestore_ateof(ns->store);
	TupleTableSlot *row;

	if (!forward && eof)
	{
		/* turning back at the end: the last row kept was returned already */
		if (!ns->eof_call && !tuplestore_advance(ns->store, false))
			return NULL;
		eof = false;
	}
	if (!eof)
	{
		/* (into the scan slot, whose kind the quals and projection expect) */
		if (tuplestore_gettupleslot(ns->store, forward, false, ns->mslot))
			return ExecCopySlot(ns->css.ss.ss_ScanTupleSlot, ns->mslot);
		if (!forward)
			return NULL;
	}
	if (ns->eof_call)
		return NULL;
	row = streamed_row(ns);
	if (row == NULL)
	{
		ns->eof_call = true;
		return NULL;
	}
	tuplestore_puttupleslot(ns->store, row);
	return row;
}

/*
 * The next row that passes the quals, projected.  (ExecScan() is not
 * used: with no relation scanned, its recheck of a row under EvalPlanQual
 * would be this scan's to do, and no plan with a row mark on the call
 * uses the scan.)
 */
static TupleTableSlot *
exec_neighbor_scan(CustomScanState *node)
{
	NeighborScanState *ns = (NeighborScanState *) node;
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	ExprState  *qual = node->ss.ps.qual;
	ProjectionInfo *proj = node->ss.ps.ps_ProjInfo;
	ScanDirection dir = node->ss.ps.state->es_direction;

	for (;;)
	{
		TupleTableSlot *row;

		CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		row = ns->store ? stored_row(ns, dir) : streamed_row(ns);
		if (row == NULL)
			return ExecClearTuple(proj ? proj->pi_state.resultslot : node->ss.ss_ScanTupleSlot);
		econtext->ecxt_scantuple = row;
		if (qual == NULL || ExecQual(qual, econtext))
			return proj ? ExecProject(proj) : row;
		InstrCountFiltered1(node, 1);
	}
}

static void
end_neighbor_scan(CustomScanState *node)
{
	NeighborScanState *ns = (NeighborScanState *) node;

	/* (the contexts go with the query's) */
	if (ns->started && ns->streaming)
		neighbor_call_end(&ns->call);
	release_relations(ns);
	if (ns->store)
		tuplestore_end(ns->store);
	ns->store = NULL;
}

/*
 * The call again from its start, its arguments evaluated again (they can
 * change only between executions); a scan that keeps its rows reads them
 * again from the first, and then the call on where it stopped.
 */
static void
rescan_neighbor_scan(CustomScanState *node)
{
	NeighborScanState *ns = (NeighborScanState *) node;

	if (ns->store)
	{
		tuplestore_rescan(ns->store);
		return;
	}
	if (ns->started && ns->streaming)
		neighbor_call_end(&ns->call);
	ns->started = false;
	ns->empty = false;
	ns->streaming = false;
	ns->nrows = ns->pos = 0;
	if (ns->rowscxt != NULL)
		MemoryContextReset(ns->rowscxt);
}

static void
explain_neighbor_scan(CustomScanState *node, List *ancestors, ExplainState *es)
{
	NeighborScanState *ns = (NeighborScanState *) node;

	if (es->verbose)
	{
		List	   *context = set_deparse_context_plan(es->deparse_cxt,
													   node->ss.ps.plan, ancestors);

		ExplainPropertyText("Function Call",
							deparse_expression((Node *) ns->fexpr, context, true, false), es);
	}
	else
		ExplainPropertyText("Function", get_func_name(ns->fexpr->funcid), es);
}

void
graph_neighbor_scan_init(void)
{
	DefineCustomBoolVariable("adjlist.enable_neighbor_scan",
							 "Lets the planner read a call of neighbors() or "
							 "reverse_neighbors() in FROM by a streaming scan.",
							 "Off, such a call is a function scan, whose rows are "
							 "all read before the first is returned.",
							 &adjlist_enable_neighbor_scan,
							 true, PGC_USERSET, 0,
							 NULL, NULL, NULL);
	RegisterCustomScanMethods(&scan_methods);
	prev_set_rel_pathlist = set_rel_pathlist_hook;
	set_rel_pathlist_hook = neighbor_scan_paths;
}
