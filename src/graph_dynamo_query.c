/*-------------------------------------------------------------------------
 *
 * graph_dynamo_query.c
 *	  query(), query_count() and query_count_page(): DynamoDB's Query on a
 *	  table or an inverted index; batch_get(): its BatchGetItem.
 *
 * One partition (partition key equality), an optional sort-key condition
 * (=, <, <=, >, >=, between, begins_with), forward or backward, a limit,
 * and keyset pagination with an exclusive start key, read as the caller
 * (privileges and row-level security apply, as to the SELECT it is).  The
 * key is the table's primary key (the partition key, the sort key, then
 * any other key columns), or, for an index table over foreign partitions
 * that can have none, the key it was registered with.
 *
 * The SQL is built here once per table and shape of call (the key, its
 * ordering operators and the statements are cached with the table by
 * query_table.c), and its plan saved (plan_cache.c, per role), so a call
 * costs what the hand-written statement costs: binding its parameters.
 * A write-sharded index table spreads a partition over N stored keys: one
 * ordered branch per shard under one ORDER BY (a Merge Append), with the
 * partition the caller asked for in the results.
 *
 * As DynamoDB does, an exclusive start key must come from the partition
 * and the condition of the query, and a limit must be positive: anything
 * else is an error ("the provided starting key is invalid").
 *
 * query_count_page() is Select COUNT with a page: the rows query() would
 * return, counted, and the last one's key (LastEvaluatedKey) when the limit
 * stopped the page.  batch_get() reads up to 100 items by key in one
 * statement (a join of the keys, in request order, with the table), as the
 * caller, like every read here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "dynamo_io.h"
#include "graph.h"
#include "index_rule.h"
#include "plan_cache.h"
#include "query_table.h"
#include "registry.h"
#include "table_options.h"
#include "write_shard.h"

PG_FUNCTION_INFO_V1(adjlist_query);
PG_FUNCTION_INFO_V1(adjlist_query_count);
PG_FUNCTION_INFO_V1(adjlist_explain_query);
PG_FUNCTION_INFO_V1(adjlist_query_count_page);

typedef enum SortOp
{
	SORT_NONE, SORT_EQ, SORT_LT, SORT_LE, SORT_GT, SORT_GE, SORT_BETWEEN, SORT_BEGINS
} SortOp;

static SortOp
parse_sort_op(text *t)
{
	char	   *s = text_to_cstring(t);

	for (char *c = s; *c; c++)
		*c = pg_ascii_tolower((unsigned char) *c);
	if (strcmp(s, "=") == 0)
		return SORT_EQ;
	if (strcmp(s, "<") == 0)
		return SORT_LT;
	if (strcmp(s, "<=") == 0)
		return SORT_LE;
	if (strcmp(s, ">") == 0)
		return SORT_GT;
	if (strcmp(s, ">=") == 0)
		return SORT_GE;
	if (strcmp(s, "between") == 0)
		return SORT_BETWEEN;
	if (strcmp(s, "begins_with") == 0)
		return SORT_BEGINS;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unknown sort condition \"%s\"", text_to_cstring(t)),
			 errhint("Use =, <, <=, >, >=, between or begins_with.")));
	return SORT_NONE;
}

/* The arguments of a call, checked. */
typedef struct QueryArgs
{
	struct varlena *partition;
	SortOp		op;
	struct varlena *v1;			/* adjkey (begins_with: the prefix's UTF-8) */
	struct varlena *v2;
	const char *prefix;			/* begins_with */
	int			prefixlen;
	text	   *prefix_text;
	bool		backward;
	bool		has_limit;
	int64		limit;
	Jsonb	   *esk;
} QueryArgs;

/*
 * Exclusive start keys, the cursors of every paged function (query(),
 * query_count_page(), neighbors(), reverse_neighbors()): a JSON object of
 * the last row's key columns, as DynamoDB's LastEvaluatedKey.  These are
 * the rules they share.
 */

/* Anything but a JSON object is not a key. */
void
graph_start_key_check_object(Jsonb *esk)
{
	if (!JB_ROOT_IS_OBJECT(esk))
		graph_invalid_start_key("The exclusive start key must be a JSON object of key columns.");
}

static bool
name_matches(const char *name, int len, const char *s, bool anycase)
{
	return len == (int) strlen(s) &&
		(anycase ? pg_strncasecmp(name, s, len) == 0 : memcmp(name, s, len) == 0);
}

/*
 * Which key column, keycols[0..ncols), a member of a key object (a start
 * key, a key of batch_get) names, or -1 when none: a key column's name as
 * it is, else in any ASCII case; else "pk" or "sk" in any case, the names
 * of the graph functions' output columns and of put_edge's parameters, for
 * the first or the second key column.  So the key of a row of neighbors()
 * ({"pk": pk, "sk": sk}) is a key of any table, one keyed (node, sk) too;
 * only a table with a key column named "pk" or "sk" in the other place
 * (keyed (sk, pk)) reads those names as its own columns.
 */
