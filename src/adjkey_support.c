/*-------------------------------------------------------------------------
 *
 * adjkey_support.c
 *	  Planner support for begins_with: index range conditions and
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
 * prefix the bounds are computed now and shown in EXPLAIN; with any other
 * expression that is constant during the scan (a parameter of a generic
 * plan, an outer reference of a nested loop) the bounds are calls of
 * adjkey_prefix_lower() / adjkey_prefix_upper() evaluated when the scan
 * starts.  Those return bytea, compared with the key by the cross-type
 * operators of adjkey's btree family, so that a bound no key could be (the
 * empty prefix, "after every key") needs no fabricated adjkey.  This is where we differ from core's text ^@, whose support in
 * like_support.c needs a Const and so loses the index in generic plans.
 * The range is exactly equivalent to begins_with (see adjkey_funcs.c), so
 * the clause is not rechecked.
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
 * unknown type, and prefixes of keys usually fall inside one bin).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "adjlist.h"

PG_FUNCTION_INFO_V1(adjkey_begins_with_support);
PG_FUNCTION_INFO_V1(adjkey_prefix_sel);

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

/* The btree operator of a strategy for (keytype, righttype) in family. */
static Oid
bound_operator(Oid family, Oid keytype, Const *bound, int strategy)
{
	return get_opfamily_member(family, keytype,
							   bound ? bound->consttype : BYTEAOID, strategy);
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

static List *
begins_with_index_conds(SupportRequestIndexCondition *req)
{
	List	   *args;
	Node	   *leftop;
	Node	   *rightop;
	Oid			keytype;
	Oid			prefixtype;
	Oid			family;
	Oid			geop;
	Oid			ltop = InvalidOid;
	Expr	   *lower;
	Expr	   *upper = NULL;

	if (is_opclause(req->node))
		args = ((OpExpr *) req->node)->args;
	else if (is_funcclause(req->node))
		args = ((FuncExpr *) req->node)->args;
	else
		return NIL;
	if (list_length(args) != 2 || req->indexarg != 0)
		return NIL;
	if (req->index->relam != BTREE_AM_OID)
		return NIL;

	leftop = (Node *) linitial(args);
	rightop = (Node *) lsecond(args);
	keytype = exprType(leftop);
	prefixtype = exprType(rightop);

	family = adjkey_btree_family(keytype);
	if (!OidIsValid(family) || req->opfamily != family)
		return NIL;

	if (IsA(rightop, Const))
	{
		Const	   *c = (Const *) rightop;
		const char *p;
		int			plen;
		char	   *succ;
		int			n;
		Const	   *lo;

		if (c->constisnull)
			return NIL;
		p = const_prefix_bytes(c, &plen);
		if (plen == 0)
			return NIL;			/* every key matches: nothing to bound */
		lo = make_bound_const(keytype, p, plen);
		lower = (Expr *) lo;
		geop = bound_operator(family, keytype, lo, BTGreaterEqualStrategyNumber);
		succ = palloc(plen + 4);
		n = adjkey_prefix_successor(p, plen, succ);
		if (n >= 0)
		{
			Const	   *hi = make_bound_const(keytype, succ, n);

			upper = (Expr *) hi;
			ltop = bound_operator(family, keytype, hi, BTLessStrategyNumber);
		}
		else
			ltop = InvalidOid;
	}
	else
	{
		if (!is_pseudo_constant_for_index(req->root, rightop, req->index))
			return NIL;
		if (prefixtype == TEXTOID)
		{
			lower = (Expr *) makeFuncExpr(adjkey_func_oid(keytype, "adjkey_prefix_lower", TEXTOID),
										  BYTEAOID, list_make1(rightop),
										  InvalidOid, InvalidOid,
										  COERCE_EXPLICIT_CALL);
			geop = get_opfamily_member(family, keytype, BYTEAOID, BTGreaterEqualStrategyNumber);
		}
		else
		{
			lower = (Expr *) rightop;
			geop = get_opfamily_member(family, keytype, keytype, BTGreaterEqualStrategyNumber);
		}
		upper = (Expr *) makeFuncExpr(adjkey_func_oid(keytype, "adjkey_prefix_upper", prefixtype),
									  BYTEAOID, list_make1(rightop),
									  InvalidOid, InvalidOid,
									  COERCE_EXPLICIT_CALL);
		ltop = get_opfamily_member(family, keytype, BYTEAOID, BTLessStrategyNumber);
	}
	if (!OidIsValid(geop) || (upper != NULL && !OidIsValid(ltop)))
		return NIL;				/* the family lacks the cross-type operators */

	req->lossy = false;
	if (upper == NULL)
		return list_make1(make_opclause(geop, BOOLOID, false, (Expr *) leftop,
										lower, InvalidOid, InvalidOid));
	return list_make2(make_opclause(geop, BOOLOID, false, (Expr *) leftop,
									lower, InvalidOid, InvalidOid),
					  make_opclause(ltop, BOOLOID, false, (Expr *) leftop,
									upper, InvalidOid, InvalidOid));
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
 * Selectivity of "key begins_with prefix"; prefixfunc is the begins_with
 * function for the clause's argument types.
 */
static Selectivity
begins_with_selectivity(PlannerInfo *root, List *args, int varRelid,
						Oid prefixfunc)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	Selectivity sel;

	if (!get_restriction_variable(root, args, varRelid,
								  &vardata, &other, &varonleft))
		return DEFAULT_MATCH_SEL;
	if (!varonleft || !IsA(other, Const))
	{
		ReleaseVariableStats(vardata);
		return DEFAULT_MATCH_SEL;
	}
	if (((Const *) other)->constisnull)
	{
		ReleaseVariableStats(vardata);
		return 0.0;
	}

	if (!HeapTupleIsValid(vardata.statsTuple) ||
		!statistic_proc_security_check(&vardata, prefixfunc))
		sel = DEFAULT_MATCH_SEL;
	else
	{
		Const	   *c = (Const *) other;
		Form_pg_statistic stats = (Form_pg_statistic) GETSTRUCT(vardata.statsTuple);
		double		nullfrac = stats->stanullfrac;
		const char *p;
		int			plen;

		p = const_prefix_bytes(c, &plen);
		if (plen == 0)
			sel = 1.0 - nullfrac;
		else
		{
			FmgrInfo	prefixproc;
			double		sumcommon = 0.0;
			double		mcvsel;
			double		below_lower;
			double		histsel;
			bool		isdefault;
			double		ndistinct;

			fmgr_info(prefixfunc, &prefixproc);
			mcvsel = mcv_selectivity(&vardata, &prefixproc, InvalidOid,
									 c->constvalue, true, &sumcommon);

			below_lower = histogram_fraction_below(&vardata, p, plen);
			if (below_lower < 0)
				histsel = DEFAULT_MATCH_SEL;	/* no histogram */
			else
			{
				char	   *succ = palloc(plen + 4);
				int			n = adjkey_prefix_successor(p, plen, succ);
				double		below_upper = 1.0;

				if (n >= 0)
					below_upper = histogram_fraction_below(&vardata, succ, n);
				histsel = Max(below_upper - below_lower, 0.0);
			}

			/* A prefix matches at least as much as one distinct value. */
			ndistinct = get_variable_numdistinct(&vardata, &isdefault);
			if (!isdefault && ndistinct > 0)
				histsel = Max(histsel, 1.0 / ndistinct);

			sel = mcvsel + histsel * Max(1.0 - nullfrac - sumcommon, 0.0);
		}
	}
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(sel);
	return sel;
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

/* Planner support function of begins_with(adjkey, text|adjkey). */
Datum
adjkey_begins_with_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestIndexCondition))
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
