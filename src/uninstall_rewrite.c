/*-------------------------------------------------------------------------
 *
 * uninstall_rewrite.c
 *	  adjlist_uninstall(): an expression or a view's query that uses keys,
 *	  rewritten to use text with exactly the same results.
 *
 * Once the adjkey columns are text, what a column default, a CHECK
 * constraint, a partial index's predicate or a view says about keys must
 * say it about text, or those objects keep depending on the extension and
 * DROP EXTENSION refuses.  The rewrite works on the stored expression tree,
 * not on its text: every key-typed column, parameter and constant becomes
 * text (a constant keeps its characters), the casts between keys and text
 * disappear, and each of adjlist's operators becomes core's text operator
 * that gives the same answer:
 *
 *	  =, <> (keys, or a key and text)	text's = and <> (byte equality: the
 *										database's collation is deterministic)
 *	  <, <=, >, >=						text's operators on COLLATE "C", the
 *										byte order adjkey sorts by (in a
 *										UTF-8 database: adjkey orders by
 *										UTF-8 bytes whatever the encoding)
 *	  ^@, begins_with, starts_with		text's ^@ (a byte prefix)
 *	  LIKE, NOT LIKE					text's ~~ and !~~ (adjkey's LIKE
 *										matches characters without a
 *										collation, as text's does)
 *
 * The operators are recognised by the C function behind them, the one
 * thing no overloading or renaming changes, and only when both operands
 * have become text (adjkey's operators with bytea share functions).
 * Anything else of adjlist's (key_part, make_key, the min and max
 * aggregates, ...) and anything whose answer depends on adjkey's order
 * without an operator to carry COLLATE "C" (ORDER BY a key, GREATEST,
 * row comparisons) has no exact text equivalent: the rewrite then returns
 * NULL with the reason, and adjlist_uninstall() refuses before changing
 * anything.  key_part(k, n) is not split_part(k, '#', n): it unescapes
 * \# and counts from the end for a negative n.
 *
 * The result is deparsed by core's ruleutils and run as DDL after the
 * column types changed, so that PostgreSQL records the new dependencies;
 * names that are not visible on the search_path come out qualified.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "mb/pg_wchar.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_language.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "catalog/dependency.h"
#include "catalog/pg_extension.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "uninstall.h"

/* what an adjlist function is, for the rewrite */
typedef enum KeyFn
{
	KEYFN_OTHER,				/* no text equivalent */
	KEYFN_CAST,					/* adjkey <-> text: dropped */
	KEYFN_EQ,
	KEYFN_NE,
	KEYFN_LT,
	KEYFN_LE,
	KEYFN_GT,
	KEYFN_GE,
	KEYFN_PREFIX,
	KEYFN_LIKE,
	KEYFN_NOTLIKE
} KeyFn;

typedef struct KeyFnName
{
	const char *symbol;
	KeyFn		kind;
} KeyFnName;

static const KeyFnName key_fns[] = {
	{"adjkey_from_text", KEYFN_CAST}, {"adjkey_to_text", KEYFN_CAST},
	{"adjkey_eq", KEYFN_EQ}, {"adjkey_raw_text_eq", KEYFN_EQ}, {"adjkey_text_raw_eq", KEYFN_EQ},
	{"adjkey_ne", KEYFN_NE}, {"adjkey_raw_text_ne", KEYFN_NE}, {"adjkey_text_raw_ne", KEYFN_NE},
	{"adjkey_lt", KEYFN_LT}, {"adjkey_raw_text_lt", KEYFN_LT}, {"adjkey_text_raw_lt", KEYFN_LT},
	{"adjkey_le", KEYFN_LE}, {"adjkey_raw_text_le", KEYFN_LE}, {"adjkey_text_raw_le", KEYFN_LE},
	{"adjkey_gt", KEYFN_GT}, {"adjkey_raw_text_gt", KEYFN_GT}, {"adjkey_text_raw_gt", KEYFN_GT},
	{"adjkey_ge", KEYFN_GE}, {"adjkey_raw_text_ge", KEYFN_GE}, {"adjkey_text_raw_ge", KEYFN_GE},
	{"adjkey_begins_with", KEYFN_PREFIX}, {"adjkey_begins_with_key", KEYFN_PREFIX},
	{"adjkey_like", KEYFN_LIKE}, {"adjkey_notlike", KEYFN_NOTLIKE},
};

