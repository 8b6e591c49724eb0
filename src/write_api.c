/*-------------------------------------------------------------------------
 *
 * write_api.c
 *	  put_edge, put_edges, delete_edge and delete_node: writing a base table
 *	  and its inverted indexes in one transaction, without triggers.
 *
 * On a local table every index is kept by the triggers, which fire on the
 * base write as on any other (index_sync.c): these functions then only
 * write the base table.  Where no trigger can run (a table Citus
 * distributes: it refuses triggers that write a table distributed by
 * another key) the indexes in mode 'api' are written here, next to the
 * base write, as router statements (one shard each).
 *
 * Semantics are DynamoDB's: put_edge is PutItem (insert, or replace the
 * whole item; last writer wins, two sessions putting the same new key do
 * not fail), delete_edge is DeleteItem.
 *
 * Index rows follow from the base rows a statement returns: a delete
 * returns the old versions, an upsert only the new ones.  That is enough
 * when a replaced item's index rows keep their keys (an index keyed by the
 * base key, or by generated columns computed from it alone): the index row
 * is upserted and its counters stay.  Where no trigger runs and an index
 * is keyed by a column a replacement can change (one generated from data,
 * a plain column reset to its default), or a sparse index's predicate
 * reads one, each item is read first, locked, and then replaced
 * (put_one_tracked()), so that its old index rows can be removed; without
 * a unique key, a put deletes and inserts, and the DELETE returns the old
 * versions (put_by_delete()).
 *
 * On Citus every statement of put_edge and delete_edge names one key: the
 * base row's upsert is an INSERT ... VALUES, each index row's too, so
 * Citus plans each as a router query on one shard (its fast path).
 * put_edges writes the base rows in one INSERT ... SELECT over unnested
 * arrays, and the index rows and counter deltas likewise, one statement a
 * table (index_write.c), which Citus splits by shard.
 *
 * An item's attributes go to the table's payload column: "data" unless
 * set_payload_column() names another (table_options.c); a table with
 * neither takes items without attributes only.  put_edges names the
 * members of its elements as put_edge's parameters (pk, sk, data) or as
 * the table's columns (its key columns, its payload column): a column's
 * name as it is first, then a parameter's, then either in any case; an
 * unknown or ambiguous member, or a part given twice, is an error.
 *
 * Conditional writes (DynamoDB's ConditionExpression) say whether they
 * applied instead of raising ConditionalCheckFailed: put_edge_if_absent
 * (attribute_not_exists) is an INSERT ... ON CONFLICT DO NOTHING,
 * put_edge_if and delete_edge_if (the item exists and its data contains an
 * expected value: optimistic locking on a version attribute) an UPDATE or
 * DELETE whose condition the executor evaluates again on the latest version
 * of a row it had to wait for, so of two sessions expecting the same
 * version exactly one applies.  A table without a unique key takes the
 * write API's key lock first (lock_keys()).
 *
 * The base table is written as the caller, with the caller's privileges
 * and row-level security; the index rows, computed from what the base write
 * returned (index_rule.c), are written as the index's owner
 * (index_write.c), as the triggers do.  Where Citus would refuse those two
 * roles' writes in one transaction (the index tables share the base
 * table's placements), a role that does not own the table writes it
 * wholly as the owner, its privileges checked and row-level security
 * refused (write_api_owner.c).  import_dynamodb (dynamo_io.c) writes
 * through put_rows() as well, and sweep_expired() of a Citus table
 * (table_options.c) through delete_rows().
 *
 * Files: write_api.c (this one) holds the entry points, delete_node and
 * the sweep of a Citus table;
 * write_api_table.c the table's shape, write_api_index.c the index rows
 * from returned base rows, write_api_put.c the statements of a put and a
 * delete, write_api_cond.c the conditional writes, write_api_owner.c a
 * write as the owner; write_api_int.h what they share.
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
#include "write_shard.h"

PG_FUNCTION_INFO_V1(adjlist_put_edge);
PG_FUNCTION_INFO_V1(adjlist_put_edges);
PG_FUNCTION_INFO_V1(adjlist_delete_edge);
PG_FUNCTION_INFO_V1(adjlist_delete_node);

Datum
one_elem_array(Datum d, Oid type, bool isnull)
{
	int16		len;
	bool		byval;
	char		align;
	int			dims[1] = {1};
	int			lbs[1] = {1};

	get_typlenbyvalalign(type, &len, &byval, &align);
	return PointerGetDatum(construct_md_array(&d, &isnull, 1, dims, lbs, type, len, byval, align));
}

/*
 * Run body(arg), a write of t, connected to SPI; as t's owner where a role
 * that does not own t writes it and Citus would refuse two roles' writes
 * (write_api_owner.c).  Every entry point goes through here.
 */
