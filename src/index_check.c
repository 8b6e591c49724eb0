/*-------------------------------------------------------------------------
 *
 * index_check.c
 *	  What an inverted index should hold, and the functions that compare it
 *	  with what it holds: verify_inverted_index(), rebuild_inverted_index(),
 *	  compact_counters() and edge_count().
 *
 * adjlist_index_rows() and adjlist_index_counts() compute, in C with the
 * rules of index_rule.c, the rows and the counts an index should have;
 * verify and rebuild are SQL over them, generated here from the registry.
 * They read the base table as its owner without row-level security (an
 * index covers every row), so they are for the base table's owner only.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "adjlist.h"
#include "base_key.h"
#include "catalog.h"
#include "detach_pending.h"
#include "index_admin.h"
#include "index_check.h"
#include "index_rule.h"
#include "index_write.h"
#include "plan_cache.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_index_rows);
PG_FUNCTION_INFO_V1(adjlist_index_counts);
PG_FUNCTION_INFO_V1(adjlist_verify_inverted_index);
PG_FUNCTION_INFO_V1(adjlist_rebuild_inverted_index);
PG_FUNCTION_INFO_V1(adjlist_compact_counters);
PG_FUNCTION_INFO_V1(adjlist_edge_count);

/* The registered index indexrel, for its base table's owner only. */
static IndexDef *
owned_index(Oid indexrel)
{
	IndexDef   *ix;
	Oid			base = registry_base_of_index(indexrel);

	/*
	 * The base table first, then the index, the order DDL on them takes
	 * (create_inverted_index, drop, ALTER): an index locked first here
	 * deadlocked with index DDL that waited for it while holding the base
	 * table.  A call that waited for a concurrent drop finds the index gone.
	 */
	if (OidIsValid(base) && SearchSysCacheExists1(RELOID, ObjectIdGetDatum(base)))
	{
		/* the owner's only: a refused caller queues for no lock */
		if (!adjlist_rel_ownercheck(base, GetUserId()))
			aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(base));
		LockRelationOid(base, AccessShareLock);
	}
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(indexrel)))
		LockRelationOid(indexrel, AccessShareLock);
	ix = SearchSysCacheExists1(RELOID, ObjectIdGetDatum(indexrel)) ?
		registry_index(indexrel, true) : NULL;

	if (ix == NULL)
	{
		char	   *name = get_rel_name(indexrel);

		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("\"%s\" is not an inverted index", name ? name : "?")));
	}
	if (!adjlist_rel_ownercheck(ix->baserel, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(ix->baserel));
	registry_require_visible(ix->indexrel, ix->xmin);
	return ix;
}

/* ----------------------------------------------------------------------
 * What an index should hold
 * ----------------------------------------------------------------------
 */

typedef struct RowsArg
{
	const IndexDef *ix;
	Tuplestorestate *ts;
	TupleDesc	desc;
	Datum	   *row;
	bool	   *rownull;
	Counts	   *counts;
} RowsArg;

static void
rows_cb(void *arg, Datum *base, bool *basenull)
{
	RowsArg    *a = (RowsArg *) arg;
	Datum		logical;

	if (!index_row(a->ix, base, basenull, a->row, a->rownull, &logical))
		return;
	if (a->counts)
		counts_add(a->counts, logical, a->row[1], 1);
	else
		tuplestore_putvalues(a->ts, a->desc, a->row, a->rownull);
}

/*
 * adjlist_index_rows(index regclass) RETURNS SETOF record: the rows the
 * index should hold, in its registry column order (the caller gives the
 * column definition list).
 */
Datum
adjlist_index_rows(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IndexDef   *ix = owned_index(PG_GETARG_OID(0));
	AdjlistRoleSwitch role;
	RowsArg		a;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	if (rsinfo->setDesc->natts != ix->ncols)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the column definition list must have the %d columns of the index",
						ix->ncols)));
	for (int i = 0; i < ix->ncols; i++)
		if (TupleDescAttr(rsinfo->setDesc, i)->atttypid != ix->coltypes[i])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column %d of the column definition list must be of type %s",
							i + 1, format_type_be(ix->coltypes[i]))));
	memset(&a, 0, sizeof(a));
	a.ix = ix;
	a.ts = rsinfo->setResult;
	a.desc = rsinfo->setDesc;
	a.row = palloc(sizeof(Datum) * ix->ncols);
	a.rownull = palloc(sizeof(bool) * ix->ncols);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	base_scan(ix->baserel, ix, false, false, rows_cb, &a);
	adjlist_unbecome(&role);
	SPI_finish();
	return (Datum) 0;
}

