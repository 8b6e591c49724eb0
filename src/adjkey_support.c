/*-------------------------------------------------------------------------
 *
 * adjkey_support.c
 *	  Planner support for begins_with and LIKE: index range conditions and
 *	  selectivity estimates.
 *
 * The begins_with functions (behind the ^@ operators) carry a planner
 * support function.  When a begins_with clause is matched against a btree
 * index column of adjkey's default operator family, it answers
 * SupportRequestIndexCondition with the equivalent range
 *
 *		key >= lower AND key < upper
 *
 * so that "pk = $1 AND sk ^@ $2" is one btree range scan.  With a constant
 * prefix the bounds are computed now and shown in EXPLAIN (an upper bound
 * the database encoding cannot print is left to adjkey_prefix_upper() of
 * the prefix: see const_prefix_range); with any other expression that is
 * constant during the scan (a parameter of a generic plan, an outer
 * reference of a nested loop) the bounds are calls of
 * adjkey_prefix_lower() / adjkey_prefix_upper() evaluated when the scan
 * starts.  Those return bytea, compared with the key by the cross-type
 * operators of adjkey's btree family, so that a bound no key could be (the
 * empty prefix, "after every key") needs no fabricated adjkey.  This is where we differ from core's text ^@, whose support in
 * like_support.c needs a Const and so loses the index in generic plans.
 * The range is exactly equivalent to begins_with (see adjkey_funcs.c), so
 * the clause is not rechecked.
 *
 * A key as the prefix.  The operator for it is adjkey ^@ adjkey_prefix, a
 * domain over adjkey (text_ops.sql says why: an untyped prefix must be
 * text), so its prefix arrives relabelled as the domain.  The index
 * conditions are built from the key beneath (the bound functions and the
 * family's operators take adjkey), so they read exactly as for a key.  A
 * constant key prefix is turned into the text form, "key ^@ 'p'::text",
 * when its bytes are the same in text (a UTF-8 database, or ASCII): one
 * prefix written as a key or as a string is then one expression, so that a
 * partial index declared with one spelling serves queries written with the
 * other (the predicate of an index dumped from 0.2, where an untyped prefix
 * was a key, reads 'p'::adjkey).
 *
 * LIKE on keys (adjkey ~~ text, adjkey_funcs.c) has a support function of
 * its own that does the same with the pattern's literal prefix, the
 * characters before its first wildcard.  A constant pattern without
 * wildcards becomes "key = prefix", one that is its prefix followed by '%'
 * the exact begins_with range, anything else that range with the LIKE kept
 * as a recheck; a pattern that starts with a wildcard gets no index
 * condition (it stays a filter).  A parameter's prefix is only known when
 * the scan starts: the bounds are adjkey_like_lower() / adjkey_like_upper()
 * of the pattern, always rechecked (a pattern without a prefix then scans
 * the whole range).
 *
 * Key = text.  The equality of a key with text is mergejoinable, so that
 * "pk = $1" with a text parameter makes pk a constant of the query, as it
 * does with an adjkey parameter, and an index on (pk, sk) returns rows in
 * sk order without a sort.  The planner only treats pk as that constant
 * when the clause's input collation is the key's (none), but an operator
 * with a text input gets the text's collation; the comparison ignores it,
 * so a support function of key = text drops it when the text side is a
 * constant or parameter.  Only then: an outer column with no collation
 * would break the hashing of text elsewhere (Memoize).
 *
 * Operators and functions used in the generated conditions are looked up
 * in the operator family and in the schema of the adjkey type, never
 * through search_path.
 *
 * The selectivity of begins_with with a constant prefix comes from the
 * column's statistics: the most common values are tested directly, and the
 * histogram gives the fraction of the rest that falls inside the range,
 * interpolating inside a histogram bin by the bytes that follow the bin
 * bounds' common prefix (core's histogram code cannot interpolate an
 * unknown type, and prefixes of keys usually fall inside one bin).  LIKE
 * tests the most common values with the pattern itself and multiplies the
 * prefix's range by a factor for what follows the prefix (each literal
 * character 0.2, each '_' 0.9, '%' 1), or, without wildcards, takes the
 * selectivity of equality.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/clauses.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "parser/parse_oper.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "adjlist.h"

PG_FUNCTION_INFO_V1(adjkey_begins_with_support);
PG_FUNCTION_INFO_V1(adjkey_prefix_sel);
PG_FUNCTION_INFO_V1(adjkey_like_support);
PG_FUNCTION_INFO_V1(adjkey_like_sel);
PG_FUNCTION_INFO_V1(adjkey_notlike_sel);
PG_FUNCTION_INFO_V1(adjkey_text_eq_support);

/* The btree operator family that defines adjkey's ordering. */
static Oid
adjkey_btree_family(Oid keytype)
{
	Oid			opclass = GetDefaultOpClass(keytype, BTREE_AM_OID);

	return OidIsValid(opclass) ? get_opclass_family(opclass) : InvalidOid;
}

