/*-------------------------------------------------------------------------
 *
 * write_api_cond.c
 *	  Conditional writes (DynamoDB's ConditionExpression):
 *	  put_edge_if_absent, put_edge_if and delete_edge_if.  See write_api.c
 *	  for the semantics and how the files fit.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/sysattr.h"
#include "access/table.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "parser/parse_relation.h"
#include "storage/lmgr.h"
#include "storage/lock.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/snapmgr.h"

#include "adjlist.h"
#include "catalog.h"
#include "dynamo_io.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "index_write.h"
#include "plan_cache.h"
#include "registry.h"
#include "table_options.h"
#include "write_api_int.h"

PG_FUNCTION_INFO_V1(adjlist_put_edge_if_absent);
PG_FUNCTION_INFO_V1(adjlist_put_edge_if);
PG_FUNCTION_INFO_V1(adjlist_delete_edge_if);

/* ----------------------------------------------------------------------
 * Conditional writes (DynamoDB's ConditionExpression)
 * ----------------------------------------------------------------------
 */

typedef struct CondArgs
{
	ApiTable   *t;
	Datum		pk;
	Datum		sk;
	Datum		data;
	bool		data_null;
	Jsonb	   *expected;
} CondArgs;

/* Take the key lock of a table without a unique key (see lock_keys()). */
static void
cond_lock_key(CondArgs *a)
{
	Oid			keytype = adjlist_catalog()->keytype;

	if (!a->t->unique_key)
		lock_keys(a->t, one_elem_array(a->pk, keytype, false),
				  one_elem_array(a->sk, keytype, false));
}

/* "b.pk = $1 AND b.sk = $2" */
static char *
cond_key_where(ApiTable *t)
{
	const char *nsp = adjlist_catalog()->nspname;

	return psprintf("b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) $2", t->pk, nsp, t->sk, nsp);
}

/*
 * The condition on an existing item: its data contains the expected value
 * ($n, an object).  '{}' asks for no attribute, so it means only "the item
 * exists", whatever its data: an object, NULL (an item without
 * attributes), or a scalar or an array, which contain no object, not even
 * the empty one, under jsonb's @>.
 */
static char *
cond_expected(ApiTable *t, int param)
{
	Assert(t->payload != NULL);
	return psprintf("($%d OPERATOR(pg_catalog.=) '{}'::pg_catalog.jsonb OR "
					"COALESCE(b.%s, '{}'::pg_catalog.jsonb) OPERATOR(pg_catalog.@>) $%d)",
					param, t->payload, param);
}