int
graph_key_member_role(const char *name, int len, const char *const *keycols, int ncols)
{
	static const char *const alias[2] = {"pk", "sk"};

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < ncols; i++)
			if (name_matches(name, len, keycols[i], pass == 1))
				return i;
	for (int i = 0; i < Min(ncols, 2); i++)
		if (name_matches(name, len, alias[i], true))
			return i;
	return -1;
}

/*
 * A key's members are key columns, names[0..n), each once: a member of
 * another name does not match the key (DynamoDB: "The provided key element
 * does not match the schema").  Checked after the key columns were read,
 * so that a key column missing is what an error names first.
 */
void
graph_start_key_check_members(Jsonb *esk, const char *const *names, int n)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool	   *seen = palloc0(sizeof(bool) * n);

	it = JsonbIteratorInit(&esk->root);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		int			role;

		if (tok != WJB_KEY)
			continue;
		role = graph_key_member_role(v.val.string.val, v.val.string.len, names, n);
		if (role < 0)
			graph_invalid_start_key(psprintf("\"%s\" is not a key column: the key element does not match the schema.",
											 pnstrdup(v.val.string.val, v.val.string.len)));
		if (seen[role])
			graph_invalid_start_key(psprintf("Key column \"%s\" is given twice.", names[role]));
		seen[role] = true;
	}
	pfree(seen);
}

/*
 * The value of key column i of names[0..n) in an exclusive start key (the
 * first member that names it: graph_key_member_role).  Absent: NULL, or an
 * error when the column is required; null: an invalid start key.
 */
static JsonbValue *
start_key_value(Jsonb *esk, const char *const *names, int n, int i, bool required)
{
	JsonbIterator *it = JsonbIteratorInit(&esk->root);
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		match = false;
	JsonbValue *found = NULL;

	while (found == NULL && (tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
			match = graph_key_member_role(v.val.string.val, v.val.string.len, names, n) == i;
		else if (tok == WJB_VALUE && match)
		{
			found = palloc(sizeof(JsonbValue));
			*found = v;
		}
	}
	if (found == NULL)
	{
		if (required)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("exclusive_start_key lacks the key column \"%s\"", names[i]),
					 errhint("Pass the key of the last row of the previous page.")));
		return NULL;
	}
	if (found->type == jbvNull)
		graph_invalid_start_key(psprintf("Key column \"%s\" is null.", names[i]));
	return found;
}

/*
 * The value of adjkey column i of names[0..n) in an exclusive start key, a
 * JSON string.  Absent: NULL, or an error when the column is required; null
 * or another JSON type: an invalid start key.
 */
char *
graph_start_key_member(Jsonb *esk, const char *const *names, int n, int i, bool required)
{
	JsonbValue *v = start_key_value(esk, names, n, i, required);

	if (v == NULL)
		return NULL;
	if (v->type != jbvString)
		graph_invalid_start_key(psprintf("Key column \"%s\" is not a string (keys are strings): "
										 "the key element does not match the schema.", names[i]));
	return pnstrdup(v->val.string.val, v->val.string.len);
}

void
graph_invalid_start_key(const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("the provided starting key is invalid"),
			 errdetail("%s", detail),
			 errhint("Pass the key of the last row of the previous page of the same query.")));
}

/*
 * A sort-key value of a read (a condition's value, a begins_with prefix,
 * the start key's sort key), len bytes of UTF-8.  DynamoDB refuses a key
 * condition value or a start key longer than its key can be
 * (ValidationException); so does a read here where adjlist keeps the
 * table's keys within those limits (q->limited: an inverted index's table,
 * or a table with one), with the error a write of the key gets, the one
 * batch_get gives.  On a table with no inverted index, whose rows plain SQL
 * writes unchecked, any key it can hold is read (and a start key taken from
 * its rows stays usable).
 */
static void
check_read_sort_key(const QueryTable *q, int len)
{
	if (q->limited)
		check_key_size(q->relid, q->is_index, KEY_ROLE_SORT, q->cols[1], len);
}