int64
in_write_api(ApiTable *t, int64 (*body) (void *), void *arg)
{
	int64		result;
	ApiOwnerMode m;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	api_owner_begin(t, &m);
	PG_TRY();
	{
		result = body(arg);
	}
	PG_CATCH();
	{
		api_owner_abandon(&m);
		PG_RE_THROW();
	}
	PG_END_TRY();
	api_owner_end(&m);
	SPI_finish();
	return result;
}

typedef struct PutArgs
{
	ApiTable   *t;
	Datum		pks;
	Datum		sks;
	Datum		datas;
	Datum		ttls;			/* (Datum) 0: none */
} PutArgs;

static int64
put_body(void *arg)
{
	PutArgs    *a = (PutArgs *) arg;

	return put_rows(a->t, a->pks, a->sks, a->datas, a->ttls);
}

typedef struct DeleteArgs
{
	ApiTable   *t;
	const char *sql;			/* DELETE ... RETURNING (delete_rows_sql()) */
	bool		bare;			/* sql has no RETURNING (delete_edge_bare()) */
	int			nargs;
	Oid		   *types;
	Datum	   *values;
} DeleteArgs;

static int64
delete_body(void *arg)
{
	DeleteArgs *a = (DeleteArgs *) arg;

	if (a->bare)
	{
		adjlist_plan_execute(adjlist_plan_ref(&a->t->delete_plan, a->sql, a->nargs, a->types),
							 a->values, NULL, false, 0, SPI_OK_DELETE);
		return (int64) SPI_processed;
	}
	return delete_rows_sql(a->t, a->sql, a->nargs, a->types, a->values);
}

/*
 * Can delete_edge() delete without RETURNING?  The rows it returns serve
 * only the indexes the write API writes itself (none where triggers keep
 * them all), and returning nothing but the key, which the WHERE clause
 * reads already, asks for no privilege and no policy the DELETE does not
 * ask for: the same rows go, with the same errors, and the tuples are not
 * projected and copied for nothing (single-row delete_edge on an indexed
 * table, a small share of its cost).
 */
static bool
delete_edge_bare(const ApiTable *t)
{
	return !t->no_triggers && t->ncols == 2;
}

void
require_args(FunctionCallInfo fcinfo, int n, const char *what)
{
	for (int i = 0; i < n; i++)
		if (PG_ARGISNULL(i))
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s", what)));
}

typedef struct PutOneArgs
{
	ApiTable   *t;
	Oid			keytype;
	FunctionCallInfo fcinfo;	/* put_edge's arguments */
} PutOneArgs;

static int64
put_one_body(void *arg)
{
	PutOneArgs *a = (PutOneArgs *) arg;
	FunctionCallInfo fcinfo = a->fcinfo;

	put_one_kept(a->t, a->keytype, PG_GETARG_DATUM(1), PG_GETARG_DATUM(2),
				 PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3), PG_ARGISNULL(3));
	return 1;
}

/* put_edge(tbl regclass, pk adjkey, sk adjkey, data jsonb) */
Datum
adjlist_put_edge(PG_FUNCTION_ARGS)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t;

	require_args(fcinfo, 3, "put_edge needs a table, a pk and an sk");
	t = api_table(PG_GETARG_OID(0));
	if (!PG_ARGISNULL(3) && t->payload == NULL)
		no_payload_column(t);
	if (put_one_kept_ok(t))
	{
		PutOneArgs	a;

		a.t = t;
		a.keytype = cat->keytype;
		a.fcinfo = fcinfo;
		(void) in_write_api(t, put_one_body, &a);
		PG_RETURN_VOID();
	}
	{
		PutArgs		a;

		a.t = t;
		a.pks = one_elem_array(PG_GETARG_DATUM(1), cat->keytype, false);
		a.sks = one_elem_array(PG_GETARG_DATUM(2), cat->keytype, false);
		a.datas = one_elem_array(PG_ARGISNULL(3) ? (Datum) 0 : PG_GETARG_DATUM(3), JSONBOID,
								 PG_ARGISNULL(3));
		a.ttls = (Datum) 0;
		(void) in_write_api(t, put_body, &a);
	}
	PG_RETURN_VOID();
}