/*
 * adjlist_index_counts(index regclass) RETURNS TABLE (node adjkey, edge
 * text, direction "char", n bigint): the degree counts the index's base
 * table gives, possibly in several rows per group (sum them).
 */
Datum
adjlist_index_counts(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IndexDef   *ix = owned_index(PG_GETARG_OID(0));
	AdjlistRoleSwitch role;
	RowsArg		a;

	InitMaterializedSRF(fcinfo, 0);
	memset(&a, 0, sizeof(a));
	a.ix = ix;
	a.row = palloc(sizeof(Datum) * ix->ncols);
	a.rownull = palloc(sizeof(bool) * ix->ncols);
	a.counts = counts_create(ix);
	counts_set_sink(a.counts, rsinfo->setResult, rsinfo->setDesc);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	base_scan(ix->baserel, ix, false, false, rows_cb, &a);
	counts_flush(a.counts);
	adjlist_unbecome(&role);
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------------
 * The SQL that compares
 * ----------------------------------------------------------------------
 */

/*
 * The rows where the index and its definition differ:
 *
 *	problem text, key jsonb, expected jsonb, actual jsonb,
 *	e_c1 .. e_cn (the expected row), a_c1 .. a_cn (the row in the index)
 *
 * Rows are compared column by column in their text form (1.0 and 1.00
 * differ), or, typed, with their types' equality where they have one (a
 * build's validation, where the index's values are copies of the table's).
 * Under a deferrable key (a multiset) the rows of one key are numbered in
 * the order of their text form on each side and paired by number, so a key
 * held twice by both sides alike is no difference.  No anonymous record is built: on Citus the index table's rows
 * are first gathered on the coordinator (the materialized CTE), and no
 * record type travels between nodes.
 */
static char *
diff_rows_sql(const IndexDef *ix, bool by_type)
{
	StringInfoData cols;
	StringInfoData ecols;
	StringInfoData key;
	StringInfoData exp;
	StringInfoData act;
	StringInfoData on;
	StringInfoData differ;
	StringInfoData typed;
	const char *window = "";

	initStringInfo(&cols);
	initStringInfo(&ecols);
	initStringInfo(&key);
	initStringInfo(&exp);
	initStringInfo(&act);
	initStringInfo(&on);
	initStringInfo(&differ);
	initStringInfo(&typed);
	for (int i = 0; i < ix->ncols; i++)
	{
		const char *c = quote_identifier(ix->colnames[i]);
		const char *lit = quote_literal_cstr(ix->colnames[i]);

		appendStringInfo(&cols, "%s%s", i ? ", " : "", c);
		appendStringInfo(&ecols, "%s%s %s", i ? ", " : "", c,
						 adjlist_type_sql(ix->coltypes[i]));
		appendStringInfo(&exp, "%s%s, e.%s", i ? ", " : "", lit, c);
		appendStringInfo(&act, "%s%s, a.%s", i ? ", " : "", lit, c);
		if (by_type && i >= ix->nkeys &&
			OidIsValid(lookup_type_cache(ix->coltypes[i], TYPECACHE_EQ_OPR)->eq_opr))
			appendStringInfo(&differ, " OR (e.%s IS NULL) OPERATOR(pg_catalog.<>) (a.%s IS NULL)"
							 " OR NOT (e.%s %s a.%s)", c, c, c,
							 adjlist_equality_sql(ix->coltypes[i]), c);
		else
			appendStringInfo(&differ, " OR e.%s::pg_catalog.text IS DISTINCT FROM a.%s::pg_catalog.text", c, c);
		appendStringInfo(&typed, ", e.%s", c);
		if (i < ix->nkeys)
		{
			appendStringInfo(&key, "%s%s, COALESCE(e.%s, a.%s)", i ? ", " : "", lit, c, c);
			appendStringInfo(&on, "%se.%s %s a.%s", i ? " AND " : "", c,
							 adjlist_equality_sql(ix->coltypes[i]), c);
		}
	}
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&typed, ", a.%s", quote_identifier(ix->colnames[i]));
	if (index_writer_key_deferrable(ix->indexrel, ix->colnames, ix->nkeys))
	{
		/* a multiset: the rows of one key paired in order, not crossed */
		StringInfoData part;
		StringInfoData ord;

		initStringInfo(&part);
		initStringInfo(&ord);
		for (int i = 0; i < ix->ncols; i++)
		{
			const char *c = quote_identifier(ix->colnames[i]);

			if (i < ix->nkeys)
				appendStringInfo(&part, "%s%s", i ? ", " : "", c);
			appendStringInfo(&ord, "%s%s::pg_catalog.text", i ? ", " : "", c);
		}
		window = psprintf(", pg_catalog.row_number() OVER (PARTITION BY %s ORDER BY %s) AS adjlist_n",
						  part.data, ord.data);
		appendStringInfoString(&on, " AND e.adjlist_n OPERATOR(pg_catalog.=) a.adjlist_n");
	}
	return psprintf("WITH a AS %s(SELECT %s, true AS adjlist_present%s FROM %s), "
					"e AS (SELECT *, true AS adjlist_present%s FROM %s.adjlist_index_rows("
					"%u::pg_catalog.oid::pg_catalog.regclass) AS er(%s)) "
					"SELECT CASE WHEN a.adjlist_present IS NULL THEN 'missing' "
					"WHEN e.adjlist_present IS NULL THEN 'extra' ELSE 'stale' END::pg_catalog.text, "
					"pg_catalog.jsonb_build_object(%s), "
					"CASE WHEN e.adjlist_present THEN pg_catalog.jsonb_build_object(%s) END, "
					"CASE WHEN a.adjlist_present THEN pg_catalog.jsonb_build_object(%s) END%s "
					"FROM e FULL JOIN a ON %s "
					"WHERE a.adjlist_present IS NULL OR e.adjlist_present IS NULL%s",
					by_type ? "" : "MATERIALIZED ", cols.data, window,
					adjlist_qualified_name(ix->indexrel), window,
					adjlist_catalog()->nspname, ix->indexrel, ecols.data,
					key.data, exp.data, act.data, typed.data, on.data, differ.data);
}