/* Does a sort key satisfy the query's condition? */
static bool
satisfies(const QueryArgs *a, struct varlena *k)
{
	const char *d = ADJKEY_DATA(k);
	int			len = ADJKEY_LEN(k);
	int			c1 = a->v1 ? adjkey_cmp_bytes(d, len, ADJKEY_DATA(a->v1), ADJKEY_LEN(a->v1)) : 0;

	switch (a->op)
	{
		case SORT_NONE:
			return true;
		case SORT_EQ:
			return c1 == 0;
		case SORT_LT:
			return c1 < 0;
		case SORT_LE:
			return c1 <= 0;
		case SORT_GT:
			return c1 > 0;
		case SORT_GE:
			return c1 >= 0;
		case SORT_BETWEEN:
			return c1 >= 0 &&
				adjkey_cmp_bytes(d, len, ADJKEY_DATA(a->v2), ADJKEY_LEN(a->v2)) <= 0;
		case SORT_BEGINS:
			return len >= a->prefixlen && memcmp(d, a->prefix, a->prefixlen) == 0;
	}
	return false;
}

/*
 * Does jsonb_to_record(), which reads a start key's values of other types
 * than adjkey (start_key_value_sql), read this type from the JSON value's
 * structure rather than from its text: an array (from a JSON array), a
 * composite (from an object), json or jsonb (the value itself), or a
 * domain over one?
 */
static bool
read_from_json_structure(Oid type)
{
	Oid			base = getBaseType(type);

	return base == JSONOID || base == JSONBOID || type_is_rowtype(base) ||
		OidIsValid(get_element_type(base));
}

/*
 * A key column after the sort key that is not an adjkey: its value must
 * be one the column's type reads, as the value query() returned is.  Of a
 * type read from text (most: a JSON string's contents, a number's digits),
 * a value it cannot read is the type's input error, raised here rather
 * than from the middle of the statement; the others, read from the JSON
 * value's structure, the statement reads and checks.
 */
static void
check_typed_member(Jsonb *esk, const char *const *names, int n, int i, Oid type)
{
	JsonbValue *v = start_key_value(esk, names, n, i, true);
	char	   *str;
	Oid			input;
	Oid			ioparam;

	if (read_from_json_structure(type))
		return;
	if (v->type == jbvString)
		str = pnstrdup(v->val.string.val, v->val.string.len);
	else if (v->type == jbvNumeric)
		str = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(v->val.numeric)));
	else if (v->type == jbvBool)
		str = v->val.boolean ? "true" : "false";
	else
		str = JsonbToCString(NULL, v->val.binary.data, v->val.binary.len);
	getTypeInputInfo(type, &input, &ioparam);
	(void) OidInputFunctionCall(input, str, ioparam, -1);
}

/*
 * The start key with its members named as the key columns, names[0..n),
 * which the statement reads them by ("->>"): the key itself when they are
 * (the usual case), else a copy with "pk", "sk" or a name in another case
 * renamed.  Its members are key columns, each once (checked).
 */
static Jsonb *
start_key_canonical(Jsonb *esk, const char *const *names, int n)
{
	JsonbParseState *state = NULL;
	JsonbIterator *it = JsonbIteratorInit(&esk->root);
	JsonbValue	v;
	JsonbIteratorToken tok;
	bool		exact = true;

	while (exact && (tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (tok == WJB_KEY)
		{
			int			i = graph_key_member_role(v.val.string.val, v.val.string.len, names, n);

			exact = i >= 0 && (int) strlen(names[i]) == v.val.string.len &&
				memcmp(names[i], v.val.string.val, v.val.string.len) == 0;
		}
	if (exact)
		return esk;
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < n; i++)
	{
		JsonbValue *m = start_key_value(esk, names, n, i, false);

		if (m == NULL)
			continue;
		v.type = jbvString;
		v.val.string.val = (char *) names[i];
		v.val.string.len = strlen(names[i]);
		pushJsonbValue(&state, WJB_KEY, &v);
		pushJsonbValue(&state, WJB_VALUE, m);
	}
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

/*
 * Check a call's start key (see the file's header) and name its members
 * as the key columns.
 */
static void
check_start_key(QueryTable *q, QueryArgs *a)
{
	const char *const *names = (const char *const *) q->cols;
	char	   *v;

	graph_start_key_check_object(a->esk);
	/* the partition, when given, must be the one queried */
	v = graph_start_key_member(a->esk, names, q->ncols, 0, false);
	if (v != NULL)
	{
		struct varlena *k = adjkey_from_server(v, strlen(v), NULL);

		if (adjkey_cmp_bytes(ADJKEY_DATA(k), ADJKEY_LEN(k), ADJKEY_DATA(a->partition),
							 ADJKEY_LEN(a->partition)) != 0)
			graph_invalid_start_key("It belongs to another partition than the one queried.");
	}
	for (int i = 1; i < q->ncols; i++)
	{
		/*
		 * A key column after the sort key (PRIMARY KEY (pk, sk, v)) has the
		 * value query() gave, of its column's type (a JSON number for an
		 * integer, an array for an array): the statement reads it back as
		 * that type (start_key_value_sql), which rejects a value it cannot
		 * read.  adjkey columns are JSON strings.
		 */
		if (q->types[i] != adjlist_catalog()->keytype)
		{
			check_typed_member(a->esk, names, q->ncols, i, q->types[i]);
			continue;
		}
		v = graph_start_key_member(a->esk, names, q->ncols, i, true);
		if (i == 1)
		{
			struct varlena *k = adjkey_from_server(v, strlen(v), NULL);

			check_read_sort_key(q, ADJKEY_LEN(k));
			if (!satisfies(a, k))
				graph_invalid_start_key("Its sort key does not satisfy the query's sort-key condition.");
		}
	}
	graph_start_key_check_members(a->esk, names, q->ncols);
	a->esk = start_key_canonical(a->esk, names, q->ncols);
}

/*
 * The table and the partition value of a query are required: DynamoDB's
 * Query without its partition key is a ValidationException.
 */
static void
check_table_and_partition(FunctionCallInfo fcinfo)
{
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table must not be null")));
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the partition value must not be null"),
				 errdetail("A query reads one partition: DynamoDB requires the partition key's value (ValidationException).")));
}