/* core's text operator for each kind, and whether it needs COLLATE "C" */
static const struct
{
	KeyFn		kind;
	const char *oprname;
	bool		byte_order;
}			text_ops[] = {
	{KEYFN_EQ, "=", false}, {KEYFN_NE, "<>", false},
	{KEYFN_LT, "<", true}, {KEYFN_LE, "<=", true}, {KEYFN_GT, ">", true}, {KEYFN_GE, ">=", true},
	{KEYFN_PREFIX, "^@", false}, {KEYFN_LIKE, "~~", false}, {KEYFN_NOTLIKE, "!~~", false},
};

typedef struct RewriteState
{
	UninstallTypes types;
	const char *problem;		/* the first reason it cannot be rewritten */
} RewriteState;

static Node *rewrite_mutator(Node *node, void *context);
static Node *rewrite_other(RewriteState *st, Node *node);

void
uninstall_types_init(UninstallTypes *types)
{
	const AdjlistCatalog *cat = adjlist_catalog();

	types->extension = cat->extension;
	types->keytype = cat->keytype;
	types->keyarraytype = cat->keyarraytype;
	types->prefixtype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
										CStringGetDatum("adjkey_prefix"),
										ObjectIdGetDatum(cat->namespace));
	types->prefixarraytype = OidIsValid(types->prefixtype) ?
		get_array_type(types->prefixtype) : InvalidOid;
}

/* adjkey, adjkey[], adjkey_prefix or its array */
bool
uninstall_is_key_type(const UninstallTypes *types, Oid type)
{
	return OidIsValid(type) &&
		(type == types->keytype || type == types->keyarraytype ||
		 type == types->prefixtype || type == types->prefixarraytype);
}

/* the text type a key type becomes */
static Oid
text_type_of(const UninstallTypes *types, Oid type)
{
	if (type == types->keytype || type == types->prefixtype)
		return TEXTOID;
	if (type == types->keyarraytype || type == types->prefixarraytype)
		return TEXTARRAYOID;
	return type;
}

static void
set_problem(RewriteState *st, char *problem)
{
	if (st->problem == NULL)
		st->problem = problem;
}

/* What an extension function is; KEYFN_OTHER for one that is not adjlist's. */
static KeyFn
key_fn_kind(RewriteState *st, Oid funcid, bool *member)
{
	HeapTuple	tup;
	char	   *symbol = NULL;
	bool		isnull;
	Datum		prosrc;

	*member = getExtensionOfObject(ProcedureRelationId, funcid) == st->types.extension;
	if (!*member)
		return KEYFN_OTHER;
	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", funcid);
	prosrc = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
	if (((Form_pg_proc) GETSTRUCT(tup))->prolang == ClanguageId && !isnull)
		symbol = TextDatumGetCString(prosrc);
	ReleaseSysCache(tup);
	for (int i = 0; symbol != NULL && i < (int) lengthof(key_fns); i++)
		if (strcmp(symbol, key_fns[i].symbol) == 0)
			return key_fns[i].kind;
	return KEYFN_OTHER;
}

/* core's text operator (pg_catalog's, never one of the search_path's) */
static Oid
text_operator(const char *oprname)
{
	Oid			opno = OpernameGetOprid(list_make2(makeString("pg_catalog"),
												   makeString(pstrdup(oprname))),
										TEXTOID, TEXTOID);

	if (!OidIsValid(opno))
		elog(ERROR, "operator pg_catalog.%s(text, text) not found", oprname);
	return opno;
}

/*
 * The text equivalent of an adjlist operator or function call of kind, on
 * the already rewritten args; NULL (and the problem noted) if there is none.
 */
static Node *
text_call(RewriteState *st, KeyFn kind, List *args, Oid funcid, NodeTag tag, int location)
{
	OpExpr	   *op;
	Node	   *left;

	if (kind == KEYFN_CAST && list_length(args) == 1 &&
		exprType(linitial(args)) == TEXTOID)
		return linitial(args);
	for (int i = 0; kind != KEYFN_CAST && i < (int) lengthof(text_ops); i++)
	{
		if (text_ops[i].kind != kind || list_length(args) != 2 ||
			exprType(linitial(args)) != TEXTOID || exprType(lsecond(args)) != TEXTOID)
			continue;
		left = linitial(args);
		if (text_ops[i].byte_order && GetDatabaseEncoding() != PG_UTF8)
		{
			set_problem(st, psprintf("it compares keys by their order, and text's byte order is adjkey's only in a UTF-8 database (this one is %s)",
									 GetDatabaseEncodingName()));
			return NULL;
		}
		if (text_ops[i].byte_order)
		{
			CollateExpr *c = makeNode(CollateExpr);

			c->arg = (Expr *) left;
			c->collOid = C_COLLATION_OID;
			c->location = -1;
			left = (Node *) c;
		}
		op = (OpExpr *) newNode(sizeof(OpExpr), tag);
		op->opno = text_operator(text_ops[i].oprname);
		op->opfuncid = get_opcode(op->opno);
		op->opresulttype = tag == T_NullIfExpr ? TEXTOID : BOOLOID;
		op->opretset = false;
		op->opcollid = tag == T_NullIfExpr ? DEFAULT_COLLATION_OID : InvalidOid;
		op->inputcollid = text_ops[i].byte_order ? C_COLLATION_OID : DEFAULT_COLLATION_OID;
		op->args = list_make2(left, lsecond(args));
		op->location = location;
		return (Node *) op;
	}
	set_problem(st, psprintf("it calls %s, which has no exact text equivalent",
							 format_procedure(funcid)));
	return NULL;
}

