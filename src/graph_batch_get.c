/*-------------------------------------------------------------------------
 *
 * graph_batch_get.c
 *	  batch_get(tbl, keys): DynamoDB's BatchGetItem on one table, the items
 *	  of up to 100 keys in request order, missing ones left out.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "dynamo_io.h"
#include "graph.h"
#include "index_rule.h"
#include "plan_cache.h"

PG_FUNCTION_INFO_V1(adjlist_batch_get);

/* DynamoDB's limit of keys per BatchGetItem call. */
#define BATCH_GET_MAX	100

typedef struct BatchKey
{
	struct varlena *pk;
	struct varlena *sk;
	int			pos;			/* in the request, from 0 */
} BatchKey;

static int
batch_key_cmp(const void *x, const void *y)
{
	const BatchKey *a = (const BatchKey *) x;
	const BatchKey *b = (const BatchKey *) y;
	int			c = adjkey_cmp_bytes(ADJKEY_DATA(a->pk), ADJKEY_LEN(a->pk),
									 ADJKEY_DATA(b->pk), ADJKEY_LEN(b->pk));

	if (c == 0)
		c = adjkey_cmp_bytes(ADJKEY_DATA(a->sk), ADJKEY_LEN(a->sk),
							 ADJKEY_DATA(b->sk), ADJKEY_LEN(b->sk));
	return c;
}

/*
 * The keys of a batch get, in request order: each element an object of
 * the two key columns (in any case, or "pk" and "sk" where the table's are
 * named otherwise: graph_key_member_role(), as start keys are read),
 * strings, nothing else.  On a table whose keys adjlist keeps
 * within DynamoDB's limits (limited: it has an inverted index), a key
 * longer than its role allows cannot exist and is refused as a write of
 * it is (22001, DynamoDB's ValidationException): a partition key by
 * adjkey's own limit, a sort key by check_key_size(), as query() does.
 * Elsewhere any key the table can hold is read.
 */
static BatchKey *
batch_keys(Oid relid, bool limited, Jsonb *keys, int nkeys, char **keycols)
{
	BatchKey   *req = palloc0(sizeof(BatchKey) * nkeys);
	JsonbIterator *it = JsonbIteratorInit(&keys->root);
	JsonbValue	v;
	JsonbIteratorToken tok;
	int			n = 0;

	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		JsonbIterator *mit;
		JsonbValue	m;
		JsonbIteratorToken mtok;
		int			role = -1;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("element %d of keys is not a JSON object", n + 1)));
		mit = JsonbIteratorInit(v.val.binary.data);
		while ((mtok = JsonbIteratorNext(&mit, &m, true)) != WJB_DONE)
		{
			if (mtok == WJB_KEY)
			{
				role = graph_key_member_role(m.val.string.val, m.val.string.len,
											 (const char *const *) keycols, 2);
				if (role < 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("element %d of keys has a member \"%s\" that is not a key column",
									n + 1, pnstrdup(m.val.string.val, m.val.string.len)),
							 errdetail("The provided key element does not match the schema: give \"%s\" and \"%s\" only.",
									   keycols[0], keycols[1])));
				if ((role == 0 ? req[n].pk : req[n].sk) != NULL)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("element %d of keys gives \"%s\" twice", n + 1, keycols[role])));
			}
			else if (mtok == WJB_VALUE)
			{
				struct varlena *k;

				if (m.type != jbvString)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("element %d of keys has no string \"%s\"", n + 1, keycols[role])));
				k = adjkey_from_server(m.val.string.val, m.val.string.len, NULL);
				if (role == 0)
					req[n].pk = k;
				else
				{
					if (limited)
						check_key_size(relid, false, KEY_ROLE_SORT, keycols[1], ADJKEY_LEN(k));
					req[n].sk = k;
				}
			}
		}
		for (int r = 0; r < 2; r++)
			if ((r == 0 ? req[n].pk : req[n].sk) == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("element %d of keys has no string \"%s\"", n + 1, keycols[r])));
		req[n].pos = n;
		n++;
	}
	return req;
}