static struct varlena *
key_arg(FunctionCallInfo fcinfo, int n)
{
	text	   *t = PG_GETARG_TEXT_PP(n);

	return adjkey_from_server(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), NULL);
}

static void
read_args(FunctionCallInfo fcinfo, const QueryTable *q, QueryArgs *a, bool with_page)
{
	memset(a, 0, sizeof(*a));
	a->partition = PG_GETARG_ADJKEY_PP(1);
	a->op = PG_ARGISNULL(2) ? SORT_NONE : parse_sort_op(PG_GETARG_TEXT_PP(2));
	if (a->op != SORT_NONE && PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sort condition \"%s\" needs a value", text_to_cstring(PG_GETARG_TEXT_PP(2)))));
	/* a value no condition uses is a mistake, not a whole partition */
	if (a->op == SORT_NONE && (!PG_ARGISNULL(3) || !PG_ARGISNULL(4)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a sort value needs a sort condition"),
				 errhint("Pass sort_op (=, <, <=, >, >=, between or begins_with) with sort_value, or neither.")));
	if (a->op != SORT_BETWEEN && a->op != SORT_NONE && !PG_ARGISNULL(4))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("sort condition \"%s\" takes one value", text_to_cstring(PG_GETARG_TEXT_PP(2))),
				 errdetail("Only between takes a second value (sort_value2).")));
	if (a->op == SORT_BEGINS)
	{
		a->prefix_text = PG_GETARG_TEXT_PP(3);
		a->prefix = adjkey_text_to_utf8(a->prefix_text, &a->prefixlen);
		check_read_sort_key(q, a->prefixlen);
	}
	else if (a->op != SORT_NONE)
	{
		a->v1 = key_arg(fcinfo, 3);
		check_read_sort_key(q, ADJKEY_LEN(a->v1));
	}
	if (a->op == SORT_BETWEEN)
	{
		if (PG_ARGISNULL(4))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("between needs two values")));
		a->v2 = key_arg(fcinfo, 4);
		check_read_sort_key(q, ADJKEY_LEN(a->v2));
		if (adjkey_cmp_bytes(ADJKEY_DATA(a->v1), ADJKEY_LEN(a->v1),
							 ADJKEY_DATA(a->v2), ADJKEY_LEN(a->v2)) > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("invalid between condition: the low bound is greater than the high bound"),
					 errhint("DynamoDB rejects this too (ValidationException); swap the bounds.")));
	}
	if (!with_page)
		return;
	a->backward = PG_ARGISNULL(5) ? false : PG_GETARG_BOOL(5);
	a->has_limit = !PG_ARGISNULL(6);
	a->limit = a->has_limit ? PG_GETARG_INT64(6) : 0;
	if (a->has_limit && a->limit <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("limit must be at least 1, not " INT64_FORMAT, a->limit),
				 errdetail("DynamoDB rejects a Limit below 1 (ValidationException).")));
	a->esk = PG_ARGISNULL(7) ? NULL : PG_GETARG_JSONB_P(7);
}

/* "AND s OP $2 ..." for the sort condition ($2, $3) */
static void
append_condition(StringInfo sql, QueryTable *q, SortOp op)
{
	const char *nsp = adjlist_catalog()->nspname;
	const char *s = quote_identifier(q->cols[1]);
	static const char *const ops[] = {"", "=", "<", "<=", ">", ">="};

	if (op >= SORT_EQ && op <= SORT_GE)
		appendStringInfo(sql, " AND t.%s OPERATOR(%s.%s) $2", s, nsp, ops[op]);
	else if (op == SORT_BETWEEN)
		appendStringInfo(sql, " AND t.%s OPERATOR(%s.>=) $2 AND t.%s OPERATOR(%s.<=) $3",
						 s, nsp, s, nsp);
	else if (op == SORT_BEGINS)
		appendStringInfo(sql, " AND t.%s OPERATOR(%s.^@) $4", s, nsp);
	/* expired items are not read */
	if (q->live != NULL)
		appendStringInfo(sql, " AND %s", q->live);
}