/* The UTF-8 bytes of a non-null prefix constant (text or adjkey). */
static const char *
const_prefix_bytes(Const *c, int *len)
{
	if (c->consttype == TEXTOID)
		return adjkey_text_to_utf8(DatumGetTextPP(c->constvalue), len);
	else
	{
		struct varlena *k = DatumGetAdjkeyPP(c->constvalue);

		*len = ADJKEY_LEN(k);
		return ADJKEY_DATA(k);
	}
}

static Const *
make_key_const(Oid keytype, struct varlena *key)
{
	return makeConst(keytype, -1, InvalidOid, -1, PointerGetDatum(key),
					 false, false);
}

/*
 * A bound given as UTF-8 bytes: an adjkey constant when the bytes could be
 * a key (what EXPLAIN then shows reads like one), else a bytea constant.
 */
static Const *
make_bound_const(Oid keytype, const char *p, int len)
{
	struct varlena *v = palloc(VARHDRSZ + len);

	SET_VARSIZE(v, VARHDRSZ + len);
	memcpy(VARDATA(v), p, len);
	if (len > 0 && len <= ADJKEY_MAX_BYTES)
		return make_key_const(keytype, v);
	return makeConst(BYTEAOID, -1, InvalidOid, -1, PointerGetDatum(v),
					 false, false);
}

/* Look up one of our functions in the schema of the adjkey type. */
static Oid
adjkey_func_oid(Oid keytype, const char *name, Oid argtype)
{
	HeapTuple	tp;
	Oid			nspid;
	List	   *qualname;

	tp = SearchSysCache1(TYPEOID, ObjectIdGetDatum(keytype));
	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for type %u", keytype);
	nspid = ((Form_pg_type) GETSTRUCT(tp))->typnamespace;
	ReleaseSysCache(tp);

	qualname = list_make2(makeString(get_namespace_name(nspid)),
						  makeString(pstrdup(name)));
	return LookupFuncName(qualname, 1, &argtype, false);
}

/*
 * The two arguments of a prefix or LIKE clause matched against an index
 * column of adjkey's btree family, or false when the clause cannot be an
 * index condition.
 */
static bool
index_clause_args(SupportRequestIndexCondition *req, Node **leftop,
				  Node **rightop, Oid *keytype, Oid *family)
{
	List	   *args;

	if (is_opclause(req->node))
		args = ((OpExpr *) req->node)->args;
	else if (is_funcclause(req->node))
		args = ((FuncExpr *) req->node)->args;
	else
		return false;
	if (list_length(args) != 2 || req->indexarg != 0)
		return false;
	if (req->index->relam != BTREE_AM_OID)
		return false;

	*leftop = (Node *) linitial(args);
	*rightop = (Node *) lsecond(args);
	*keytype = exprType(*leftop);
	*family = adjkey_btree_family(*keytype);
	return OidIsValid(*family) && req->opfamily == *family;
}

/* "key op bound", or NULL when the family lacks the operator. */
static Expr *
bound_clause(Oid family, Oid keytype, Node *leftop, Expr *bound,
			 Oid boundtype, int strategy)
{
	Oid			op = get_opfamily_member(family, keytype, boundtype, strategy);

	if (!OidIsValid(op))
		return NULL;
	return make_opclause(op, BOOLOID, false, (Expr *) leftop, bound,
						 InvalidOid, InvalidOid);
}

/*
 * adjkey_prefix_upper('p'::text): the upper bound of the constant prefix p
 * (UTF-8) computed when the scan starts, for a successor that the database
 * encoding cannot represent.  p itself can be represented: it is the
 * query's own constant (a string, a key, or a LIKE pattern's literal
 * prefix), so the text constant prints.
 */