/* a column, a parameter or a CASE operand of a key type: text */
static Node *
rewrite_leaf(RewriteState *st, Node *node)
{
	Node	   *n = copyObject(node);
	Oid			type = exprType(node);
	Oid			newtype = text_type_of(&st->types, type);

	if (newtype == type)
		return n;
	if (IsA(n, Var))
	{
		((Var *) n)->vartype = newtype;
		((Var *) n)->varcollid = DEFAULT_COLLATION_OID;
	}
	else if (IsA(n, Param))
	{
		((Param *) n)->paramtype = newtype;
		((Param *) n)->paramcollid = DEFAULT_COLLATION_OID;
	}
	else
	{
		((CaseTestExpr *) n)->typeId = newtype;
		((CaseTestExpr *) n)->collation = DEFAULT_COLLATION_OID;
	}
	return n;
}

/* a key constant: the same characters as text (or text[]) */
static Node *
text_const(RewriteState *st, Const *c)
{
	Oid			newtype = text_type_of(&st->types, c->consttype);
	Const	   *t = (Const *) copyObject(c);
	Oid			outfunc;
	Oid			infunc;
	Oid			ioparam;
	bool		varlena;

	t->consttype = newtype;
	t->consttypmod = -1;
	t->constcollid = DEFAULT_COLLATION_OID;
	t->constlen = -1;
	t->constbyval = false;
	if (!c->constisnull)
	{
		getTypeOutputInfo(c->consttype, &outfunc, &varlena);
		getTypeInputInfo(newtype, &infunc, &ioparam);
		t->constvalue = OidInputFunctionCall(infunc,
											 OidOutputFunctionCall(outfunc, c->constvalue),
											 ioparam, -1);
	}
	return (Node *) t;
}

/* ORDER BY a key (in a query, a window or an aggregate): adjkey's order */
static bool
sorts_by_key(RewriteState *st, List *sortclauses, List *tlist)
{
	ListCell   *lc;

	foreach(lc, sortclauses)
	{
		SortGroupClause *sgc = lfirst_node(SortGroupClause, lc);
		TargetEntry *tle = get_sortgroupclause_tle(sgc, tlist);

		if (uninstall_is_key_type(&st->types, exprType((Node *) tle->expr)))
			return true;
	}
	return false;
}

/* a query: what its clauses and range table say about keys, then its parts */
static Node *
rewrite_query(RewriteState *st, Query *query)
{
	ListCell   *lc;

	if (sorts_by_key(st, query->sortClause, query->targetList))
		set_problem(st, pstrdup("it sorts by a key (adjkey's byte order, not text's collation)"));
	foreach(lc, query->windowClause)
		if (sorts_by_key(st, lfirst_node(WindowClause, lc)->orderClause, query->targetList))
			set_problem(st, pstrdup("a window of it sorts by a key"));
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);
		List	   *types = rte->coltypes;	/* VALUES, CTE */
		ListCell   *lt;

		if (rte->rtekind == RTE_FUNCTION)
		{
			ListCell   *lf;

			foreach(lf, rte->functions)
				types = list_concat(list_copy(types),
									lfirst_node(RangeTblFunction, lf)->funccoltypes);
		}
		foreach(lt, types)
			if (uninstall_is_key_type(&st->types, lfirst_oid(lt)))
				set_problem(st, pstrdup("it has a VALUES list, a WITH query or a function in FROM that returns keys"));
	}
	return (Node *) query_tree_mutator(query, rewrite_mutator, st, 0);
}