/* The counter groups whose sum differs from a recount. */
static char *
diff_counts_sql(const IndexDef *ix)
{
	const char *nsp = adjlist_catalog()->nspname;

	return psprintf("WITH e AS (SELECT node, edge, direction, pg_catalog.sum(n)::pg_catalog.int8 AS n "
					"FROM %1$s.adjlist_index_counts(%2$u::pg_catalog.oid::pg_catalog.regclass) "
					"GROUP BY 1, 2, 3), "
					"a AS (SELECT node, edge, direction, pg_catalog.sum(n)::pg_catalog.int8 AS n "
					"FROM %3$s GROUP BY 1, 2, 3) "
					"SELECT 'count'::pg_catalog.text, pg_catalog.jsonb_build_object('node', "
					"COALESCE(e.node, a.node), 'edge', COALESCE(e.edge, a.edge), "
					"'direction', COALESCE(e.direction, a.direction)), "
					"pg_catalog.jsonb_build_object('n', COALESCE(e.n, 0)), "
					"pg_catalog.jsonb_build_object('n', COALESCE(a.n, 0)) "
					"FROM e FULL JOIN a ON e.node OPERATOR(%1$s.=) a.node "
					"AND e.edge OPERATOR(pg_catalog.=) a.edge COLLATE pg_catalog.\"C\" "
					"AND e.direction OPERATOR(pg_catalog.=) a.direction "
					"WHERE COALESCE(e.n, 0) OPERATOR(pg_catalog.<>) COALESCE(a.n, 0)",
					nsp, ix->indexrel, adjlist_qualified_name(ix->counterrel));
}