/*
 * The value of key column i in the start key ($5), as SQL.  An adjkey is
 * the member's text, cast.  Another type is read as jsonb_to_record()
 * reads a column from JSON, which takes back what query() returned for it
 * (to_jsonb: an array as a JSON array, a composite as an object, a number
 * as a number; its text cast would not read the first two), once per
 * statement (an uncorrelated subquery), and cast to its operators' input
 * type (q->cast_sql).
 */
static char *
start_key_value_sql(QueryTable *q, int i)
{
	const char *c = quote_identifier(q->cols[i]);

	if (q->types[i] == adjlist_catalog()->keytype)
		return psprintf("($5 OPERATOR(pg_catalog.->>) %s)::%s", quote_literal_cstr(q->cols[i]),
						q->type_sql[i]);
	return psprintf("(SELECT r.%s FROM pg_catalog.jsonb_to_record($5) AS r(%s %s))%s",
					c, c, q->type_sql[i], q->cast_sql[i]);
}

/*
 * Rows strictly after the start key ($5) in the scan's order: (sk, more
 * key columns...) compared column by column with the operators of the
 * key's operator classes (the primary key index's), each side cast to the
 * operators' input type.  With more key columns than (pk, sk), "sk >= $sk"
 * (or <=) as well, which the index can start the scan at.
 */
static void
append_keyset(StringInfo sql, QueryTable *q, bool backward)
{
	StringInfoData k;

	initStringInfo(&k);
	for (int i = q->ncols - 1; i >= 1; i--)
	{
		const char *c = psprintf("t.%s%s", quote_identifier(q->cols[i]), q->cast_sql[i]);
		const char *gt = backward ? q->lt_sql[i] : q->gt_sql[i];
		char	   *val = start_key_value_sql(q, i);
		char	   *prev = k.data[0] ? pstrdup(k.data) : NULL;

		resetStringInfo(&k);
		if (prev == NULL)
			appendStringInfo(&k, "%s %s %s", c, gt, val);
		else
			appendStringInfo(&k, "(%s %s %s OR (%s %s %s AND %s))", c, gt, val,
							 c, q->eq_sql[i], val, prev);
		if (i == 1 && q->ncols > 2)
			appendStringInfo(sql, " AND %s OPERATOR(%s.%s) %s", c,
							 adjlist_catalog()->nspname, backward ? "<=" : ">=", val);
	}
	appendStringInfo(sql, " AND %s", k.data);
}

static void
append_order(StringInfo sql, QueryTable *q, bool backward)
{
	appendStringInfoString(sql, " ORDER BY ");
	for (int i = 1; i < q->ncols; i++)
		appendStringInfo(sql, "%st.%s%s USING %s", i > 1 ? ", " : "", quote_identifier(q->cols[i]),
						 q->cast_sql[i], backward ? q->gt_sql[i] : q->lt_sql[i]);
}

/*
 * The statement: $1 partition, $2 and $3 sort values (adjkey), $4 the
 * begins_with prefix (text), $5 the start key (jsonb), $6 the limit, $7 the
 * stored keys of a write-sharded partition (adjkey[]).
 */