static Expr *
prefix_upper_call(Oid keytype, const char *p, int plen)
{
	int			len;
	char	   *s = adjkey_to_server(adjkey_from_utf8(p, plen), &len);
	Const	   *c = makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
							  PointerGetDatum(cstring_to_text_with_len(s, len)),
							  false, false);

	return (Expr *) makeFuncExpr(adjkey_func_oid(keytype, "adjkey_prefix_upper",
												 TEXTOID),
								 BYTEAOID, list_make1(c), InvalidOid,
								 InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * The range of the keys that begin with the constant prefix p (UTF-8, not
 * empty): key >= p AND key < succ(p), without the upper bound when p has
 * no successor.  NIL when the family lacks the operators.
 *
 * A bound in the plan must print (EXPLAIN, auto_explain, deparsing), and an
 * adjkey constant prints in the database encoding.  The lower bound is p,
 * which can be represented (see prefix_upper_call), but succ(p) need not
 * be: in LATIN1 the successor of 'ÿ' is U+0100, in WIN1252 that of '€' is
 * U+20AD.  Such an upper bound is the same bytes computed at run time by
 * adjkey_prefix_upper(p), so the range stays as tight.
 */
static List *
const_prefix_range(Oid family, Oid keytype, Node *leftop, const char *p,
				   int plen)
{
	Const	   *lo = make_bound_const(keytype, p, plen);
	char	   *succ = palloc(plen + 4);
	int			n = adjkey_prefix_successor(p, plen, succ);
	Expr	   *lower;
	Expr	   *upper;

	lower = bound_clause(family, keytype, leftop, (Expr *) lo, lo->consttype,
						 BTGreaterEqualStrategyNumber);
	if (lower == NULL)
		return NIL;
	if (n < 0)
		return list_make1(lower);
	if (n <= ADJKEY_MAX_BYTES && !adjkey_utf8_representable(succ, n))
		upper = bound_clause(family, keytype, leftop,
							 prefix_upper_call(keytype, p, plen),
							 BYTEAOID, BTLessStrategyNumber);
	else
	{
		Const	   *hi = make_bound_const(keytype, succ, n);

		upper = bound_clause(family, keytype, leftop, (Expr *) hi,
							 hi->consttype, BTLessStrategyNumber);
	}
	return upper ? list_make2(lower, upper) : NIL;
}

/*
 * The range of a prefix known only when the scan starts: key >= lower AND
 * key < upper, where lower and upper are calls of the named bound functions
 * of the prefix expression.  lowerfunc NULL means the prefix (an adjkey) is
 * its own lower bound.
 */
static List *
runtime_prefix_range(Oid family, Oid keytype, Node *leftop, Node *prefix,
					 const char *lowerfunc, const char *upperfunc)
{
	Oid			prefixtype = getBaseType(exprType(prefix));
	Expr	   *lower;
	Expr	   *upper;

	if (lowerfunc != NULL)
		lower = bound_clause(family, keytype, leftop,
							 (Expr *) makeFuncExpr(adjkey_func_oid(keytype, lowerfunc, prefixtype),
												   BYTEAOID, list_make1(prefix),
												   InvalidOid, InvalidOid,
												   COERCE_EXPLICIT_CALL),
							 BYTEAOID, BTGreaterEqualStrategyNumber);
	else
		lower = bound_clause(family, keytype, leftop, (Expr *) prefix,
							 prefixtype, BTGreaterEqualStrategyNumber);
	upper = bound_clause(family, keytype, leftop,
						 (Expr *) makeFuncExpr(adjkey_func_oid(keytype, upperfunc, prefixtype),
											   BYTEAOID, list_make1(prefix),
											   InvalidOid, InvalidOid,
											   COERCE_EXPLICIT_CALL),
						 BYTEAOID, BTLessStrategyNumber);
	if (lower == NULL || upper == NULL)
		return NIL;				/* the family lacks the cross-type operators */
	return list_make2(lower, upper);
}

/*
 * The key beneath the prefix of adjkey ^@ adjkey_prefix: the planner has
 * made the parser's coercion to the domain, which has no constraint, a
 * RelabelType (of a key, or of another domain over adjkey).  Anything else
 * is returned as it is.
 */
static Node *
key_beneath_domain(Node *prefix, Oid keytype)
{
	if (IsA(prefix, RelabelType) &&
		getBaseType(exprType(prefix)) == keytype &&
		getBaseType(exprType((Node *) ((RelabelType *) prefix)->arg)) == keytype)
		return (Node *) ((RelabelType *) prefix)->arg;
	return prefix;
}

static List *
begins_with_index_conds(SupportRequestIndexCondition *req)
{
	Node	   *leftop;
	Node	   *rightop;
	Oid			keytype;
	Oid			family;
	List	   *conds;

	if (!index_clause_args(req, &leftop, &rightop, &keytype, &family))
		return NIL;
	rightop = key_beneath_domain(rightop, keytype);

	if (IsA(rightop, Const))
	{
		Const	   *c = (Const *) rightop;
		const char *p;
		int			plen;

		if (c->constisnull)
			return NIL;
		p = const_prefix_bytes(c, &plen);
		if (plen == 0)
			return NIL;			/* every key matches: nothing to bound */
		conds = const_prefix_range(family, keytype, leftop, p, plen);
	}
	else
	{
		if (!is_pseudo_constant_for_index(req->root, rightop, req->index))
			return NIL;
		conds = runtime_prefix_range(family, keytype, leftop, rightop,
									 getBaseType(exprType(rightop)) == TEXTOID ?
									 "adjkey_prefix_lower" : NULL,
									 "adjkey_prefix_upper");
	}
	if (conds != NIL)
		req->lossy = false;		/* the range is exactly begins_with */
	return conds;
}

static List *
like_index_conds(SupportRequestIndexCondition *req)
{
	Node	   *leftop;
	Node	   *rightop;
	Oid			keytype;
	Oid			family;
	List	   *conds;

	if (!index_clause_args(req, &leftop, &rightop, &keytype, &family) ||
		exprType(rightop) != TEXTOID)
		return NIL;

	if (IsA(rightop, Const))
	{
		Const	   *c = (Const *) rightop;
		const char *p;
		int			plen;
		char	   *prefix;
		int			n;
		AdjkeyLikeKind kind;

		if (c->constisnull)
			return NIL;
		p = adjkey_text_bytes(DatumGetTextPP(c->constvalue), &plen);
		prefix = palloc(plen + 1);
		kind = adjkey_like_prefix(p, plen, prefix, &n);
		if (kind == ADJKEY_LIKE_EXACT)
		{
			Const	   *k = make_bound_const(keytype, prefix, n);
			Expr	   *eq = bound_clause(family, keytype, leftop, (Expr *) k,
										  k->consttype, BTEqualStrategyNumber);

			if (eq == NULL)
				return NIL;
			req->lossy = false;
			return list_make1(eq);
		}
		if (kind == ADJKEY_LIKE_BAD || n == 0)
			return NIL;			/* an error to come, or no prefix: a filter */
		conds = const_prefix_range(family, keytype, leftop, prefix, n);
		if (conds != NIL)
			req->lossy = (kind != ADJKEY_LIKE_PREFIX);
		return conds;
	}

	if (!is_pseudo_constant_for_index(req->root, rightop, req->index))
		return NIL;
	conds = runtime_prefix_range(family, keytype, leftop, rightop,
								 "adjkey_like_lower", "adjkey_like_upper");
	req->lossy = true;
	return conds;
}

/*
 * A key's position between two histogram bounds lo <= key < hi, as a
 * fraction: the bytes after the bounds' common prefix read as a base-256
 * fraction, as core's convert_string_to_scalar() does for text.
 */
static double
bin_fraction(const char *lo, int lolen, const char *hi, int hilen,
			 const char *k, int klen)
{
	int			c = 0;
	double		l = 0.0,
				h = 0.0,
				v = 0.0,
				scale = 1.0;

	while (c < lolen && c < hilen && lo[c] == hi[c])
		c++;
	for (int i = c; i < c + 8; i++)
	{
		scale /= 256.0;
		l += (i < lolen ? (unsigned char) lo[i] : 0) * scale;
		h += (i < hilen ? (unsigned char) hi[i] : 0) * scale;
		v += (i < klen ? (unsigned char) k[i] : 0) * scale;
	}
	if (h <= l)
		return 0.5;
	return Min(Max((v - l) / (h - l), 0.0), 1.0);
}

/*
 * The fraction of the histogram's population below key, or -1 when the
 * column has no histogram.
 */
static double
histogram_fraction_below(VariableStatData *vardata, const char *k, int klen)
{
	AttStatsSlot sslot;
	double		result;
	int			lo,
				hi;

	if (!get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_HISTOGRAM,
						  InvalidOid, ATTSTATSSLOT_VALUES))
		return -1.0;
	if (sslot.nvalues < 2)
	{
		free_attstatsslot(&sslot);
		return -1.0;
	}

	/* find the last bound <= key; the bounds are sorted by our ordering */
	lo = 0;
	hi = sslot.nvalues - 1;
	{
		struct varlena *first = DatumGetAdjkeyPP(sslot.values[0]);
		struct varlena *last = DatumGetAdjkeyPP(sslot.values[hi]);

		if (adjkey_cmp_bytes(k, klen, ADJKEY_DATA(first), ADJKEY_LEN(first)) < 0)
		{
			free_attstatsslot(&sslot);
			return 0.0;
		}
		if (adjkey_cmp_bytes(k, klen, ADJKEY_DATA(last), ADJKEY_LEN(last)) >= 0)
		{
			free_attstatsslot(&sslot);
			return 1.0;
		}
	}
	while (hi - lo > 1)
	{
		int			mid = (lo + hi) / 2;
		struct varlena *m = DatumGetAdjkeyPP(sslot.values[mid]);

		if (adjkey_cmp_bytes(ADJKEY_DATA(m), ADJKEY_LEN(m), k, klen) <= 0)
			lo = mid;
		else
			hi = mid;
	}
	{
		struct varlena *l = DatumGetAdjkeyPP(sslot.values[lo]);
		struct varlena *h = DatumGetAdjkeyPP(sslot.values[hi]);

		result = (lo + bin_fraction(ADJKEY_DATA(l), ADJKEY_LEN(l),
									ADJKEY_DATA(h), ADJKEY_LEN(h), k, klen))
			/ (sslot.nvalues - 1);
	}
	free_attstatsslot(&sslot);
	return result;
}