/*
 * The members of an element of put_edges: the two parts of the item's key
 * and its attributes.
 */
#define EDGE_PK		0
#define EDGE_SK		1
#define EDGE_DATA	2
#define EDGE_ROLES	3

static const char *const edge_role_what[EDGE_ROLES] = {"partition key", "sort key", "data"};

/*
 * The names a member of each role may have: the table's column (the key
 * columns, the payload column) and put_edge's parameter (pk, sk, data).
 */
static void
edge_role_names(ApiTable *t, const char *names[EDGE_ROLES][2])
{
	names[EDGE_PK][0] = t->pkname;
	names[EDGE_PK][1] = "pk";
	names[EDGE_SK][0] = t->skname;
	names[EDGE_SK][1] = "sk";
	names[EDGE_DATA][0] = t->payload_name;
	names[EDGE_DATA][1] = "data";
}

static bool
name_is(const char *name, int len, const char *s, bool anycase)
{
	return (int) strlen(s) == len &&
		(anycase ? pg_strncasecmp(name, s, len) == 0 : memcmp(name, s, len) == 0);
}

/* "pk" or "source" (or "pk"): the names of a role, for messages */
static char *
edge_role_spelling(const char *names[EDGE_ROLES][2], int role)
{
	if (strcmp(names[role][0], names[role][1]) == 0)
		return psprintf("\"%s\"", names[role][0]);
	return psprintf("\"%s\" (or \"%s\")", names[role][0], names[role][1]);
}

/*
 * The role of the member called name (len bytes) of element elem of
 * put_edges.  First a column's name as it is, then a parameter's name as
 * it is, then either in any ASCII case ("PK", "Sk", "Data", "SOURCE").  A
 * name that matches none is refused (22023), and so is one that matches
 * the names of two roles in another case: its role is not clear.
 */
static int
edge_member_role(const char *names[EDGE_ROLES][2], const char *name, int len, int64 elem)
{
	static const char *const kind[2] = {"column", "parameter"};
	int			found = -1;
	int			fpass = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int r = 0; r < EDGE_ROLES; r++)
			if (name_is(name, len, names[r][pass], false))
				return r;
	for (int r = 0; r < EDGE_ROLES; r++)
		for (int pass = 0; pass < 2; pass++)
		{
			if (!name_is(name, len, names[r][pass], true))
				continue;
			if (found >= 0 && found != r)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("member \"%s\" of element %lld of edges is ambiguous",
								pnstrdup(name, len), (long long) elem),
						 errdetail("Ignoring case, it matches the %s \"%s\" (the %s) and the %s \"%s\" (the %s).",
								   kind[fpass], names[found][fpass], edge_role_what[found],
								   kind[pass], names[r][pass], edge_role_what[r]),
						 errhint("Spell it exactly as one of them.")));
			if (found < 0)
				fpass = pass;
			found = r;
		}
	if (found < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("element %lld of edges has an unknown member \"%s\"",
						(long long) elem, pnstrdup(name, len)),
				 errdetail("The members of an element are %s, %s and %s, in any case.",
						   edge_role_spelling(names, EDGE_PK), edge_role_spelling(names, EDGE_SK),
						   edge_role_spelling(names, EDGE_DATA))));
	return found;
}

/*
 * put_edges(tbl regclass, edges jsonb) RETURNS bigint: put_edge for each
 * element of a JSON array of {"pk": ..., "sk": ..., "data": ...}, in one
 * statement; a key given twice: the last wins.  The members are named as
 * put_edge's parameters or as the table's columns (key columns, payload
 * column), in any case (edge_member_role()); an element naming a part
 * twice ("pk" and "PK") is refused.
 */