static char *
query_sql(QueryTable *q, const QueryArgs *a, bool count_only)
{
	const char *nsp = adjlist_catalog()->nspname;
	const char *p = quote_identifier(q->cols[0]);
	StringInfoData where;
	StringInfoData sql;

	initStringInfo(&where);
	append_condition(&where, q, a->op);
	if (a->esk != NULL)
		append_keyset(&where, q, a->backward);
	initStringInfo(&sql);
	if (count_only)
	{
		appendStringInfo(&sql, "SELECT pg_catalog.count(*) FROM %s t WHERE t.%s OPERATOR(%s.=) %s%s",
						 q->qname, p, nsp, q->shards > 0 ? "ANY ($7)" : "$1", where.data);
		return sql.data;
	}
	if (q->shards == 0)
	{
		appendStringInfo(&sql, "SELECT t.%s, t.%s, %s, %s FROM %s t WHERE t.%s OPERATOR(%s.=) $1%s",
						 p, quote_identifier(q->cols[1]), q->key_sql, q->item_sql, q->qname, p, nsp,
						 where.data);
		append_order(&sql, q, a->backward);
		if (a->has_limit)
			appendStringInfoString(&sql, " LIMIT $6");
		return sql.data;
	}
	/* a write-sharded index: one ordered branch per stored partition key */
	{
		StringInfoData key;
		StringInfoData order;

		initStringInfo(&key);
		for (int i = 0; i < q->ncols; i++)
			appendStringInfo(&key, "%s%s, %s", i ? ", " : "", quote_literal_cstr(q->cols[i]),
							 i == 0 ? "$1" : psprintf("t.%s", quote_identifier(q->cols[i])));
		initStringInfo(&order);
		append_order(&order, q, a->backward);
		appendStringInfo(&sql, "SELECT $1, t.%s, pg_catalog.jsonb_build_object(%s), "
						 "pg_catalog.to_jsonb(t) OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(%s, $1) "
						 "FROM (",
						 quote_identifier(q->cols[1]), key.data, quote_literal_cstr(q->cols[0]));
		for (int s = 1; s <= q->shards; s++)
			appendStringInfo(&sql, "%s(SELECT * FROM %s t WHERE t.%s OPERATOR(%s.=) ($7)[%d]%s%s%s)",
							 s > 1 ? " UNION ALL " : "", q->qname, p, nsp, s, where.data, order.data,
							 a->has_limit ? " LIMIT $6" : "");
		appendStringInfo(&sql, ") t%s%s", order.data, a->has_limit ? " LIMIT $6" : "");
		return sql.data;
	}
}

/* Run sql, a statement of query_sql()'s parameters, for a call's arguments. */
static int
run_query_sql(QueryTable *q, QueryArgs *a, const char *sql, bool explain)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[7] = {cat->keytype, cat->keytype, cat->keytype, TEXTOID, JSONBOID,
	INT8OID, cat->keyarraytype};
	Datum		values[7] = {0};
	char		nulls[7] = {' ', 'n', 'n', 'n', 'n', 'n', 'n'};

	values[0] = PointerGetDatum(a->partition);
	if (a->v1)
	{
		values[1] = PointerGetDatum(a->v1);
		nulls[1] = ' ';
	}
	if (a->v2)
	{
		values[2] = PointerGetDatum(a->v2);
		nulls[2] = ' ';
	}
	if (a->prefix_text)
	{
		values[3] = PointerGetDatum(a->prefix_text);
		nulls[3] = ' ';
	}
	if (a->esk)
	{
		values[4] = JsonbPGetDatum(a->esk);
		nulls[4] = ' ';
	}
	if (a->has_limit)
	{
		values[5] = Int64GetDatum(a->limit);
		nulls[5] = ' ';
	}
	if (q->shards > 0)
	{
		Datum	   *keys = palloc(sizeof(Datum) * q->shards);

		for (int s = 0; s < q->shards; s++)
			keys[s] = PointerGetDatum(write_shard_key(ADJKEY_DATA(a->partition),
													  ADJKEY_LEN(a->partition), s));
		values[6] = PointerGetDatum(construct_array(keys, q->shards, cat->keytype, -1, false,
													TYPALIGN_INT));
		nulls[6] = ' ';
	}
	if (explain)
		return SPI_execute_with_args(psprintf("EXPLAIN (COSTS OFF) %s", sql),
									 7, types, values, nulls, false, 0);
	return adjlist_plan_execute(adjlist_plan(sql, 7, types), values, nulls, true, 0, SPI_OK_SELECT);
}

/* What makes two calls' statements differ (besides the table). */
typedef enum QueryKind
{
	QUERY_ROWS, QUERY_COUNT, QUERY_PAGE
} QueryKind;

static int
query_shape(QueryKind kind, const QueryArgs *a)
{
	return (((((int) kind * 8 + (int) a->op) * 2 + (a->esk != NULL)) * 2 + a->backward) * 2) +
		a->has_limit;
}

static char *
build_rows(QueryTable *q, const void *arg)
{
	return query_sql(q, (const QueryArgs *) arg, false);
}

static char *
build_count(QueryTable *q, const void *arg)
{
	return query_sql(q, (const QueryArgs *) arg, true);
}

static char *count_page_sql(QueryTable *q, const QueryArgs *a);

static char *
build_page(QueryTable *q, const void *arg)
{
	return count_page_sql(q, (const QueryArgs *) arg);
}

/* The statement of a call, from the table's cache (built on first use). */
static char *
call_sql(QueryTable *q, const QueryArgs *a, QueryKind kind)
{
	return query_table_sql(q, query_shape(kind, a),
						   kind == QUERY_ROWS ? build_rows :
						   kind == QUERY_COUNT ? build_count : build_page, a);
}

