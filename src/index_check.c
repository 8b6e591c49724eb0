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
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "catalog.h"
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

	/* a call that waited for a concurrent drop finds the index gone */
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
	base_scan(ix->baserel, ix, false, rows_cb, &a);
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
	base_scan(ix->baserel, ix, false, rows_cb, &a);
	counts_flush(a.counts);
	adjlist_unbecome(&role);
	SPI_finish();
	return (Datum) 0;
}

/* ----------------------------------------------------------------------
 * The SQL that compares
 * ----------------------------------------------------------------------
 */

/* "ext.adjlist_index_rows(oid) AS er(c1 t1, ...)": select er AS r */
static char *
expected_rows_sql(const IndexDef *ix)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "%s.adjlist_index_rows(%u::pg_catalog.oid::pg_catalog.regclass) AS er(",
					 adjlist_catalog()->nspname, ix->indexrel);
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&buf, "%s%s %s", i ? ", " : "", quote_identifier(ix->colnames[i]),
						 format_type_be_qualified(ix->coltypes[i]));
	appendStringInfoChar(&buf, ')');
	return buf.data;
}

/* "(SELECT c1, c2, ... FROM idx) ar": select ar AS r */
static char *
actual_rows_sql(const IndexDef *ix)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "(SELECT ");
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(ix->colnames[i]));
	appendStringInfo(&buf, " FROM %s) ar", adjlist_qualified_name(ix->indexrel));
	return buf.data;
}

/* "(e.r).k1 OPERATOR(=) (a.r).k1 AND ..." over the key columns */
static char *
key_match_sql(const IndexDef *ix, const char *l, const char *r)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < ix->nkeys; i++)
		appendStringInfo(&buf, "%s(%s.r).%s %s (%s.r).%s", i ? " AND " : "",
						 l, quote_identifier(ix->colnames[i]),
						 adjlist_equality_sql(ix->coltypes[i]),
						 r, quote_identifier(ix->colnames[i]));
	return buf.data;
}

/* The rows where the index and its definition differ. */
static char *
diff_rows_sql(const IndexDef *ix)
{
	StringInfoData key;

	initStringInfo(&key);
	for (int i = 0; i < ix->nkeys; i++)
		appendStringInfo(&key, "%s%s, COALESCE((e.r).%s, (a.r).%s)",
						 i ? ", " : "", quote_literal_cstr(ix->colnames[i]),
						 quote_identifier(ix->colnames[i]), quote_identifier(ix->colnames[i]));
	return psprintf("SELECT CASE WHEN a.m IS NULL THEN 'missing' WHEN e.m IS NULL THEN 'extra' "
					"ELSE 'stale' END::pg_catalog.text, pg_catalog.jsonb_build_object(%s), "
					"pg_catalog.to_jsonb(e.r), pg_catalog.to_jsonb(a.r) "
					"FROM (SELECT er AS r, 1 AS m FROM %s) e "
					"FULL JOIN (SELECT ar AS r, 1 AS m FROM %s) a ON %s "
					"WHERE a.m IS NULL OR e.m IS NULL "
					"OR (e.r)::pg_catalog.text OPERATOR(pg_catalog.<>) (a.r)::pg_catalog.text",
					key.data, expected_rows_sql(ix), actual_rows_sql(ix),
					key_match_sql(ix, "e", "a"));
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

/*
 * verify_inverted_index(index regclass) RETURNS TABLE (problem text, key
 * jsonb, expected jsonb, actual jsonb): 'missing', 'extra' and 'stale'
 * rows (compared by their text form), and 'count' groups of the degree
 * counters; none means the index is exact.
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
	if (SPI_execute(diff_rows_sql(ix), true, 0) != SPI_OK_SELECT)
		elog(ERROR, "verify query failed");
	copy_result(rsinfo);
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
	PG_RETURN_INT64(index_rebuild(ix));
}

int64
index_rebuild(const IndexDef *ix)
{
	AdjlistRoleSwitch role;
	int64		problems = 0;
	char	   *qidx;
	char	   *exact;

	LockRelationOid(ix->baserel, ShareRowExclusiveLock);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(adjlist_rel_owner(ix->baserel), &role);
	qidx = adjlist_qualified_name(ix->indexrel);
	if (SPI_execute(psprintf("SELECT pg_catalog.count(*) FROM (%s) d", diff_rows_sql(ix)),
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "rebuild query failed");
	problems = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1,
										   &(bool){false}));
	exact = psprintf("%s AND (e.r)::pg_catalog.text OPERATOR(pg_catalog.=) (a.r)::pg_catalog.text",
					 key_match_sql(ix, "e", "a"));
	if (problems > 0)
	{
		/* index rows that are not exactly an expected row */
		index_execute_sql(psprintf("DELETE FROM %s t WHERE NOT EXISTS (SELECT 1 FROM "
								   "(SELECT er AS r FROM %s) e, (SELECT t AS r) a WHERE %s)",
								   qidx, expected_rows_sql(ix), exact),
						  false, SPI_OK_DELETE);
		/* expected rows that are not in the index */
		index_execute_sql(psprintf("INSERT INTO %s SELECT (e.r).* FROM (SELECT er AS r FROM %s) e "
								   "WHERE NOT EXISTS (SELECT 1 FROM (SELECT ar AS r FROM %s) a WHERE %s)",
								   qidx, expected_rows_sql(ix), actual_rows_sql(ix), exact),
						  false, SPI_OK_INSERT);
	}
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