/*
 * The selectivity of what follows the literal prefix of a LIKE pattern
 * (see the file header).
 */
static double
like_rest_selectivity(const char *p, int plen)
{
	double		sel = 1.0;
	int			i = 0;

	/* skip the prefix */
	while (i < plen && p[i] != '%' && p[i] != '_')
		i += (p[i] == '\\') ? 2 : 1;
	for (; i < plen; i++)
	{
		unsigned char c = (unsigned char) p[i];

		if (c == '%')
			continue;
		if (c == '_')
			sel *= 0.9;
		else if (c == '\\' || (c & 0xC0) != 0x80)
		{
			sel *= 0.2;			/* a literal character (its first byte) */
			if (c == '\\')
				i++;
		}
	}
	return sel;
}

/*
 * The selectivity of a match from the column's statistics: the most common
 * values tested with the clause itself (value, by matchfunc), the rest from
 * the histogram's share between the prefix p and its successor (or one
 * distinct value for an exact pattern), times restsel (what a LIKE pattern
 * asks beyond its prefix).
 */
static Selectivity
stats_match_selectivity(VariableStatData *vardata, Oid matchfunc, Datum value,
						AdjkeyLikeKind kind, const char *p, int plen,
						double restsel, double nullfrac)
{
	FmgrInfo	matchproc;
	double		sumcommon = 0.0;
	double		mcvsel;
	double		histsel;
	bool		isdefault;
	double		ndistinct;

	fmgr_info(matchfunc, &matchproc);
	mcvsel = mcv_selectivity(vardata, &matchproc, InvalidOid, value, true, &sumcommon);
	ndistinct = get_variable_numdistinct(vardata, &isdefault);

	if (kind == ADJKEY_LIKE_EXACT)
		histsel = (!isdefault && ndistinct > 0) ? 1.0 / ndistinct : DEFAULT_EQ_SEL;
	else if (plen == 0)
		histsel = 1.0;
	else
	{
		double		below_lower = histogram_fraction_below(vardata, p, plen);

		if (below_lower < 0)
			histsel = DEFAULT_MATCH_SEL;	/* no histogram */
		else
		{
			char	   *succ = palloc(plen + 4);
			int			n = adjkey_prefix_successor(p, plen, succ);
			double		below_upper = 1.0;

			if (n >= 0)
				below_upper = histogram_fraction_below(vardata, succ, n);
			histsel = Max(below_upper - below_lower, 0.0);
		}
		/* A prefix matches at least as much as one distinct value. */
		if (!isdefault && ndistinct > 0)
			histsel = Max(histsel, 1.0 / ndistinct);
	}
	histsel *= restsel;

	return mcvsel + histsel * Max(1.0 - nullfrac - sumcommon, 0.0);
}