static int
run_query(QueryTable *q, QueryArgs *a, bool count_only, bool explain)
{
	return run_query_sql(q, a, call_sql(q, a, count_only ? QUERY_COUNT : QUERY_ROWS), explain);
}

/*
 * query(tbl, partition_value, sort_op, sort_value, sort_value2, backward,
 *		 lim, exclusive_start_key)
 *	RETURNS TABLE (partition_key adjkey, sort_key adjkey, key jsonb, item jsonb)
 */
Datum
adjlist_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	QueryTable *q;
	QueryArgs	a;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);	/* not built from pg_proc per call */
	check_table_and_partition(fcinfo);
	q = query_table_get(PG_GETARG_OID(0));
	read_args(fcinfo, q, &a, true);
	if (a.esk != NULL)
		check_start_key(q, &a);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	run_query(q, &a, false, false);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		Datum		values[4];
		bool		nulls[4];

		for (int c = 0; c < 4; c++)
			values[c] = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, c + 1, &nulls[c]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	SPI_finish();
	query_table_release(q);
	return (Datum) 0;
}

/*
 * explain_query(...the arguments of query()...) RETURNS SETOF text: the
 * plan of the statement query() runs for these arguments (EXPLAIN, COSTS
 * OFF), to see which index it reads.
 */
Datum
adjlist_explain_query(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	QueryTable *q;
	QueryArgs	a;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	check_table_and_partition(fcinfo);
	q = query_table_get(PG_GETARG_OID(0));
	read_args(fcinfo, q, &a, true);
	if (a.esk != NULL)
		check_start_key(q, &a);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (run_query(q, &a, false, true) != SPI_OK_UTILITY)
		elog(ERROR, "EXPLAIN failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		Datum		v;
		bool		isnull;

		v = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &v, &isnull);
	}
	SPI_finish();
	query_table_release(q);
	return (Datum) 0;
}

/* ----------------------------------------------------------------------
 * query_count_page: Select COUNT with Limit, ExclusiveStartKey and
 * ScanIndexForward, and the LastEvaluatedKey out
 * ----------------------------------------------------------------------
 */

/*
 * The statement of a counted page with a limit ($6): how many rows the page
 * has and the key of its last one, or no row for an empty page.  The rows
 * are those query() returns for the same arguments, read by the same index
 * range in the same order; a streaming row_number() numbers them and a
 * top-1 sort of the numbers finds the last, so no row but that one is
 * turned into JSON.
 */
static char *
count_page_sql(QueryTable *q, const QueryArgs *a)
{
	const char *nsp = adjlist_catalog()->nspname;
	const char *p = quote_identifier(q->cols[0]);
	StringInfoData where;
	StringInfoData order;
	StringInfoData cols;
	StringInfoData key;
	StringInfoData source;

	initStringInfo(&where);
	append_condition(&where, q, a->op);
	if (a->esk != NULL)
		append_keyset(&where, q, a->backward);
	initStringInfo(&order);
	append_order(&order, q, a->backward);
	initStringInfo(&cols);
	initStringInfo(&key);
	for (int i = 0; i < q->ncols; i++)
	{
		appendStringInfo(&cols, ", t.%s AS k%d", quote_identifier(q->cols[i]), i);
		appendStringInfo(&key, "%s%s, %s", i ? ", " : "", quote_literal_cstr(q->cols[i]),
						 i == 0 && q->shards > 0 ? "$1" : psprintf("s.k%d", i));
	}
	initStringInfo(&source);
	if (q->shards == 0)
		appendStringInfo(&source, "%s t WHERE t.%s OPERATOR(%s.=) $1%s", q->qname, p, nsp, where.data);
	else
	{
		/* a write-sharded index: one ordered branch per stored partition key */
		appendStringInfoChar(&source, '(');
		for (int s = 1; s <= q->shards; s++)
			appendStringInfo(&source, "%s(SELECT * FROM %s t WHERE t.%s OPERATOR(%s.=) ($7)[%d]%s%s LIMIT $6)",
							 s > 1 ? " UNION ALL " : "", q->qname, p, nsp, s, where.data, order.data);
		appendStringInfoString(&source, ") t");
	}
	return psprintf("SELECT s.n, pg_catalog.jsonb_build_object(%s) FROM "
					"(SELECT w.* FROM (SELECT pg_catalog.row_number() OVER (%s) AS n%s FROM %s%s LIMIT $6) w "
					"ORDER BY w.n DESC LIMIT 1) s",
					key.data, order.data, cols.data, source.data, order.data);
}

/*
 * Count the items of a query, or of one page of it when a limit is given;
 * with a limit that stopped the page, *lek is the key of its last item
 * (in the caller's memory), else *lek_null is set.
 */