/* ----------------------------------------------------------------------
 * verify_inverted_index, rebuild_inverted_index
 * ----------------------------------------------------------------------
 */

static void
copy_result(ReturnSetInfo *rsinfo)
{
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		Datum		values[4];
		bool		nulls[4];

		for (int c = 0; c < 4; c++)
			values[c] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, c + 1,
									  &nulls[c]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
}

/* A one-member jsonb object {"name": n}. */
static Datum
jsonb_int_object(const char *name, int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	escape_json(&buf, name);
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(psprintf("{%s: %d}", buf.data, n)));
}

/* The base key of a base row as a jsonb object, each value its text. */
static Datum
base_key_jsonb(const IndexDef *ix, Datum *base, bool *basenull)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	for (int b = 0; b < ix->nbasekey; b++)
		for (int i = 0; i < ix->ncols; i++)
		{
			Oid			out;
			bool		varlena;

			if (strcmp(ix->colnames[i], ix->base_key[b]) != 0)
				continue;
			if (buf.len > 1)
				appendStringInfoString(&buf, ", ");
			escape_json(&buf, ix->colnames[i]);
			appendStringInfoString(&buf, ": ");
			getTypeOutputInfo(ix->coltypes[i], &out, &varlena);
			if (basenull[i])
				appendStringInfoString(&buf, "null");
			else
				escape_json(&buf, OidOutputFunctionCall(out, base[i]));
			break;
		}
	appendStringInfoChar(&buf, '}');
	return DirectFunctionCall1(jsonb_in, CStringGetDatum(buf.data));
}

typedef struct BreachArg
{
	const IndexDef *ix;
	ReturnSetInfo *rsinfo;
} BreachArg;

/*
 * verify: a base row whose key breaks a limit (index_row_breach()), older
 * than the checks: 'too_long', its base key, {"column": limit} and
 * {"column": bytes}.
 */
static void
breach_cb(void *arg, Datum *base, bool *basenull)
{
	BreachArg  *a = (BreachArg *) arg;
	KeyBreach	kb;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	if (!index_row_breach(a->ix, base, basenull, &kb))
		return;
	values[0] = CStringGetTextDatum("too_long");
	values[1] = base_key_jsonb(a->ix, base, basenull);
	values[2] = jsonb_int_object(kb.column, kb.limit);
	values[3] = jsonb_int_object(kb.column, kb.len);
	tuplestore_putvalues(a->rsinfo->setResult, a->rsinfo->setDesc, values, nulls);
}

/*
 * verify_inverted_index(index regclass) RETURNS TABLE (problem text, key
 * jsonb, expected jsonb, actual jsonb): 'missing', 'extra' and 'stale'
 * rows (compared by their text form), 'too_long' base rows (a key over
 * DynamoDB's limit for its role, written before the limits were kept or
 * with the triggers off: reported, not raised, so that the rest of the
 * check still runs; the index holds such a row like any other), and
 * 'count' groups of the degree counters; none means the index is exact.
 */
Datum
adjlist_verify_inverted_index(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IndexDef   *ix = owned_index(PG_GETARG_OID(0));
	AdjlistRoleSwitch role;

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	if (SPI_execute(diff_rows_sql(ix, false), true, 0) != SPI_OK_SELECT)
		elog(ERROR, "verify query failed");
	copy_result(rsinfo);		/* the first four columns */
	{
		BreachArg	b = {ix, rsinfo};

		base_scan(ix->baserel, ix, false, true, breach_cb, &b);
	}
	if (OidIsValid(ix->counterrel))
	{
		if (SPI_execute(diff_counts_sql(ix), true, 0) != SPI_OK_SELECT)
			elog(ERROR, "verify query failed");
		copy_result(rsinfo);
	}
	adjlist_unbecome(&role);
	SPI_finish();
	return (Datum) 0;
}

/*
 * The rows where the index differs from its base table, counted with the
 * transaction's snapshot (a concurrent build's validation: writers go on,
 * and one snapshot sees each of their transactions whole or not at all).
 */