/* A key asked for twice is refused, as DynamoDB does. */
static void
batch_keys_unique(const BatchKey *req, int nkeys)
{
	BatchKey   *sorted = palloc(sizeof(BatchKey) * nkeys);

	memcpy(sorted, req, sizeof(BatchKey) * nkeys);
	qsort(sorted, nkeys, sizeof(BatchKey), batch_key_cmp);
	for (int i = 1; i < nkeys; i++)
		if (batch_key_cmp(&sorted[i - 1], &sorted[i]) == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("provided list of item keys contains duplicates"),
					 errdetail("Elements %d and %d of keys are the same key.",
							   Min(sorted[i - 1].pos, sorted[i].pos) + 1,
							   Max(sorted[i - 1].pos, sorted[i].pos) + 1)));
	pfree(sorted);
}

/*
 * The items of the keys that exist and have not expired, in request
 * order, read in one statement as the caller (privileges and row-level
 * security apply), with their payload.
 */
static void
batch_read(Oid relid, char **keycols, const char *payload, const char *live,
		   const BatchKey *req, int nkeys, ReturnSetInfo *rsinfo)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[2] = {cat->keyarraytype, cat->keyarraytype};
	Datum		args[2];
	Datum	   *pkd = palloc(sizeof(Datum) * nkeys);
	Datum	   *skd = palloc(sizeof(Datum) * nkeys);
	char	   *sql;

	for (int i = 0; i < nkeys; i++)
	{
		pkd[i] = PointerGetDatum(req[i].pk);
		skd[i] = PointerGetDatum(req[i].sk);
	}
	args[0] = PointerGetDatum(construct_array(pkd, nkeys, cat->keytype, -1, false, TYPALIGN_INT));
	args[1] = PointerGetDatum(construct_array(skd, nkeys, cat->keytype, -1, false, TYPALIGN_INT));
	sql = psprintf("SELECT u.o, %s%s FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) "
				   "WITH ORDINALITY AS u(k, s, o) JOIN %s t ON t.%s OPERATOR(%s.=) u.k "
				   "AND t.%s OPERATOR(%s.=) u.s WHERE %s ORDER BY u.o",
				   payload ? "t." : "", payload ? payload : "NULL::pg_catalog.jsonb",
				   adjlist_qualified_name(relid),
				   quote_identifier(keycols[0]), cat->nspname, quote_identifier(keycols[1]),
				   cat->nspname, live);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_plan_execute(adjlist_plan(sql, 2, types), args, NULL, true, 0, SPI_OK_SELECT);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		bool		isnull;
		int64		o = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1,
													&isnull));

		values[0] = PointerGetDatum(req[o - 1].pk);
		values[1] = PointerGetDatum(req[o - 1].sk);
		values[2] = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &nulls[2]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
}

/*
 * batch_get(tbl regclass, keys jsonb)
 *	RETURNS TABLE (pk adjkey, sk adjkey, data jsonb)
 *
 * The items of up to 100 keys ({"pk": ..., "sk": ...} objects), in the
 * order of the request, missing ones omitted; read as the caller, in one
 * statement.  As DynamoDB, refuses an empty list, more than 100 keys, a
 * key given twice, and key objects with other members.
 */
Datum
adjlist_batch_get(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			relid;
	Jsonb	   *keys;
	char	   *keycols[2];
	char	   *payload;
	bool		is_index;
	bool		limited;
	char	   *live;
	int			nkeys;
	BatchKey   *req;

	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table and the keys must not be null")));
	relid = PG_GETARG_OID(0);
	keys = PG_GETARG_JSONB_P(1);
	if (!JB_ROOT_IS_ARRAY(keys) || JB_ROOT_IS_SCALAR(keys))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("keys must be a JSON array of {\"pk\": ..., \"sk\": ...}")));
	nkeys = JB_ROOT_COUNT(keys);
	if (nkeys == 0 || nkeys > BATCH_GET_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s", nkeys == 0 ? "keys must not be empty" :
						psprintf("too many keys: %d", nkeys)),
				 errdetail("A batch get reads 1 to %d items, as DynamoDB's BatchGetItem does (ValidationException).",
						   BATCH_GET_MAX)));
	adjlist_item_table(relid, keycols, &payload, &is_index, &limited, &live);
	if (is_index)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is an inverted index", get_rel_name(relid)),
				 errdetail("Items are read by key from their table, as DynamoDB's BatchGetItem reads a table and not an index."),
				 errhint("Read the index with query().")));
	req = batch_keys(relid, limited, keys, nkeys, keycols);
	batch_keys_unique(req, nkeys);
	batch_read(relid, keycols, payload, live, req, nkeys, rsinfo);
	return (Datum) 0;
}