/*
 * Selectivity of "key begins_with prefix" (is_like false) or "key LIKE
 * pattern" (is_like true); matchfunc is the function of the clause.  The
 * fraction of nulls is returned in *nullfrac (0 when unknown).
 */
static Selectivity
match_selectivity(PlannerInfo *root, List *args, int varRelid,
				  Oid matchfunc, bool is_like, double *nullfrac)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	Selectivity sel;
	Const	   *c;
	const char *p;
	int			plen;
	char	   *prefix = NULL;
	int			prefixlen;
	AdjkeyLikeKind kind = ADJKEY_LIKE_PREFIX;
	double		restsel = 1.0;

	*nullfrac = 0.0;
	if (!get_restriction_variable(root, args, varRelid,
								  &vardata, &other, &varonleft))
		return DEFAULT_MATCH_SEL;
	if (!varonleft || !IsA(other, Const))
	{
		ReleaseVariableStats(vardata);
		return DEFAULT_MATCH_SEL;
	}
	c = (Const *) other;
	if (c->constisnull)
	{
		ReleaseVariableStats(vardata);
		return 0.0;
	}

	/* what the pattern or prefix asks for */
	if (is_like)
	{
		p = adjkey_text_bytes(DatumGetTextPP(c->constvalue), &plen);
		prefix = palloc(plen + 1);
		kind = adjkey_like_prefix(p, plen, prefix, &prefixlen);
		if (kind == ADJKEY_LIKE_BAD)
		{
			ReleaseVariableStats(vardata);
			return DEFAULT_MATCH_SEL;	/* an error to come */
		}
		restsel = like_rest_selectivity(p, plen);
		p = prefix;
		plen = prefixlen;
	}
	else
		p = const_prefix_bytes(c, &plen);

	if (!HeapTupleIsValid(vardata.statsTuple) ||
		!statistic_proc_security_check(&vardata, matchfunc))
	{
		if (kind == ADJKEY_LIKE_EXACT)
			sel = DEFAULT_EQ_SEL;
		else if (is_like)
			sel = (plen == 0 ? 1.0 : DEFAULT_MATCH_SEL) * restsel;
		else
			sel = DEFAULT_MATCH_SEL;
	}
	else
	{
		*nullfrac = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
		if (plen == 0 && kind == ADJKEY_LIKE_PREFIX)
			sel = 1.0 - *nullfrac;	/* every key */
		else
			sel = stats_match_selectivity(&vardata, matchfunc, c->constvalue,
										  kind, p, plen, restsel, *nullfrac);
	}
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(sel);
	return sel;
}