int64
index_count_differences(const IndexDef *ix)
{
	AdjlistRoleSwitch role;
	int64		n;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM (%s) d", diff_rows_sql(ix, true)),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "validation query failed");
	n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
									&(bool){false}));
	adjlist_unbecome(&role);
	SPI_finish();
	return n;
}

/*
 * Make the counters of the index add up to the counts of its base table:
 * one delta row per group that is off, computed with one snapshot, so that
 * writers that commit later (whose own deltas are right) keep them right.
 */
void
index_correct_counters(const IndexDef *ix)
{
	AdjlistRoleSwitch role;

	if (!OidIsValid(ix->counterrel))
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	index_execute_sql(psprintf("WITH e AS (SELECT node, edge, direction, pg_catalog.sum(n)::pg_catalog.int8 AS n "
							   "FROM %1$s.adjlist_index_counts(%2$u::pg_catalog.oid::pg_catalog.regclass) "
							   "GROUP BY 1, 2, 3), "
							   "a AS (SELECT node, edge, direction, pg_catalog.sum(n)::pg_catalog.int8 AS n "
							   "FROM %3$s GROUP BY 1, 2, 3) "
							   "INSERT INTO %3$s (node, edge, direction, n) "
							   "SELECT COALESCE(e.node, a.node), COALESCE(e.edge, a.edge), "
							   "COALESCE(e.direction, a.direction), "
							   "COALESCE(e.n, 0) OPERATOR(pg_catalog.-) COALESCE(a.n, 0) "
							   "FROM e FULL JOIN a ON e.node OPERATOR(%1$s.=) a.node "
							   "AND e.edge OPERATOR(pg_catalog.=) a.edge COLLATE pg_catalog.\"C\" "
							   "AND e.direction OPERATOR(pg_catalog.=) a.direction "
							   "WHERE COALESCE(e.n, 0) OPERATOR(pg_catalog.<>) COALESCE(a.n, 0)",
							   adjlist_catalog()->nspname, ix->indexrel,
							   adjlist_qualified_name(ix->counterrel)),
					  false, SPI_OK_INSERT);
	adjlist_unbecome(&role);
	SPI_finish();
}

/* check_all_rows(): the row being checked, for the context of an error */
typedef struct CheckArg
{
	const IndexDef *ix;
	Datum	   *base;
	bool	   *basenull;
} CheckArg;

static void
check_error_context(void *arg)
{
	CheckArg   *a = (CheckArg *) arg;

	if (a->base != NULL)
		index_row_errcontext(a->ix, a->base, a->basenull);
}

static void
check_cb(void *arg, Datum *base, bool *basenull)
{
	CheckArg   *a = (CheckArg *) arg;

	a->base = base;
	a->basenull = basenull;
	index_row_check_base(a->ix, base, basenull);
	a->base = NULL;
}

/*
 * Completing a concurrent build that failed is a build: every row of the
 * base table keeps the key limits, and the error names the first that
 * does not, as create_inverted_index() does.  (A ready index's rebuild
 * mirrors the table, rows older than the limits included.)
 */
static void
check_all_rows(const IndexDef *ix)
{
	CheckArg	a = {ix, NULL, NULL};
	AdjlistRoleSwitch role;
	ErrorContextCallback errcb;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	errcb.callback = check_error_context;
	errcb.arg = &a;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	base_scan(ix->baserel, ix, true, true, check_cb, &a);
	error_context_stack = errcb.previous;
	adjlist_unbecome(&role);
	SPI_finish();
}

/*
 * rebuild_inverted_index(index regclass) RETURNS bigint: repair the index
 * from its base table, touching only the rows that drifted, and recount
 * the counters when a group is off.  Returns the number of problems
 * verify reported.  Writers of the base table wait meanwhile.
 */