Datum
adjlist_put_edges(PG_FUNCTION_ARGS)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Jsonb	   *edges;
	ApiTable   *t;
	const char *names[EDGE_ROLES][2];
	ArrayBuildState *pks;
	ArrayBuildState *sks;
	ArrayBuildState *datas;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	int64		n = 0;

	require_args(fcinfo, 2, "put_edges needs a table and an array of edges");
	edges = PG_GETARG_JSONB_P(1);
	if (!JB_ROOT_IS_ARRAY(edges) || JB_ROOT_IS_SCALAR(edges))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("edges must be a JSON array of {\"pk\": ..., \"sk\": ..., \"data\": ...}")));
	t = api_table(PG_GETARG_OID(0));
	edge_role_names(t, names);
	pks = initArrayResult(cat->keytype, CurrentMemoryContext, false);
	sks = initArrayResult(cat->keytype, CurrentMemoryContext, false);
	datas = initArrayResult(JSONBOID, CurrentMemoryContext, false);
	it = JsonbIteratorInit(&edges->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		JsonbValue	member[EDGE_ROLES];
		char	   *given[EDGE_ROLES] = {NULL, NULL, NULL};
		JsonbIterator *mit;
		JsonbValue	m;
		JsonbIteratorToken mtok;
		int			role = -1;
		JsonbValue *d;

		if (tok != WJB_ELEM)
			continue;
		if (v.type != jbvBinary || !JsonContainerIsObject(v.val.binary.data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("element %lld of edges is not a JSON object", (long long) n + 1)));
		mit = JsonbIteratorInit(v.val.binary.data);
		while ((mtok = JsonbIteratorNext(&mit, &m, true)) != WJB_DONE)
		{
			if (mtok == WJB_KEY)
			{
				role = edge_member_role(names, m.val.string.val, m.val.string.len, n + 1);
				if (given[role] != NULL)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("element %lld of edges gives its %s twice, as \"%s\" and \"%s\"",
									(long long) n + 1, edge_role_what[role], given[role],
									pnstrdup(m.val.string.val, m.val.string.len))));
				given[role] = pnstrdup(m.val.string.val, m.val.string.len);
			}
			else if (mtok == WJB_VALUE)
				member[role] = m;
		}
		for (role = EDGE_PK; role <= EDGE_SK; role++)
		{
			JsonbValue *k = given[role] ? &member[role] : NULL;

			if (k == NULL || k->type != jbvString)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("element %lld of edges has no string \"%s\"", (long long) n + 1,
								names[role][0])));
			accumArrayResult(role == EDGE_PK ? pks : sks,
							 PointerGetDatum(adjkey_from_server(k->val.string.val, k->val.string.len, NULL)),
							 false, cat->keytype, CurrentMemoryContext);
		}
		d = given[EDGE_DATA] && member[EDGE_DATA].type != jbvNull ? &member[EDGE_DATA] : NULL;
		if (d != NULL && t->payload == NULL)
			no_payload_column(t);
		accumArrayResult(datas, d == NULL ? (Datum) 0 : JsonbPGetDatum(JsonbValueToJsonb(d)),
						 d == NULL, JSONBOID, CurrentMemoryContext);
		n++;
	}
	if (n == 0)
		PG_RETURN_INT64(0);
	{
		PutArgs		a;

		a.t = t;
		a.pks = makeArrayResult(pks, CurrentMemoryContext);
		a.sks = makeArrayResult(sks, CurrentMemoryContext);
		a.datas = makeArrayResult(datas, CurrentMemoryContext);
		a.ttls = (Datum) 0;
		(void) in_write_api(t, put_body, &a);
	}
	PG_RETURN_INT64(n);
}

/* delete_edge(tbl regclass, pk adjkey, sk adjkey) RETURNS boolean */
Datum
adjlist_delete_edge(PG_FUNCTION_ARGS)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t;
	Oid			types[2] = {cat->keytype, cat->keytype};
	Datum		values[2];
	int64		n = 0;

	require_args(fcinfo, 3, "delete_edge needs a table, a pk and an sk");
	t = api_table(PG_GETARG_OID(0));
	values[0] = PG_GETARG_DATUM(1);
	values[1] = PG_GETARG_DATUM(2);
	{
		DeleteArgs	a;

		a.bare = delete_edge_bare(t);
		if (t->delete_one == NULL)
			t->delete_one = api_table_keep(t, psprintf("DELETE FROM %s b WHERE b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) $2%s%s",
													   t->qname, t->pk, cat->nspname, t->sk,
													   cat->nspname, a.bare ? "" : " RETURNING ",
													   a.bare ? "" : t->returning));
		a.t = t;
		a.sql = t->delete_one;
		a.nargs = 2;
		a.types = types;
		a.values = values;
		n = in_write_api(t, delete_body, &a);
	}
	PG_RETURN_BOOL(n > 0);
}