static int64
count_items(QueryTable *q, QueryArgs *a, Datum *lek, bool *lek_null)
{
	int64		n = 0;
	bool		isnull;

	*lek = (Datum) 0;
	*lek_null = true;
	if (a->esk != NULL)
		check_start_key(q, a);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!a->has_limit)
	{
		run_query(q, a, true, false);
		n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	}
	else
	{
		run_query_sql(q, a, call_sql(q, a, QUERY_PAGE), false);
		if (SPI_processed > 0)
		{
			n = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
			if (n >= a->limit)
			{
				Datum		k = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2,
											  lek_null);

				/* out of SPI's memory, which SPI_finish() frees */
				if (!*lek_null)
					*lek = SPI_datumTransfer(k, false, -1);
			}
		}
	}
	SPI_finish();
	return n;
}

/*
 * query_count(tbl, partition_value, sort_op, sort_value, sort_value2,
 *			   backward, lim, exclusive_start_key) RETURNS bigint
 *
 * DynamoDB's Query with Select COUNT: the number of items query() returns
 * for the same arguments (with lim, of that page; query_count_page also
 * gives the key to go on from).  A catalog of 0.1 or 0.2, not updated yet,
 * passes the first five arguments only.
 */
Datum
adjlist_query_count(PG_FUNCTION_ARGS)
{
	QueryTable *q;
	QueryArgs	a;
	Datum		lek;
	bool		lek_null;
	int64		n;

	check_table_and_partition(fcinfo);
	q = query_table_get(PG_GETARG_OID(0));
	read_args(fcinfo, q, &a, PG_NARGS() > 5);
	n = count_items(q, &a, &lek, &lek_null);
	query_table_release(q);
	PG_RETURN_INT64(n);
}

/*
 * query_count_page(tbl, partition_value, sort_op, sort_value, sort_value2,
 *					backward, lim, exclusive_start_key)
 *	RETURNS TABLE (count bigint, last_evaluated_key jsonb)
 *
 * DynamoDB's Query with Select COUNT, one page: the number of items of the
 * page query() would return for the same arguments, and the key to start
 * the next page from.  As in DynamoDB, that key is given whenever the limit
 * stopped the page (even when no item follows: the next page is then
 * empty), and is null when the range ended first.
 */
Datum
adjlist_query_count_page(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	QueryTable *q;
	QueryArgs	a;
	Datum		values[2] = {Int64GetDatum(0), (Datum) 0};
	bool		nulls[2] = {false, true};

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	check_table_and_partition(fcinfo);
	q = query_table_get(PG_GETARG_OID(0));
	read_args(fcinfo, q, &a, true);
	values[0] = Int64GetDatum(count_items(q, &a, &values[1], &nulls[1]));
	query_table_release(q);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	return (Datum) 0;
}

/* ----------------------------------------------------------------------
 * The item key of a table (batch_get, export_dynamodb)
 * ----------------------------------------------------------------------
 */

/*
 * The item key of a table that batch_get and export_dynamodb read: exactly
 * two adjkey key columns (partition, sort); its payload column, quoted
 * (NULL when the table has no jsonb column of that name); and the items
 * that have not expired, as SQL over t.  Checks the caller may read the
 * table at all.
 */
void
adjlist_item_table(Oid relid, char **keycols, char **payload, bool *is_index, bool *limited,
				   char **live)
{
	QueryTable *q = query_table_get(relid);
	TableOptions *o = table_options(relid);

	query_table_release(q);		/* (only its description is used) */
	if (q->ncols != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("table \"%s\" is not keyed by two adjkey columns", get_rel_name(relid)),
				 errdetail("An item is read by its partition and sort key; this table's key has %d columns.",
						   q->ncols)));
	/* q is the caller's copy; o's strings are copied */
	keycols[0] = q->cols[0];
	keycols[1] = q->cols[1];
	*payload = o->payload_attno != InvalidAttrNumber ? pstrdup(quote_identifier(o->payload)) : NULL;
	*is_index = q->is_index;
	if (limited != NULL)
		*limited = q->limited;
	*live = q->live ? q->live : pstrdup("true");
}

/*
 * The expiry column (set_ttl) of the items of relid that export_dynamodb
 * writes as an attribute, and its type: the base table's option, in the
 * table or in an index table that projects it; NULL when there is none.
 */
char *
adjlist_item_ttl(Oid relid, Oid *type)
{
	QueryTable *q = query_table_get(relid);
	TableOptions *o = table_options(q->optrel);

	query_table_release(q);		/* (only its description is used) */
	if (o->ttl == NULL || get_attnum(relid, o->ttl) == InvalidAttrNumber)
		return NULL;
	*type = o->ttl_type;
	return pstrdup(o->ttl);
}