Datum
adjlist_rebuild_inverted_index(PG_FUNCTION_ARGS)
{
	IndexDef   *ix = owned_index(PG_GETARG_OID(0));

	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("an inverted index can be rebuilt only in a READ COMMITTED transaction"),
				 errdetail("It reads the table after locking it, which a transaction snapshot taken earlier would not see."),
				 errhint("Run it in its own transaction, or after SET TRANSACTION ISOLATION LEVEL READ COMMITTED.")));
	/* (no partition pending detach: detach_pending.c) */
	LockRelationOid(ix->baserel, ShareRowExclusiveLock);
	detach_pending_refuse(ix->baserel, psprintf("rebuild inverted index \"%s\"", get_rel_name(ix->indexrel)));
	/* (an index registered before its base key had to be unique) */
	if (ix->nbasekey > 0)
	{
		bool		deferrable;
		bool		deferred;

		base_key_require(ix->baserel, ix->base_key, ix->nbasekey, &deferrable, &deferred);
	}
	if (!ix->ready)
	{
		int64		problems;

		/*
		 * A concurrent build that failed: its triggers may not be there
		 * yet; with them, and the table locked, the rebuild completes it.
		 */
		LockRelationOid(ix->baserel, ShareRowExclusiveLock);
		install_triggers(ix->baserel);
		check_all_rows(ix);
		problems = index_rebuild(ix);
		registry_set_ready(ix->indexrel, true);
		PG_RETURN_INT64(problems);
	}
	PG_RETURN_INT64(index_rebuild(ix));
}

int64
index_rebuild(const IndexDef *ix)
{
	AdjlistRoleSwitch role;
	int64		problems = 0;
	SPITupleTable *tt;
	IndexWriter *w = NULL;
	Datum	   *values = palloc(sizeof(Datum) * ix->ncols);
	bool	   *nulls = palloc(sizeof(bool) * ix->ncols);

	LockRelationOid(ix->baserel, ShareRowExclusiveLock);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);

	/* the rows that drifted, mended through the one writer */
	if (SPI_execute(diff_rows_sql(ix, false), false, 0) != SPI_OK_SELECT)
		elog(ERROR, "rebuild query failed");
	tt = SPI_tuptable;
	problems = (int64) SPI_processed;
	/* (the writer's own statements replace SPI_tuptable and SPI_processed) */
	for (uint64 r = 0; r < (uint64) problems; r++)
	{
		char	   *problem = SPI_getvalue(tt->vals[r], tt->tupdesc, 1);
		bool		multiset;

		if (w == NULL)
			w = index_writer_begin(ix->indexrel, ix->colnames, ix->ncols, ix->nkeys,
								   WRITE_UPSERT, false);
		multiset = index_writer_multiset(w);
		/* the row in the index goes when it is extra, or stale in a multiset */
		if (strcmp(problem, "extra") == 0 || (strcmp(problem, "stale") == 0 && multiset))
		{
			for (int c = 0; c < ix->ncols; c++)
				values[c] = SPI_getbinval(tt->vals[r], tt->tupdesc, 5 + ix->ncols + c, &nulls[c]);
			(void) index_writer_remove(w, values, nulls);
		}
		/* the expected row is put (replacing a stale one) */
		if (strcmp(problem, "extra") != 0)
		{
			for (int c = 0; c < ix->ncols; c++)
				values[c] = SPI_getbinval(tt->vals[r], tt->tupdesc, 5 + c, &nulls[c]);
			index_writer_put(w, values, nulls);
		}
	}
	if (w != NULL)
		index_writer_end(w);
	SPI_freetuptable(tt);

	if (OidIsValid(ix->counterrel))
	{
		char	   *qcnt = adjlist_qualified_name(ix->counterrel);

		if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM (%s) d", diff_counts_sql(ix)),
						true, 0) != SPI_OK_SELECT)
			elog(ERROR, "rebuild query failed");
		if (DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
										&(bool){false})) > 0)
		{
			problems += DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
													SPI_tuptable->tupdesc, 1, &(bool){false}));
			index_execute_sql(psprintf("DELETE FROM %s", qcnt), false, SPI_OK_DELETE);
			index_execute_sql(psprintf("INSERT INTO %s (node, edge, direction, n) "
									   "SELECT node, edge, direction, pg_catalog.sum(n) "
									   "FROM %s.adjlist_index_counts(%u::pg_catalog.oid::pg_catalog.regclass) "
									   "GROUP BY 1, 2, 3 HAVING pg_catalog.sum(n) OPERATOR(pg_catalog.<>) 0",
									   qcnt, adjlist_catalog()->nspname, ix->indexrel),
							  false, SPI_OK_INSERT);
		}
	}
	adjlist_unbecome(&role);
	SPI_finish();
	return problems;
}