/* For import_dynamodb (dynamo_io.c): put rows as put_edges does */
int64
adjlist_api_put(ApiTable *t, Datum pks, Datum sks, Datum datas, Datum ttls)
{
	PutArgs		a;

	a.t = t;
	a.pks = pks;
	a.sks = sks;
	a.datas = datas;
	a.ttls = ttls;
	return in_write_api(t, put_body, &a);
}

typedef struct NodeArgs
{
	ApiTable   *t;
	const IndexDef *flip;
	struct varlena *node;
	Datum	   *pdat;
	bool	   *pnull;
	int			np;
} NodeArgs;

/* The sources of the edges pointing at node under one prefix, or NULL. */
static Datum
edge_sources(NodeArgs *a, const char *sk, int sklen, bool *found)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	const IndexDef *flip = a->flip;
	int			nshards = Max(flip->write_shards, 1);
	Datum	   *shardkeys = palloc(sizeof(Datum) * nshards);
	Oid			atypes[1] = {cat->keyarraytype};
	Datum		arg;
	char	   *sql;
	AdjlistRoleSwitch role;
	Datum		sources;
	bool		isnull;

	for (int s = 0; s < nshards; s++)
		shardkeys[s] = PointerGetDatum(flip->write_shards > 0 ?
									   write_shard_key(sk, sklen, s) :
									   adjkey_from_utf8(sk, sklen));
	arg = PointerGetDatum(construct_array(shardkeys, nshards, cat->keytype, -1, false,
										  TYPALIGN_INT));
	sql = psprintf("SELECT pg_catalog.array_agg(i.%s) FROM %s i WHERE i.%s OPERATOR(%s.=) ANY ($1)",
				   quote_identifier(flip->colnames[1]), adjlist_qualified_name(flip->indexrel),
				   quote_identifier(flip->colnames[0]), cat->nspname);
	/* the index is read as its owner; the base rows are deleted as the caller */
	adjlist_become(a->t->ti->owner, &role);
	adjlist_plan_execute(adjlist_plan(sql, 1, atypes), &arg, NULL, true, 0, SPI_OK_SELECT);
	adjlist_unbecome(&role);
	sources = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	*found = !isnull;
	return isnull ? (Datum) 0 : PointerGetDatum(DatumGetArrayTypePCopy(sources));
}

static int64
node_body(void *arg)
{
	NodeArgs   *a = (NodeArgs *) arg;
	const AdjlistCatalog *cat = adjlist_catalog();
	ApiTable   *t = a->t;
	Oid			types[2] = {cat->keytype, cat->keyarraytype};
	Datum		values[2];
	int64		n = 0;

	for (int i = 0; i < a->np; i++)
	{
		int			plen;
		const char *p;
		char	   *sk;
		int			sklen;
		bool		found;

		if (a->pnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("edge prefixes must not be null")));
		p = adjkey_edge_prefix(DatumGetTextPP(a->pdat[i]), &plen);
		sklen = plen + ADJKEY_LEN(a->node);
		sk = palloc(sklen);
		memcpy(sk, p, plen);
		memcpy(sk + plen, ADJKEY_DATA(a->node), ADJKEY_LEN(a->node));
		adjkey_check_bytes(sk, sklen, NULL);
		values[1] = edge_sources(a, sk, sklen, &found);
		if (!found)
			continue;
		values[0] = PointerGetDatum(adjkey_from_utf8(sk, sklen));
		n += delete_rows(t, psprintf("b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) ANY ($2)",
									 t->sk, cat->nspname, t->pk, cat->nspname),
						 2, types, values);
	}
	values[0] = PointerGetDatum(a->node);
	n += delete_rows(t, psprintf("b.%s OPERATOR(%s.=) $1", t->pk, cat->nspname), 1, types, values);
	return n;
}

typedef struct SweepArgs
{
	ApiTable   *t;
	const char *expired;		/* the item has expired, over b */
	int32		lim;
} SweepArgs;

/*
 * Up to lim expired items, read without a lock (a query over every shard);
 * then each one locked unless another transaction holds it (FOR UPDATE
 * SKIP LOCKED, on its shard) and deleted only if it has still expired,
 * with its index rows: a put that renewed it meanwhile is not undone.
 */