/* OpExpr, DistinctExpr, NullIfExpr and ScalarArrayOpExpr with adjlist's operator */
static Node *
rewrite_operator(RewriteState *st, Node *node, Oid opno, List *args, int location)
{
	Oid			funcid = get_opcode(opno);
	bool		member;
	KeyFn		kind = key_fn_kind(st, funcid, &member);
	List	   *newargs = (List *) rewrite_mutator((Node *) args, st);
	Node	   *res;

	if (!member)
		return NULL;			/* not adjlist's: the caller mutates it */
	if (IsA(node, ScalarArrayOpExpr))
	{
		ScalarArrayOpExpr *saop = (ScalarArrayOpExpr *) copyObject(node);

		if ((kind != KEYFN_EQ && kind != KEYFN_NE) ||
			exprType(linitial(newargs)) != TEXTOID || exprType(lsecond(newargs)) != TEXTARRAYOID)
		{
			set_problem(st, psprintf("it compares with ANY or ALL by %s, which has no exact text equivalent",
									 format_operator(opno)));
			return node;
		}
		saop->opno = text_operator(kind == KEYFN_EQ ? "=" : "<>");
		saop->opfuncid = get_opcode(saop->opno);
		saop->inputcollid = DEFAULT_COLLATION_OID;
		saop->args = newargs;
		return (Node *) saop;
	}
	res = text_call(st, kind == KEYFN_CAST ? KEYFN_OTHER : kind, newargs, funcid,
					nodeTag(node), location);
	return res != NULL ? res : node;
}

/* a coercion to a key type (or from keys to text): its argument, if that is text now */
static Node *
strip_coercion(RewriteState *st, Node *node, Node *arg, Oid resulttype)
{
	Node	   *newarg = rewrite_mutator(arg, st);
	Oid			argtype = exprType(newarg);

	if (argtype == text_type_of(&st->types, resulttype) ||
		(argtype == TEXTOID && resulttype == TEXTOID) ||
		(argtype == TEXTARRAYOID && resulttype == TEXTARRAYOID))
		return newarg;
	set_problem(st, psprintf("it converts %s to %s", format_type_be(exprType(arg)),
							 format_type_be(resulttype)));
	return node;
}

/* the types a node records for its result, from keys to text */
static void
retype(const UninstallTypes *types, Node *res)
{
	if (res == NULL)
		return;
	switch (nodeTag(res))
	{
		case T_CoalesceExpr:
			((CoalesceExpr *) res)->coalescetype = text_type_of(types, ((CoalesceExpr *) res)->coalescetype);
			break;
		case T_CaseExpr:
			((CaseExpr *) res)->casetype = text_type_of(types, ((CaseExpr *) res)->casetype);
			break;
		case T_ArrayExpr:
			((ArrayExpr *) res)->element_typeid = text_type_of(types, ((ArrayExpr *) res)->element_typeid);
			((ArrayExpr *) res)->array_typeid = text_type_of(types, ((ArrayExpr *) res)->array_typeid);
			break;
		case T_SubscriptingRef:
			{
				SubscriptingRef *sr = (SubscriptingRef *) res;

				sr->refcontainertype = text_type_of(types, sr->refcontainertype);
				sr->refelemtype = text_type_of(types, sr->refelemtype);
				sr->refrestype = text_type_of(types, sr->refrestype);
				break;
			}
		case T_SetOperationStmt:
			{
				ListCell   *lc;

				foreach(lc, ((SetOperationStmt *) res)->colTypes)
					lfirst_oid(lc) = text_type_of(types, lfirst_oid(lc));
				break;
			}
		default:
			break;
	}
}

/*
 * The other nodes that can carry keys: coercions, conditionals, arrays,
 * aggregates, set operations.  What the deparser prints of them does not
 * name a type (ARRAY[...], COALESCE(...)), but their types are set to text
 * all the same, for the checks above them.
 */