/* ----------------------------------------------------------------------
 * Counters
 * ----------------------------------------------------------------------
 */

/*
 * compact_counters(index regclass) RETURNS bigint: fold the counter rows
 * of an index into one row per group; returns how many rows it removed.
 * Counter rows are only ever inserted by writers, so compaction never
 * blocks them, and concurrent writers' rows that its snapshot does not see
 * are left as they are.
 */
Datum
adjlist_compact_counters(PG_FUNCTION_ARGS)
{
	IndexDef   *ix = owned_index(PG_GETARG_OID(0));
	AdjlistRoleSwitch role;
	char	   *qcnt;
	int64		before;
	int64		after;

	if (!OidIsValid(ix->counterrel))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("inverted index \"%s\" has no degree counters",
						get_rel_name(ix->indexrel))));
	/* one compaction at a time; writers (ROW EXCLUSIVE) go on */
	LockRelationOid(ix->counterrel, ShareUpdateExclusiveLock);
	qcnt = adjlist_qualified_name(ix->counterrel);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	index_execute_sql(psprintf("WITH d AS (DELETE FROM %1$s RETURNING node, edge, direction, n), "
							   "i AS (INSERT INTO %1$s (node, edge, direction, n) "
							   "SELECT node, edge, direction, pg_catalog.sum(n) FROM d GROUP BY 1, 2, 3 "
							   "HAVING pg_catalog.sum(n) OPERATOR(pg_catalog.<>) 0 RETURNING 1) "
							   "SELECT (SELECT pg_catalog.count(*) FROM d), (SELECT pg_catalog.count(*) FROM i)",
							   qcnt), false, SPI_OK_SELECT);
	before = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
										 &(bool){false}));
	after = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2,
										&(bool){false}));
	adjlist_unbecome(&role);
	SPI_finish();
	PG_RETURN_INT64(before - after);
}

/*
 * edge_count(index regclass, node adjkey, edge text, direction text)
 * RETURNS bigint: out- or in-edges of a node with an edge name, from the
 * counters, read as the caller ('FOLLOWS' and 'FOLLOWS#' are the same).
 */
Datum
adjlist_edge_count(PG_FUNCTION_ARGS)
{
	IndexDef   *ix = registry_index(PG_GETARG_OID(0), true);
	text	   *edge = counts_edge_name(PG_GETARG_TEXT_PP(2));
	char		dir;
	Oid			types[3];
	Datum		values[3];
	char	   *sql;
	int64		result;
	bool		isnull;

	dir = (adjlist_parse_direction(PG_GETARG_TEXT_PP(3), false) == ADJLIST_OUT) ? 'o' : 'i';
	if (ix == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("\"%s\" is not an inverted index",
						get_rel_name(PG_GETARG_OID(0)) ? get_rel_name(PG_GETARG_OID(0)) : "?")));
	if (!OidIsValid(ix->counterrel))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("inverted index \"%s\" has no degree counters", get_rel_name(ix->indexrel)),
				 errhint("Create the index with create_inverted_index(..., counters => 1).")));
	if (!ix->ready)
		registry_not_ready(ix->indexrel);
	registry_require_visible(ix->indexrel, ix->xmin);
	types[0] = adjlist_catalog()->keytype;
	types[1] = TEXTOID;
	types[2] = CHAROID;
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PointerGetDatum(edge);
	values[2] = CharGetDatum(dir);
	sql = psprintf("SELECT COALESCE(pg_catalog.sum(n), 0)::pg_catalog.int8 FROM %s "
				   "WHERE node OPERATOR(%s.=) $1 AND edge OPERATOR(pg_catalog.=) $2 COLLATE pg_catalog.\"C\" "
				   "AND direction OPERATOR(pg_catalog.=) $3",
				   adjlist_qualified_name(ix->counterrel), adjlist_catalog()->nspname);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_plan_execute(adjlist_plan(sql, 3, types), values, NULL, true, 1, SPI_OK_SELECT);
	result = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	SPI_finish();
	PG_RETURN_INT64(result);
}