static int64
sweep_body(void *arg)
{
	SweepArgs  *a = (SweepArgs *) arg;
	ApiTable   *t = a->t;
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[2] = {cat->keytype, cat->keytype};
	char	   *key = psprintf("b.%s OPERATOR(%s.=) $1 AND b.%s OPERATOR(%s.=) $2",
							   t->pk, cat->nspname, t->sk, cat->nspname);
	char	   *cond = psprintf("%s AND %s", key, a->expired);
	char	   *lock;
	SPITupleTable *found;
	uint64		nfound;
	int64		n = 0;

	adjlist_plan_execute(adjlist_plan(psprintf("SELECT b.%s, b.%s FROM %s b WHERE %s LIMIT %d",
											   t->pk, t->sk, t->qname, a->expired, a->lim),
									  0, NULL),
						 NULL, NULL, false, 0, SPI_OK_SELECT);
	found = SPI_tuptable;
	nfound = SPI_processed;
	lock = psprintf("SELECT 1 FROM %s b WHERE %s FOR UPDATE OF b SKIP LOCKED", t->qname, cond);
	for (uint64 r = 0; r < nfound; r++)
	{
		Datum		values[2];
		bool		isnull;
		bool		locked;

		CHECK_FOR_INTERRUPTS();
		values[0] = SPI_getbinval(found->vals[r], found->tupdesc, 1, &isnull);
		values[1] = SPI_getbinval(found->vals[r], found->tupdesc, 2, &isnull);
		/*
		 * Its plan looked up each time: the delete before ran triggers and
		 * index writes, and the next adjlist_plan() where no plan runs may
		 * empty the cache (plan_cache.h), freeing a plan kept from before.
		 */
		adjlist_plan_execute(adjlist_plan(lock, 2, types), values, NULL, false, 0, SPI_OK_SELECT);
		locked = SPI_processed > 0;
		SPI_freetuptable(SPI_tuptable);
		if (locked)
			n += delete_rows(t, cond, 2, types, values);
	}
	SPI_freetuptable(found);
	return n;
}

/*
 * sweep_expired() where no trigger keeps the indexes (a Citus table, or a
 * local one whose indexes are all in API mode in a database with Citus):
 * up to lim expired items deleted through the write API (sweep_body()),
 * each one with a router statement on its shard.  Returns how many.
 */
int64
adjlist_api_sweep(Oid relid, int32 lim)
{
	SweepArgs	a;

	a.t = adjlist_api_table(relid);
	a.expired = psprintf("NOT %s", table_options_live_sql(table_options(relid), "b"));
	a.lim = lim;
	return in_write_api(a.t, sweep_body, &a);
}

/*
 * delete_node(tbl regclass, node adjkey, edge_prefixes text[]) RETURNS
 * bigint: the node's item collection (pk = node) and, for each edge prefix,
 * the edges that point at it (sk = prefix || node), found through the
 * inverted index that flips (pk, sk), across its write shards.
 */
Datum
adjlist_delete_node(PG_FUNCTION_ARGS)
{
	NodeArgs	a;
	ArrayType  *prefixes;
	bool		sparse;

	require_args(fcinfo, 3, "delete_node needs a table, a node and edge prefixes");
	a.t = api_table(PG_GETARG_OID(0));
	a.node = PG_GETARG_ADJKEY_PP(1);
	prefixes = PG_GETARG_ARRAYTYPE_P(2);
	deconstruct_array(prefixes, TEXTOID, -1, false, TYPALIGN_INT, &a.pdat, &a.pnull, &a.np);
	a.flip = registry_find_flip(a.t->ti, a.t->ti->indexes[0].base_key[0],
								a.t->ti->indexes[0].base_key[1], &sparse);
	/* an index created after this transaction's snapshot holds rows it cannot see */
	if (a.np > 0 && a.flip != NULL && ActiveSnapshotSet() &&
		!registry_visible(a.flip, GetActiveSnapshot()))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no inverted index", get_rel_name(a.t->relid)),
				 errdetail("Its inverted index was created after this transaction's snapshot."),
				 errhint("Run delete_node() in a new transaction.")));
	if (a.np > 0 && a.flip != NULL && !a.flip->ready)
		registry_not_ready(a.flip->indexrel);
	if (a.np > 0 && a.flip == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("table \"%s\" has no inverted index that flips its key",
						get_rel_name(a.t->relid)),
				 sparse ?
				 errdetail("Its inverted indexes that flip it are sparse (created with a predicate): they do not hold every edge.") : 0));
	PG_RETURN_INT64(in_write_api(a.t, node_body, &a));
}