static Node *
rewrite_other(RewriteState *st, Node *node)
{
	const UninstallTypes *types = &st->types;
	Node	   *res;

	switch (nodeTag(node))
	{
		case T_RelabelType:
			if (uninstall_is_key_type(types, ((RelabelType *) node)->resulttype))
				return strip_coercion(st, node, (Node *) ((RelabelType *) node)->arg,
									  ((RelabelType *) node)->resulttype);
			break;
		case T_CoerceToDomain:
			if (uninstall_is_key_type(types, ((CoerceToDomain *) node)->resulttype))
				return strip_coercion(st, node, (Node *) ((CoerceToDomain *) node)->arg,
									  ((CoerceToDomain *) node)->resulttype);
			break;
		case T_CoerceViaIO:
			if (uninstall_is_key_type(types, ((CoerceViaIO *) node)->resulttype))
				return strip_coercion(st, node, (Node *) ((CoerceViaIO *) node)->arg,
									  ((CoerceViaIO *) node)->resulttype);
			break;
		case T_ArrayCoerceExpr:
			{
				ArrayCoerceExpr *ac = (ArrayCoerceExpr *) node;

				if (uninstall_is_key_type(types, ac->resulttype) ||
					uninstall_is_key_type(types, exprType((Node *) ac->arg)))
					return strip_coercion(st, node, (Node *) ac->arg, ac->resulttype);
				break;
			}
		case T_MinMaxExpr:
			if (uninstall_is_key_type(types, ((MinMaxExpr *) node)->minmaxtype))
				set_problem(st, pstrdup("it takes GREATEST or LEAST of keys (adjkey's byte order, not text's collation)"));
			break;
		case T_RowCompareExpr:
			{
				ListCell   *lc;

				foreach(lc, ((RowCompareExpr *) node)->opnos)
					if (getExtensionOfObject(OperatorRelationId, lfirst_oid(lc)) == types->extension)
						set_problem(st, pstrdup("it compares rows of keys"));
				break;
			}
		case T_Aggref:
			{
				Aggref	   *agg = (Aggref *) node;
				ListCell   *lc;

				if (getExtensionOfObject(ProcedureRelationId, agg->aggfnoid) == types->extension)
					set_problem(st, psprintf("it calls %s, which has no exact text equivalent",
											 format_procedure(agg->aggfnoid)));
				else if (sorts_by_key(st, agg->aggorder, agg->args))
					set_problem(st, pstrdup("an aggregate of it sorts by a key"));
				res = expression_tree_mutator(node, rewrite_mutator, st);
				foreach(lc, ((Aggref *) res)->aggargtypes)
					lfirst_oid(lc) = text_type_of(types, lfirst_oid(lc));
				return res;
			}
		case T_WindowFunc:
			if (getExtensionOfObject(ProcedureRelationId, ((WindowFunc *) node)->winfnoid) == types->extension)
				set_problem(st, psprintf("it calls %s, which has no exact text equivalent",
										 format_procedure(((WindowFunc *) node)->winfnoid)));
			break;
		case T_FieldSelect:
		case T_FieldStore:
			if (uninstall_is_key_type(types, exprType(node)))
				set_problem(st, pstrdup("it reads a key field of a composite value"));
			break;
		default:
			break;
	}
	res = expression_tree_mutator(node, rewrite_mutator, st);
	retype(types, res);
	return res;
}

static Node *
rewrite_mutator(Node *node, void *context)
{
	RewriteState *st = (RewriteState *) context;
	const UninstallTypes *types = &st->types;

	if (node == NULL)
		return NULL;
	switch (nodeTag(node))
	{
		case T_Query:
			return rewrite_query(st, (Query *) node);
		case T_Var:
		case T_Param:
		case T_CaseTestExpr:
			return rewrite_leaf(st, node);
		case T_Const:
			return uninstall_is_key_type(types, ((Const *) node)->consttype) ?
				text_const(st, (Const *) node) : copyObject(node);
		case T_OpExpr:
		case T_DistinctExpr:
		case T_NullIfExpr:
			{
				OpExpr	   *op = (OpExpr *) node;
				Node	   *res = rewrite_operator(st, node, op->opno, op->args, op->location);

				if (res != NULL)
					return res;
				break;
			}
		case T_ScalarArrayOpExpr:
			{
				ScalarArrayOpExpr *op = (ScalarArrayOpExpr *) node;
				Node	   *res = rewrite_operator(st, node, op->opno, op->args, op->location);

				if (res != NULL)
					return res;
				break;
			}
		case T_FuncExpr:
			{
				FuncExpr   *f = (FuncExpr *) node;
				bool		member;
				KeyFn		kind = key_fn_kind(st, f->funcid, &member);

				if (member)
				{
					Node	   *res = text_call(st, kind,
												(List *) rewrite_mutator((Node *) f->args, st),
												f->funcid, T_OpExpr, f->location);

					return res != NULL ? res : node;
				}
				break;
			}
		default:
			return rewrite_other(st, node);
	}
	return expression_tree_mutator(node, rewrite_mutator, st);
}

/*
 * An expression (a default, a CHECK constraint, an index predicate) or a
 * query rewritten to text; NULL with *problem set when that cannot be done
 * exactly.
 */
Node *
uninstall_rewrite(Node *node, const char **problem)
{
	RewriteState st;
	Node	   *res;

	uninstall_types_init(&st.types);
	st.problem = NULL;
	res = rewrite_mutator(node, &st);
	*problem = st.problem;
	return st.problem == NULL ? res : NULL;
}