static int64
put_absent_body(void *arg)
{
	CondArgs   *a = (CondArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t = a->t;
	Oid			types[3] = {cat->keytype, cat->keytype, JSONBOID};
	Datum		values[3] = {a->pk, a->sk, a->data};
	char		nulls[3] = {' ', ' ', a->data_null ? 'n' : ' '};
	const char *target = psprintf("%s, %s%s", t->pk, t->sk, payload_target(t));
	const char *vals = t->payload ? "$1, $2, $3" : "$1, $2";
	char	   *sql;
	SPITupleTable *tt;
	uint64		n;
	ApiWriters *aw;

	check_base_sort_key(t->relid, t->skname, a->sk);
	cond_lock_key(a);
	if (t->unique_key)
		sql = psprintf("INSERT INTO %s AS b (%s) VALUES (%s) ON CONFLICT (%s, %s) DO NOTHING "
					   "RETURNING %s",
					   t->qname, target, vals, t->pk, t->sk, t->returning);
	else
		sql = psprintf("INSERT INTO %s AS b (%s) SELECT %s WHERE NOT EXISTS "
					   "(SELECT FROM %s b WHERE %s) RETURNING %s",
					   t->qname, target, vals, t->qname, cond_key_where(t), t->returning);
	adjlist_plan_execute(adjlist_plan(sql, t->payload ? 3 : 2, types), values, nulls, false, 0,
						 SPI_OK_INSERT_RETURNING);
	tt = SPI_tuptable;
	n = SPI_processed;
	aw = api_writers_begin(t, false);
	api_apply(aw, tt, n, true, NULL);
	api_writers_end(aw);
	SPI_freetuptable(tt);
	return (int64) n;
}

static int64
put_if_body(void *arg)
{
	CondArgs   *a = (CondArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t = a->t;
	Oid			types[4] = {cat->keytype, cat->keytype, JSONBOID, JSONBOID};
	Datum		values[4] = {a->pk, a->sk, a->data, JsonbPGetDatum(a->expected)};
	char		nulls[4] = {' ', ' ', a->data_null ? 'n' : ' ', ' '};
	char	   *update;
	SPITupleTable *oldtt = NULL;
	SPITupleTable *tt;
	uint64		n;
	ApiWriters *aw;

	cond_lock_key(a);
	if (t->no_triggers && (t->nmoving > 0 || t->multiset))
	{
		/*
		 * An index keyed by another column (a generated one) may move, or a
		 * multiset's row is replaced by removing it: read the item's index
		 * columns first, locking it, so that its old index rows can be
		 * removed (one key: Citus runs the FOR UPDATE on its shard).
		 */
		char	   *sql = psprintf("SELECT %s, %s FROM %s b WHERE %s FOR UPDATE OF b",
								   t->returning, cond_expected(t, 4), t->qname, cond_key_where(t));
		bool		isnull;
		Datum		ok;

		adjlist_plan_execute(adjlist_plan(sql, 4, types), values, nulls, false, 0, SPI_OK_SELECT);
		oldtt = SPI_tuptable;
		if (SPI_processed == 0)
			return 0;
		ok = SPI_getbinval(oldtt->vals[0], oldtt->tupdesc, t->ncols + 1, &isnull);
		if (isnull || !DatumGetBool(ok))
			return 0;
		update = psprintf("UPDATE %s AS b SET %s = $3%s WHERE %s RETURNING %s",
						  t->qname, t->payload, t->default_list, cond_key_where(t), t->returning);
	}
	else
		update = psprintf("UPDATE %s AS b SET %s = $3%s WHERE %s AND %s RETURNING %s",
						  t->qname, t->payload, t->default_list, cond_key_where(t), cond_expected(t, 4),
						  t->returning);
	adjlist_plan_execute(adjlist_plan(update, 4, types), values, nulls, false, 0,
						 SPI_OK_UPDATE_RETURNING);
	tt = SPI_tuptable;
	n = SPI_processed;
	aw = api_writers_begin(t, false);
	if (oldtt != NULL && n == 1)
	{
		Datum	   *oldv = palloc(sizeof(Datum) * t->ncols);
		bool	   *oldn = palloc(sizeof(bool) * t->ncols);
		Datum	   *newv = palloc(sizeof(Datum) * t->ncols);
		bool	   *newn = palloc(sizeof(bool) * t->ncols);

		api_row(t, oldtt, 0, 1, oldv, oldn);
		api_row(t, tt, 0, 1, newv, newn);
		api_row_replace(aw, oldv, oldn, newv, newn);
	}
	else
	{
		/* the index rows keep their keys: replace them, counters stay */
		bool	   *counted = palloc0(sizeof(bool) * Max(n, 1));

		api_apply(aw, tt, n, true, counted);
	}
	api_writers_end(aw);
	SPI_freetuptable(tt);
	return (int64) n;
}

static int64
delete_if_body(void *arg)
{
	CondArgs   *a = (CondArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[3] = {cat->keytype, cat->keytype, JSONBOID};
	Datum		values[3] = {a->pk, a->sk, JsonbPGetDatum(a->expected)};

	cond_lock_key(a);
	return delete_rows(a->t, psprintf("%s AND %s", cond_key_where(a->t), cond_expected(a->t, 3)),
					   3, types, values);
}

/* The expected value of a conditional write: a JSON object. */
static Jsonb *
expected_arg(FunctionCallInfo fcinfo, int n, ApiTable *t)
{
	Jsonb	   *e;

	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the expected value of a conditional write must not be null"),
				 errhint("Pass '{}' to require only that the item exists.")));
	e = PG_GETARG_JSONB_P(n);
	if (!JB_ROOT_IS_OBJECT(e))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the expected value of a conditional write must be a JSON object"),
				 errdetail("The condition is that the item's data contains it (@>).")));
	if (t->payload == NULL)
		no_payload_column(t);
	return e;
}

static void
cond_args(FunctionCallInfo fcinfo, CondArgs *a, const char *what, bool with_data)
{
	require_args(fcinfo, 3, what);
	memset(a, 0, sizeof(*a));
	a->t = api_table(PG_GETARG_OID(0));
	a->pk = PG_GETARG_DATUM(1);
	a->sk = PG_GETARG_DATUM(2);
	a->data_null = true;
	if (with_data && !PG_ARGISNULL(3))
	{
		if (a->t->payload == NULL)
			no_payload_column(a->t);
		a->data = PG_GETARG_DATUM(3);
		a->data_null = false;
	}
}

/*
 * put_edge_if_absent(tbl regclass, pk adjkey, sk adjkey, data jsonb)
 * RETURNS boolean: PutItem with attribute_not_exists: insert the item
 * unless one with its key exists; true if it was inserted.
 */
Datum
adjlist_put_edge_if_absent(PG_FUNCTION_ARGS)
{
	CondArgs	a;

	cond_args(fcinfo, &a, "a conditional put needs a table, a pk and an sk", true);
	PG_RETURN_BOOL(in_write_api(a.t, put_absent_body, &a) > 0);
}

/*
 * put_edge_if(tbl regclass, pk adjkey, sk adjkey, data jsonb, expected
 * jsonb) RETURNS boolean: replace the item only if it exists and its data
 * contains expected; true if it was replaced.
 */
Datum
adjlist_put_edge_if(PG_FUNCTION_ARGS)
{
	CondArgs	a;

	cond_args(fcinfo, &a, "a conditional put needs a table, a pk and an sk", true);
	a.expected = expected_arg(fcinfo, 4, a.t);
	PG_RETURN_BOOL(in_write_api(a.t, put_if_body, &a) > 0);
}

/*
 * delete_edge_if(tbl regclass, pk adjkey, sk adjkey, expected jsonb)
 * RETURNS boolean: delete the item only if its data contains expected;
 * true if it was deleted.
 */
Datum
adjlist_delete_edge_if(PG_FUNCTION_ARGS)
{
	CondArgs	a;

	cond_args(fcinfo, &a, "a conditional delete needs a table, a pk and an sk", false);
	a.expected = expected_arg(fcinfo, 3, a.t);
	PG_RETURN_BOOL(in_write_api(a.t, delete_if_body, &a) > 0);
}