static Selectivity
begins_with_selectivity(PlannerInfo *root, List *args, int varRelid,
						Oid prefixfunc)
{
	double		nullfrac;

	return match_selectivity(root, args, varRelid, prefixfunc, false, &nullfrac);
}

/* Restriction estimator of the ^@ operators. */
Datum
adjkey_prefix_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);

	PG_RETURN_FLOAT8(begins_with_selectivity(root, args, varRelid,
											 get_opcode(operator)));
}

/*
 * "key ^@ 'p'::text" for a constant key prefix of adjkey ^@ adjkey_prefix
 * (see the file header), or NULL.  The operator and the constant are those
 * the parser makes of "key ^@ 'p'", so that equal() finds them the same.
 */
static Node *
begins_with_simplify(SupportRequestSimplify *req)
{
	FuncExpr   *call = req->fcall;
	Node	   *left;
	Const	   *c;
	Oid			keytype;
	Oid			opno;
	char	   *nspname;
	struct varlena *key;
	const char *p;
	int			plen;

	if (list_length(call->args) != 2 || !IsA(lsecond(call->args), Const))
		return NULL;
	left = (Node *) linitial(call->args);
	c = (Const *) lsecond(call->args);
	keytype = exprType(left);
	/* only a key that came through the domain: the operator's prefix */
	if (c->constisnull || c->consttype == keytype ||
		getBaseType(c->consttype) != keytype)
		return NULL;

	key = DatumGetAdjkeyPP(c->constvalue);
	p = ADJKEY_DATA(key);
	plen = ADJKEY_LEN(key);
	if (GetDatabaseEncoding() != PG_UTF8)
	{
		for (int i = 0; i < plen; i++)
			if (IS_HIGHBIT_SET(p[i]))
				return NULL;	/* other bytes in text: left as it is */
	}

	nspname = get_namespace_name(get_func_namespace(call->funcid));
	if (nspname == NULL)
		return NULL;
	opno = LookupOperName(NULL, list_make2(makeString(nspname), makeString("^@")),
						  keytype, TEXTOID, true, -1);
	if (!OidIsValid(opno))
		return NULL;
	return (Node *) make_opclause(opno, BOOLOID, false, (Expr *) left,
								  (Expr *) makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1,
													 PointerGetDatum(cstring_to_text_with_len(p, plen)),
													 false, false),
								  InvalidOid, DEFAULT_COLLATION_OID);
}

/* Planner support function of begins_with(adjkey, text|adjkey) and ^@. */
Datum
adjkey_begins_with_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestSimplify))
	{
		Node	   *simpler = begins_with_simplify((SupportRequestSimplify *) rawreq);

		if (simpler != NULL)
			PG_RETURN_POINTER(simpler);
	}
	else if (IsA(rawreq, SupportRequestIndexCondition))
	{
		SupportRequestIndexCondition *req = (SupportRequestIndexCondition *) rawreq;
		List	   *conds = begins_with_index_conds(req);

		if (conds != NIL)
			PG_RETURN_POINTER(conds);
	}
	else if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		if (req->is_join)
			req->selectivity = DEFAULT_MATCH_SEL;
		else
			req->selectivity = begins_with_selectivity(req->root, req->args,
													   req->varRelid, req->funcid);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/* Restriction estimator of adjkey ~~ text (LIKE). */
Datum
adjkey_like_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	double		nullfrac;

	PG_RETURN_FLOAT8(match_selectivity(root, args, varRelid,
									   get_opcode(operator), true, &nullfrac));
}

/* Restriction estimator of adjkey !~~ text (NOT LIKE), through its negator. */
Datum
adjkey_notlike_sel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			negator = get_negator(PG_GETARG_OID(1));
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	double		nullfrac;
	Selectivity sel;

	if (!OidIsValid(negator))
		PG_RETURN_FLOAT8(1.0 - DEFAULT_MATCH_SEL);
	sel = match_selectivity(root, args, varRelid, get_opcode(negator), true,
							&nullfrac);
	sel = 1.0 - sel - nullfrac;
	CLAMP_PROBABILITY(sel);
	PG_RETURN_FLOAT8(sel);
}

/* Planner support function of like(adjkey, text), behind ~~. */
Datum
adjkey_like_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestIndexCondition))
	{
		SupportRequestIndexCondition *req = (SupportRequestIndexCondition *) rawreq;
		List	   *conds = like_index_conds(req);

		if (conds != NIL)
			PG_RETURN_POINTER(conds);
	}
	else if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;
		double		nullfrac;

		if (req->is_join)
			req->selectivity = DEFAULT_MATCH_SEL;
		else
			req->selectivity = match_selectivity(req->root, req->args,
												 req->varRelid, req->funcid,
												 true, &nullfrac);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}

/*
 * Planner support function of key = text and text = key: the clause
 * without its input collation when the text is a constant or parameter
 * (see the file header).
 */
Datum
adjkey_text_eq_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	SupportRequestSimplify *req;
	FuncExpr   *call;
	Node	   *left;
	Node	   *right;
	Node	   *textarg;
	Oid			opno;
	char	   *nspname;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	req = (SupportRequestSimplify *) rawreq;
	call = req->fcall;
	if (!OidIsValid(call->inputcollid) || list_length(call->args) != 2)
		PG_RETURN_POINTER(NULL);

	left = (Node *) linitial(call->args);
	right = (Node *) lsecond(call->args);
	textarg = (exprType(left) == TEXTOID) ? left : right;
	if (!is_pseudo_constant_clause(textarg))
		PG_RETURN_POINTER(NULL);

	nspname = get_namespace_name(get_func_namespace(call->funcid));
	if (nspname == NULL)
		PG_RETURN_POINTER(NULL);
	opno = LookupOperName(NULL, list_make2(makeString(nspname), makeString("=")),
						  exprType(left), exprType(right), true, -1);
	if (!OidIsValid(opno) || get_opcode(opno) != call->funcid)
		PG_RETURN_POINTER(NULL);
	PG_RETURN_POINTER(make_opclause(opno, BOOLOID, false, (Expr *) left,
									(Expr *) right, InvalidOid, InvalidOid));
}
