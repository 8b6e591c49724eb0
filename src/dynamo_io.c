/*-------------------------------------------------------------------------
 *
 * dynamo_io.c
 *	  import_dynamodb() and export_dynamodb(): items in DynamoDB JSON, the
 *	  typed lines of a DynamoDB table export:
 *
 *	  {"Item":{"pk":{"S":"USER#a"},"sk":{"S":"FOLLOWS#USER#b"},"since":{"N":"2024"}}}
 *
 * An item is its two key attributes (named as the table's key columns,
 * strings: type S) and its other attributes, which live as plain JSON in
 * the table's payload column ("data" unless set_payload_column() names
 * another), but for the TTL attribute of a table with an expiry column
 * (set_ttl): named as the column, a number (N, epoch seconds) goes into
 * the column and comes back from it, as DynamoDB's TTL reads it (another
 * type is an ordinary attribute, as DynamoDB's TTL ignores it), exactly:
 * a time column gets the instant in numeric arithmetic, to the
 * microsecond, and gives it back the same way, so a TTL that a time type
 * cannot hold is refused (22008) rather than stored as another.  Import
 * turns each typed value into plain JSON:
 * S and B (base64 text) into strings, N into a number that keeps its digits
 * (jsonb numbers are numeric: "1.50" stays 1.50), BOOL and NULL into true,
 * false and null, M into an object, L into an array, and the sets SS, NS
 * and BS into arrays.  Export writes plain JSON back with the types it can
 * tell: strings as S, numbers as N, booleans as BOOL, null as NULL,
 * objects as M, arrays as L.  What plain JSON cannot tell apart comes back
 * as the more general type: a set as a list (SS -> L of S), binary as a
 * string (B -> S); and a number in exponent form as its digits ("1E+3" ->
 * "1000").  Everything else comes back as it went in.
 *
 * Import writes through the write API (put_rows() in write_api.c), one
 * statement per batch of lines, so that the inverted indexes and their
 * counters follow on any table the write API handles (Citus too), as the
 * caller, with the caller's privileges and row-level security.  Export
 * reads as the caller through a cursor, in key order.  A malformed line is
 * an error (22P02) that names its line; nothing of the call is kept.  What
 * DynamoDB would refuse is malformed too: a member next to "Item", a
 * number that is a JSON number instead of a string, a B
 * value that is not base64, an empty set or a set with a member twice, a
 * number with more than 38 significant digits or out of DynamoDB's range;
 * and a key longer than DynamoDB allows for its role (22001).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/timestamp.h"
#include "utils/date.h"

#include "adjlist.h"
#include "catalog.h"
#include "dynamo_io.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_import_dynamodb);
PG_FUNCTION_INFO_V1(adjlist_export_dynamodb);

/* Items written per statement by import_dynamodb(). */
#define IMPORT_BATCH	1000
/* Rows fetched at a time by export_dynamodb(). */
#define EXPORT_FETCH	1000

/* ----------------------------------------------------------------------
 * Import: typed DynamoDB JSON -> plain JSON
 * ----------------------------------------------------------------------
 */

/* Where import is, for the context line of its errors. */
typedef struct ImportPosition
{
	int64		line;			/* the line being read, from 1 */
	int64		first;			/* lines of the batch being written, or 0 */
	int64		last;
} ImportPosition;

static void
import_error_context(void *arg)
{
	ImportPosition *pos = (ImportPosition *) arg;

	if (pos->first > 0)
		errcontext("writing the items of lines " INT64_FORMAT " to " INT64_FORMAT " of the DynamoDB JSON",
				   pos->first, pos->last);
	else if (pos->line > 0)
		errcontext("line " INT64_FORMAT " of the DynamoDB JSON", pos->line);
}

/*
 * An item that is not DynamoDB JSON.  A macro, so that the compiler knows
 * ereport(ERROR) does not return, in every PostgreSQL version (the way to
 * mark a function so changed in 18).
 */
#define bad_item(msg, detail) \
	do { \
		const char *bad_detail_ = (detail); \
		ereport(ERROR, \
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION), \
				 errmsg("invalid DynamoDB JSON: %s", (msg)), \
				 bad_detail_ ? errdetail("%s", bad_detail_) : 0)); \
	} while (0)

static char *
value_string(const JsonbValue *v)
{
	return pnstrdup(v->val.string.val, v->val.string.len);
}

/*
 * Is s a DynamoDB number: an optional minus, digits with an optional
 * decimal point, an optional exponent?  (No NaN, no infinity, no blanks.)
 * NULL when it is, else NOT_A_NUMBER, or why DynamoDB cannot store it, in
 * its words: it keeps at most 38 significant digits, and magnitudes from
 * 1E-130 to below 1E+126 (and zero).
 */
#define NOT_A_NUMBER "syntax"

static const char *
dynamo_number_problem(const char *s)
{
	const char *first = NULL;	/* first nonzero digit */
	const char *last = NULL;	/* last nonzero digit */
	int64		lead = 0;		/* its exponent before e, plus one: digits
								 * from it to the point, or minus the zeros
								 * between the point and it */
	int64		exp = 0;
	int			sig = 0;
	bool		digits = false;
	bool		point = false;
	bool		expneg = false;

	if (*s == '-')
		s++;
	for (; isdigit((unsigned char) *s) || (*s == '.' && !point); s++)
	{
		if (*s == '.')
		{
			point = true;
			continue;
		}
		digits = true;
		if (*s != '0')
		{
			if (first == NULL)
				first = s;
			last = s;
		}
		/* digits left of the point raise the exponent of the first one */
		if (first != NULL && !point)
			lead++;
		else if (first == NULL && point)
			lead--;
	}
	if (!digits)
		return NOT_A_NUMBER;
	if (*s == 'e' || *s == 'E')
	{
		s++;
		if (*s == '+' || *s == '-')
			expneg = *s++ == '-';
		if (!isdigit((unsigned char) *s))
			return NOT_A_NUMBER;
		for (; isdigit((unsigned char) *s); s++)
			exp = Min(exp * 10 + (*s - '0'), (int64) 1000000);
	}
	if (*s != '\0')
		return NOT_A_NUMBER;
	if (first == NULL)
		return NULL;			/* zero */
	for (const char *d = first; d <= last; d++)
		if (*d != '.')
			sig++;
	if (sig > 38)
		return "Attempting to store more than 38 significant digits in a Number";
	/* the exponent of the first significant digit: 1 <= |x| / 10^e < 10 */
	exp = (expneg ? -exp : exp) + lead - 1;
	if (exp > 125)
		return "Number overflow. Attempting to store a number with magnitude larger than supported range";
	if (exp < -130)
		return "Number underflow. Attempting to store a number with magnitude smaller than supported range";
	return NULL;
}

/*
 * A number of an N or NS value: a string of digits.  A JSON number is
 * refused as DynamoDB refuses it: its JSON has numbers as strings, so that
 * no digit is lost on the way.
 */
static void
number_value(const JsonbValue *v, JsonbValue *out)
{
	char	   *s;
	const char *problem;

	if (v->type != jbvString)
		bad_item("a number must be a string of digits", "For example {\"N\": \"2024\"}.");
	s = value_string(v);
	problem = dynamo_number_problem(s);
	if (problem != NULL && strcmp(problem, NOT_A_NUMBER) == 0)
		bad_item(psprintf("\"%s\" is not a number", s),
				 "A number is an optional minus, digits with an optional decimal point, and an optional exponent, such as \"-1.5E3\".");
	if (problem != NULL)
		bad_item(psprintf("\"%s\" is not a number DynamoDB can store", s),
				 psprintf("%s.", problem));
	out->type = jbvNumeric;
	out->val.numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(s),
														   ObjectIdGetDatum(InvalidOid),
														   Int32GetDatum(-1)));
}

/*
 * Is s[0..len) base64 as DynamoDB reads a binary value: the standard
 * alphabet, padded with '=' to a multiple of four characters, no blanks?
 */
static bool
is_base64(const char *s, int len)
{
	int			pad = 0;

	if (len % 4 != 0)
		return false;
	while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
		pad++;
	for (int i = 0; i < len - pad; i++)
		if (!isalnum((unsigned char) s[i]) && s[i] != '+' && s[i] != '/')
			return false;
	return true;
}

/* A B value, or a BS member: a base64 string. */
static void
check_binary(const JsonbValue *v, const char *desc)
{
	if (v->type != jbvString)
		bad_item(psprintf("a value of type %s must be a string", desc), NULL);
	if (!is_base64(v->val.string.val, v->val.string.len))
		bad_item(psprintf("a value of type %s must be base64", desc),
				 psprintf("\"%s\" is not base64: the characters A-Z, a-z, 0-9, + and /, padded with = to a multiple of four.",
						  value_string(v)));
}

/*
 * The one member of a typed value {"T": value}: its type descriptor T and
 * its value.
 */
static const char *
typed_member(const JsonbValue *typed, JsonbValue *val)
{
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	char	   *desc = NULL;
	int			members = 0;

	if (typed->type != jbvBinary || !JsonContainerIsObject(typed->val.binary.data))
		bad_item("an attribute value must be an object of one type descriptor",
				 "For example {\"S\": \"text\"}, {\"N\": \"12\"} or {\"BOOL\": true}.");
	it = JsonbIteratorInit(typed->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			members++;
			desc = value_string(&v);
		}
		else if (tok == WJB_VALUE)
			*val = v;
	}
	if (members != 1)
		bad_item("an attribute value must be an object of one type descriptor",
				 psprintf("This one has %d members.", members));
	return desc;
}

/* A member of a set, as compare_members() compares them. */
typedef struct SetMember
{
	JsonbValue	v;				/* a string, or a number (NS) */
} SetMember;

static int
compare_members(const void *a, const void *b)
{
	const JsonbValue *x = &((const SetMember *) a)->v;
	const JsonbValue *y = &((const SetMember *) b)->v;
	int			c;

	if (x->type == jbvNumeric)
		return DatumGetInt32(DirectFunctionCall2(numeric_cmp, NumericGetDatum(x->val.numeric),
												 NumericGetDatum(y->val.numeric)));
	c = memcmp(x->val.string.val, y->val.string.val, Min(x->val.string.len, y->val.string.len));
	return c != 0 ? c : (x->val.string.len > y->val.string.len) - (x->val.string.len < y->val.string.len);
}

/*
 * A set (SS, NS, BS) whose members are checked already: DynamoDB has no
 * empty sets, and none with a member twice (numbers by value: "1" and
 * "1.0" are one number; binary members by their base64 text, which is
 * one per value when padded).
 */
static void
check_set(const JsonbValue *arr, const char *desc)
{
	JsonbIterator *it = JsonbIteratorInit(arr->val.binary.data);
	int			n = JsonContainerSize(arr->val.binary.data);
	SetMember  *m = palloc(sizeof(SetMember) * Max(n, 1));
	JsonbValue	v;
	JsonbIteratorToken t;
	int			k = 0;

	if (n == 0)
		bad_item(psprintf("a value of type %s must not be empty", desc),
				 "DynamoDB has no empty sets: leave the attribute out, or write an empty list {\"L\": []}.");
	while ((t = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		if (t == WJB_ELEM)
		{
			if (desc[0] == 'N')
				number_value(&v, &m[k].v);
			else
				m[k].v = v;
			k++;
		}
	qsort(m, k, sizeof(SetMember), compare_members);
	for (int i = 1; i < k; i++)
		if (compare_members(&m[i - 1], &m[i]) == 0)
			bad_item(psprintf("a value of type %s must not have a member twice", desc),
					 psprintf("One or more parameter values were invalid: Input collection contains duplicates (%s).",
							  m[i].v.type == jbvNumeric ?
							  DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(m[i].v.val.numeric))) :
							  psprintf("\"%s\"", value_string(&m[i].v))));
	pfree(m);
}

/* Push the plain JSON of a typed value, as tok (WJB_VALUE or WJB_ELEM). */
static void
push_plain(JsonbParseState **st, JsonbIteratorToken tok, const JsonbValue *typed)
{
	JsonbValue	val;
	JsonbValue	out;
	const char *desc = typed_member(typed, &val);

	check_stack_depth();
	if (strcmp(desc, "S") == 0 || strcmp(desc, "B") == 0)
	{
		if (desc[0] == 'B')
			check_binary(&val, desc);
		else if (val.type != jbvString)
			bad_item(psprintf("a value of type %s must be a string", desc), NULL);
		(void) pushJsonbValue(st, tok, &val);
	}
	else if (strcmp(desc, "N") == 0)
	{
		number_value(&val, &out);
		(void) pushJsonbValue(st, tok, &out);
	}
	else if (strcmp(desc, "BOOL") == 0)
	{
		if (val.type != jbvBool)
			bad_item("a value of type BOOL must be true or false", NULL);
		(void) pushJsonbValue(st, tok, &val);
	}
	else if (strcmp(desc, "NULL") == 0)
	{
		if (val.type != jbvBool || !val.val.boolean)
			bad_item("a value of type NULL must be true", "Write {\"NULL\": true}.");
		out.type = jbvNull;
		(void) pushJsonbValue(st, tok, &out);
	}
	else if (strcmp(desc, "M") == 0 || strcmp(desc, "L") == 0 || strcmp(desc, "SS") == 0 ||
			 strcmp(desc, "NS") == 0 || strcmp(desc, "BS") == 0)
	{
		bool		map = desc[0] == 'M';
		JsonbIterator *it;
		JsonbValue	v;
		JsonbIteratorToken t;

		if (val.type != jbvBinary ||
			(map ? !JsonContainerIsObject(val.val.binary.data) : !JsonContainerIsArray(val.val.binary.data)))
			bad_item(psprintf("a value of type %s must be %s", desc, map ? "an object" : "an array"), NULL);
		(void) pushJsonbValue(st, map ? WJB_BEGIN_OBJECT : WJB_BEGIN_ARRAY, NULL);
		it = JsonbIteratorInit(val.val.binary.data);
		while ((t = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (t == WJB_KEY)
				(void) pushJsonbValue(st, WJB_KEY, &v);
			else if (t == WJB_VALUE || (t == WJB_ELEM && desc[0] == 'L'))
				push_plain(st, t, &v);
			else if (t == WJB_ELEM && desc[0] == 'N')
			{
				number_value(&v, &out);
				(void) pushJsonbValue(st, WJB_ELEM, &out);
			}
			else if (t == WJB_ELEM)
			{
				if (desc[0] == 'B')
					check_binary(&v, desc);
				else if (v.type != jbvString)
					bad_item(psprintf("the members of a value of type %s must be strings", desc), NULL);
				(void) pushJsonbValue(st, WJB_ELEM, &v);
			}
		}
		if (desc[1] == 'S')
			check_set(&val, desc);
		(void) pushJsonbValue(st, map ? WJB_END_OBJECT : WJB_END_ARRAY, NULL);
	}
	else
		bad_item(psprintf("unknown type descriptor \"%s\"", desc),
				 "The types are S, N, B, BOOL, NULL, M, L, SS, NS and BS.");
}

/*
 * A key attribute (role 0: the partition key, 1: the sort key) of an item
 * of relid, checked against DynamoDB's limit for its role here, so that
 * the error names the line and says what DynamoDB says.
 */
static struct varlena *
import_key(Oid relid, const char *attr, int role, const char *s, int len)
{
	const char *utf8 = pg_server_to_any(s, len, PG_UTF8);
	int			ulen = utf8 == s ? len : (int) strlen(utf8);

	check_key_size(relid, false, role, attr, ulen);
	return adjkey_from_server(s, len, NULL);
}

/*
 * The limits of the table's inverted indexes on an item, checked per line
 * as import_key() checks the table's, so that an error names the line: the
 * writers' rule (index_row_check_base()) on the row each index would hold,
 * that is its sort key (whichever of the item's keys it takes as one: the
 * partition key for the default index) and a write-sharded index's
 * partition key with its suffix.  An index whose key or predicate (a
 * sparse index) reads a column other than the item's keys and payload is
 * left to the write, whose error names the lines of the batch: the value
 * that column gets (its default, or an existing row's) is not the line's.
 */
#define IMPORT_SOURCES	3		/* an item's pk, sk and payload */

typedef struct ImportIndexes
{
	int			n;
	const IndexDef **ix;
	int		  **src;			/* per registry column: an item source, or -1 */
	IndexPredicateState **pred; /* a sparse index's, or NULL */
	Relation	rel;			/* for the predicates, or NULL: none */
	TupleTableSlot *slot;
	AttrNumber	attnos[IMPORT_SOURCES];
	Oid			owner;			/* a predicate runs as the table's owner */
} ImportIndexes;

/* The item source of a column: 0 pk, 1 sk, 2 payload, -1 none of them. */
static int
import_source(const char *col, const char *const *names)
{
	for (int k = 0; k < IMPORT_SOURCES; k++)
		if (names[k] != NULL && strcmp(col, names[k]) == 0)
			return k;
	return -1;
}

static ImportIndexes *
import_indexes_begin(Oid relid, const char **keynames, const char *payload)
{
	TableIndexes *ti = registry_lookup(relid);
	ImportIndexes *ii = palloc0(sizeof(ImportIndexes));
	const char *names[IMPORT_SOURCES] = {keynames[0], keynames[1], payload};

	ii->ix = palloc(sizeof(IndexDef *) * Max(ti->nindexes, 1));
	ii->src = palloc(sizeof(int *) * Max(ti->nindexes, 1));
	ii->pred = palloc0(sizeof(IndexPredicateState *) * Max(ti->nindexes, 1));
	ii->owner = ti->owner;
	for (int i = 0; i < ti->nindexes; i++)
	{
		const IndexDef *ix = &ti->indexes[i];
		bool		known = true;
		ListCell   *lc;

		ii->src[ii->n] = palloc(sizeof(int) * ix->ncols);
		for (int c = 0; c < ix->ncols; c++)
		{
			ii->src[ii->n][c] = import_source(ix->colnames[c], names);
			if (c < ix->nkeys && ii->src[ii->n][c] < 0)
				known = false;
		}
		if (ix->predicate != NULL)
		{
			if (ix->predicate_expr == NULL)
				known = false;
			foreach(lc, index_predicate_columns(ix->predicate))
				if (import_source((const char *) lfirst(lc), names) < 0)
					known = false;
		}
		if (!known)
			continue;
		if (ix->predicate != NULL)
		{
			if (ii->rel == NULL)
			{
				ii->rel = table_open(relid, AccessShareLock);
				ii->slot = MakeSingleTupleTableSlot(RelationGetDescr(ii->rel), &TTSOpsVirtual);
				for (int k = 0; k < IMPORT_SOURCES; k++)
					ii->attnos[k] = names[k] ? get_attnum(relid, names[k]) : InvalidAttrNumber;
			}
			ii->pred[ii->n] = index_predicate_begin(ix, ii->rel);
		}
		ii->ix[ii->n++] = ix;
	}
	return ii;
}

/* Is a sparse index's predicate true for the item (values of its sources)? */
static bool
import_predicate(ImportIndexes *ii, int i, Datum *vals, bool *nulls)
{
	TupleTableSlot *slot = ii->slot;
	AdjlistRoleSwitch role;
	bool		result;

	ExecClearTuple(slot);
	for (int a = 0; a < slot->tts_tupleDescriptor->natts; a++)
	{
		slot->tts_values[a] = (Datum) 0;
		slot->tts_isnull[a] = true;
	}
	for (int k = 0; k < IMPORT_SOURCES; k++)
		if (ii->attnos[k] != InvalidAttrNumber)
		{
			slot->tts_values[ii->attnos[k] - 1] = vals[k];
			slot->tts_isnull[ii->attnos[k] - 1] = nulls[k];
		}
	ExecStoreVirtualTuple(slot);
	adjlist_become(ii->owner, &role);
	result = index_predicate_check(ii->pred[i], slot);
	adjlist_unbecome(&role);
	return result;
}

/* The item keys[0], keys[1] with its payload data (or NULL) against ii. */
static void
import_indexes_check(ImportIndexes *ii, struct varlena **keys, Jsonb *data)
{
	Datum		vals[IMPORT_SOURCES] = {PointerGetDatum(keys[0]), PointerGetDatum(keys[1]),
	data ? JsonbPGetDatum(data) : (Datum) 0};
	bool		nulls[IMPORT_SOURCES] = {false, false, data == NULL};

	for (int i = 0; i < ii->n; i++)
	{
		const IndexDef *ix = ii->ix[i];
		Datum	   *base = palloc(sizeof(Datum) * INDEX_BASE_LEN(ix));
		bool	   *basenull = palloc(sizeof(bool) * INDEX_BASE_LEN(ix));

		for (int c = 0; c < ix->ncols; c++)
		{
			int			k = ii->src[i][c];

			/* (a projection from another column: not read by the check) */
			base[c] = k >= 0 ? vals[k] : (Datum) 0;
			basenull[c] = k >= 0 ? nulls[k] : true;
		}
		base[ix->ncols] = BoolGetDatum(ii->pred[i] == NULL ||
									   import_predicate(ii, i, vals, nulls));
		basenull[ix->ncols] = false;
		index_row_check_base(ix, base, basenull);
	}
}

static void
import_indexes_end(ImportIndexes *ii)
{
	for (int i = 0; i < ii->n; i++)
		if (ii->pred[i] != NULL)
			index_predicate_end(ii->pred[i]);
	if (ii->rel != NULL)
	{
		ExecDropSingleTupleTableSlot(ii->slot);
		table_close(ii->rel, NoLock);
	}
}

/*
 * The expiry column (set_ttl) an import writes, and the value of the
 * current line's expiry attribute, if it is a number (type N): epoch
 * seconds, as DynamoDB's TTL reads them.  An attribute of another type is
 * an ordinary one (DynamoDB's TTL ignores it: the item does not expire),
 * kept in the data.
 */
typedef struct ImportTtl
{
	const char *name;			/* the column, or NULL: none */
	Oid			type;
	Datum		value;
	bool		isnull;
} ImportTtl;

/*
 * A TTL number the expiry column's time type cannot hold.  The import's
 * error context names the line.
 */
static void
ttl_out_of_range(Numeric n, const ImportTtl *ttl)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATETIME_VALUE_OUT_OF_RANGE),
			 errmsg("the TTL attribute \"%s\" is out of range for type %s",
					ttl->name, format_type_be(ttl->type)),
			 errdetail("The item's TTL, %s epoch seconds, is a number DynamoDB takes (the item never expires), but the expiry column \"%s\" holds instants from 4714 BC to 294276 AD only.",
					   DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(n))),
					   ttl->name),
			 errhint("Make the expiry column a numeric of epoch seconds to keep every TTL DynamoDB takes.")));
}

/*
 * Epoch seconds as a timestamptz, exactly: numeric arithmetic to the
 * microsecond (rounded there, as timestamptz's input rounds), never
 * through float8, whose 53 bits cannot tell 253402300799.999999 from
 * 253402300800.  A number outside what timestamptz holds (4714 BC to 294276
 * AD), which DynamoDB takes as a TTL (the item never expires), is refused:
 * stored any other way it would not export back as the same number.
 */
static TimestampTz
ttl_instant(Numeric n, const ImportTtl *ttl)
{
	Datum		us = DirectFunctionCall2(numeric_round,
										 DirectFunctionCall2(numeric_mul, NumericGetDatum(n),
															 NumericGetDatum(int64_to_numeric(USECS_PER_SEC))),
										 Int32GetDatum(0));
	Datum		ts = DirectFunctionCall2(numeric_sub, us,
										 NumericGetDatum(int64_to_numeric((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) *
																		  USECS_PER_DAY)));

	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp, ts,
										  NumericGetDatum(int64_to_numeric(MIN_TIMESTAMP)))) < 0 ||
		DatumGetInt32(DirectFunctionCall2(numeric_cmp, ts,
										  NumericGetDatum(int64_to_numeric(END_TIMESTAMP)))) >= 0)
		ttl_out_of_range(n, ttl);
	return DatumGetInt64(DirectFunctionCall1(numeric_int8, ts));
}

/*
 * Epoch seconds as a value of the expiry column's type: a time (timestamp
 * in the session's time zone, date: the day), or the number read by the
 * type's input (an integer column refuses a fraction).
 */
static Datum
ttl_value(Numeric n, const ImportTtl *ttl)
{
	Oid			input;
	Oid			ioparam;
	char	   *s;

	if (ttl->type == TIMESTAMPTZOID || ttl->type == TIMESTAMPOID || ttl->type == DATEOID)
	{
		TimestampTz ts = ttl_instant(n, ttl);
		Timestamp	local = 0;
		struct pg_tm tm;
		fsec_t		fsec;
		int			tz;

		if (ttl->type == TIMESTAMPTZOID)
			return TimestampTzGetDatum(ts);
		/* the session's local time of it (timestamptz_timestamp, without its error) */
		if (timestamp2tm(ts, &tz, &tm, &fsec, NULL, NULL) != 0 ||
			tm2timestamp(&tm, fsec, NULL, &local) != 0)
			ttl_out_of_range(n, ttl);
		if (ttl->type == TIMESTAMPOID)
			return TimestampGetDatum(local);
		return DirectFunctionCall1(timestamp_date, TimestampGetDatum(local));
	}
	s = DatumGetCString(DirectFunctionCall1(numeric_out,
											DirectFunctionCall1(numeric_trim_scale, NumericGetDatum(n))));
	getTypeInputInfo(ttl->type, &input, &ioparam);
	return OidInputFunctionCall(input, s, ioparam, -1);
}

/* The expiry attribute's typed value v: true when it goes to the column. */
static bool
import_ttl(ImportTtl *ttl, const JsonbValue *v)
{
	JsonbValue	val;
	JsonbValue	num;

	if (strcmp(typed_member(v, &val), "N") != 0)
		return false;
	number_value(&val, &num);
	ttl->value = ttl_value(num.val.numeric, ttl);
	ttl->isnull = false;
	return true;
}

/*
 * One line: {"Item": {attribute: typed value, ...}}.  Fills the keys (the
 * attributes named keynames[0] and [1], of type S), the expiry (ttl) and
 * the data (every other attribute, as plain JSON; NULL when there is
 * none), for the payload column (NULL: the table has none).
 */
static void
import_line(Oid relid, const char *line, const char **keynames, const char *payload,
			struct varlena **keys, Jsonb **data, ImportTtl *ttl)
{
	Jsonb	   *j = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(line)));
	JsonbValue	name;
	JsonbValue *item;
	JsonbIterator *it;
	JsonbValue	v;
	JsonbIteratorToken tok;
	JsonbParseState *st = NULL;
	JsonbValue	attrkey = {0};
	char	   *attr = NULL;

	name.type = jbvString;
	name.val.string.val = "Item";
	name.val.string.len = 4;
	item = JB_ROOT_IS_OBJECT(j) ? findJsonbValueFromContainer(&j->root, JB_FOBJECT, &name) : NULL;
	if (item == NULL || item->type != jbvBinary || !JsonContainerIsObject(item->val.binary.data))
		bad_item("a line must be an object {\"Item\": {...}}",
				 "Each line of a DynamoDB table export holds one item as {\"Item\": {\"pk\": {\"S\": \"...\"}, ...}}.");
	if (JB_ROOT_COUNT(j) != 1)
		bad_item("a line must be an object {\"Item\": {...}}",
				 psprintf("This one has %d members; \"Item\" must be the only one.", JB_ROOT_COUNT(j)));
	keys[0] = keys[1] = NULL;
	ttl->isnull = true;
	it = JsonbIteratorInit(item->val.binary.data);
	while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
	{
		if (tok == WJB_KEY)
		{
			attrkey = v;
			attr = value_string(&v);
		}
		else if (tok == WJB_VALUE)
		{
			int			k = strcmp(attr, keynames[0]) == 0 ? 0 : strcmp(attr, keynames[1]) == 0 ? 1 : -1;
			JsonbValue	val;

			if (k < 0 && ttl->name != NULL && strcmp(attr, ttl->name) == 0 && import_ttl(ttl, &v))
				continue;
			if (k < 0)
			{
				if (payload == NULL)
					ereport(ERROR,
							(errcode(ERRCODE_UNDEFINED_COLUMN),
							 errmsg("the item has an attribute \"%s\" but the table has no payload column",
									attr),
							 errdetail("Attributes other than the key are kept in a jsonb column, \"data\" unless set_payload_column() names another.")));
				if (st == NULL)
					(void) pushJsonbValue(&st, WJB_BEGIN_OBJECT, NULL);
				(void) pushJsonbValue(&st, WJB_KEY, &attrkey);
				push_plain(&st, WJB_VALUE, &v);
				continue;
			}
			if (strcmp(typed_member(&v, &val), "S") != 0 || val.type != jbvString)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("key attribute \"%s\" must be a string (type S)", attr),
						 errdetail("The keys of an adjlist table are adjkey strings.")));
			keys[k] = import_key(relid, attr, k, val.val.string.val, val.val.string.len);
		}
	}
	for (int k = 0; k < 2; k++)
		if (keys[k] == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the item has no key attribute \"%s\"", keynames[k]),
					 errdetail("Its key attributes are named as the table's key columns.")));
	*data = st == NULL ? NULL : JsonbValueToJsonb(pushJsonbValue(&st, WJB_END_OBJECT, NULL));
}

typedef struct ImportBatch
{
	MemoryContext cxt;
	ArrayBuildState *pks;
	ArrayBuildState *sks;
	ArrayBuildState *datas;
	ArrayBuildState *ttls;		/* of the expiry column's type, or NULL */
	Oid			ttltype;		/* InvalidOid: no expiry column */
	int			n;
	int64		first_line;		/* of its first item */
} ImportBatch;

static void
batch_start(ImportBatch *b)
{
	Oid			keytype = adjlist_catalog()->keytype;

	MemoryContextReset(b->cxt);
	b->pks = initArrayResult(keytype, b->cxt, false);
	b->sks = initArrayResult(keytype, b->cxt, false);
	b->datas = initArrayResult(JSONBOID, b->cxt, false);
	b->ttls = OidIsValid(b->ttltype) ? initArrayResult(b->ttltype, b->cxt, false) : NULL;
	b->n = 0;
}

static void
batch_write(ApiTable *t, ImportBatch *b, ImportPosition *pos)
{
	if (b->n == 0)
		return;
	pos->first = b->first_line;
	pos->last = pos->line;
	(void) adjlist_api_put(t, makeArrayResult(b->pks, b->cxt), makeArrayResult(b->sks, b->cxt),
						   makeArrayResult(b->datas, b->cxt),
						   b->ttls ? makeArrayResult(b->ttls, b->cxt) : (Datum) 0);
	pos->first = 0;
	batch_start(b);
}

/*
 * import_dynamodb(tbl regclass, items text) RETURNS bigint: put each item
 * of the lines (one {"Item": ...} object a line; blank lines are skipped)
 * into the table, as put_edges() does; returns how many items were read.
 * An item given twice: the last wins.
 */
Datum
adjlist_import_dynamodb(PG_FUNCTION_ARGS)
{
	text	   *items;
	ApiTable   *t;
	const char *keynames[2];
	const char *payload;
	const char *p;
	const char *end;
	ImportBatch batch;
	ImportTtl	ttl = {0};
	ImportPosition pos = {0, 0, 0};
	ImportIndexes *checks;
	ErrorContextCallback errcb;
	MemoryContext linecxt;
	int64		n = 0;
	int64		lineno = 0;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table and the items must not be null")));
	t = adjlist_api_table(PG_GETARG_OID(0));
	keynames[0] = adjlist_api_key_name(t, 0);
	keynames[1] = adjlist_api_key_name(t, 1);
	payload = adjlist_api_payload(t);
	ttl.name = adjlist_api_ttl(t, &ttl.type);
	batch.ttltype = ttl.name ? ttl.type : InvalidOid;
	checks = import_indexes_begin(PG_GETARG_OID(0), keynames, payload);
	items = PG_GETARG_TEXT_PP(1);
	p = VARDATA_ANY(items);
	end = p + VARSIZE_ANY_EXHDR(items);

	batch.cxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist import batch",
									  ALLOCSET_DEFAULT_SIZES);
	linecxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist import line",
									ALLOCSET_DEFAULT_SIZES);
	batch_start(&batch);
	errcb.callback = import_error_context;
	errcb.arg = &pos;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;

	while (p < end)
	{
		const char *nl = memchr(p, '\n', end - p);
		const char *stop = nl ? nl : end;
		const char *s = p;
		const char *e = stop;
		struct varlena *keys[2];
		Jsonb	   *data;
		MemoryContext old;

		p = nl ? nl + 1 : end;
		lineno++;
		while (s < e && isspace((unsigned char) *s))
			s++;
		while (e > s && isspace((unsigned char) e[-1]))
			e--;
		if (s == e)
			continue;
		CHECK_FOR_INTERRUPTS();
		pos.line = lineno;
		old = MemoryContextSwitchTo(linecxt);
		import_line(PG_GETARG_OID(0), pnstrdup(s, e - s), keynames, payload, keys, &data, &ttl);
		import_indexes_check(checks, keys, data);
		MemoryContextSwitchTo(old);
		if (batch.n == 0)
			batch.first_line = lineno;
		accumArrayResult(batch.pks, PointerGetDatum(keys[0]), false,
						 adjlist_catalog()->keytype, batch.cxt);
		accumArrayResult(batch.sks, PointerGetDatum(keys[1]), false,
						 adjlist_catalog()->keytype, batch.cxt);
		accumArrayResult(batch.datas, data ? JsonbPGetDatum(data) : (Datum) 0, data == NULL,
						 JSONBOID, batch.cxt);
		if (batch.ttls != NULL)
			accumArrayResult(batch.ttls, ttl.value, ttl.isnull, ttl.type, batch.cxt);
		MemoryContextReset(linecxt);
		batch.n++;
		n++;
		if (batch.n >= IMPORT_BATCH)
			batch_write(t, &batch, &pos);
	}
	batch_write(t, &batch, &pos);

	error_context_stack = errcb.previous;
	import_indexes_end(checks);
	MemoryContextDelete(linecxt);
	MemoryContextDelete(batch.cxt);
	PG_RETURN_INT64(n);
}

/* ----------------------------------------------------------------------
 * Export: plain JSON -> typed DynamoDB JSON
 * ----------------------------------------------------------------------
 */

static void
append_json_string(StringInfo out, const char *s, int len)
{
	escape_json(out, pnstrdup(s, len));
}

/* The typed form of a plain JSON value. */
static void
append_typed(StringInfo out, const JsonbValue *v)
{
	check_stack_depth();
	switch (v->type)
	{
		case jbvNull:
			appendStringInfoString(out, "{\"NULL\":true}");
			break;
		case jbvString:
			appendStringInfoString(out, "{\"S\":");
			append_json_string(out, v->val.string.val, v->val.string.len);
			appendStringInfoChar(out, '}');
			break;
		case jbvNumeric:
			appendStringInfo(out, "{\"N\":\"%s\"}",
							 DatumGetCString(DirectFunctionCall1(numeric_out,
																 NumericGetDatum(v->val.numeric))));
			break;
		case jbvBool:
			appendStringInfo(out, "{\"BOOL\":%s}", v->val.boolean ? "true" : "false");
			break;
		case jbvBinary:
			{
				bool		map = JsonContainerIsObject(v->val.binary.data);
				JsonbIterator *it = JsonbIteratorInit(v->val.binary.data);
				JsonbValue	m;
				JsonbIteratorToken tok;
				bool		first = true;

				appendStringInfoString(out, map ? "{\"M\":{" : "{\"L\":[");
				while ((tok = JsonbIteratorNext(&it, &m, true)) != WJB_DONE)
				{
					if (tok == WJB_KEY)
					{
						if (!first)
							appendStringInfoChar(out, ',');
						append_json_string(out, m.val.string.val, m.val.string.len);
						appendStringInfoChar(out, ':');
						first = false;
					}
					else if (tok == WJB_VALUE)
						append_typed(out, &m);
					else if (tok == WJB_ELEM)
					{
						if (!first)
							appendStringInfoChar(out, ',');
						append_typed(out, &m);
						first = false;
					}
				}
				appendStringInfoString(out, map ? "}}" : "]}");
				break;
			}
		default:
			elog(ERROR, "unexpected jsonb value type %d", (int) v->type);
	}
}

/*
 * One item's line: its keys, its expiry (ttlname: the expiry column, ttl:
 * its epoch seconds, or NULL) as a number, then the members of its data.
 */
static char *
export_line(char **keycols, const char *pk, const char *sk, const char *ttlname,
			const char *ttl, Jsonb *data)
{
	StringInfoData out;

	initStringInfo(&out);
	appendStringInfoString(&out, "{\"Item\":{");
	escape_json(&out, keycols[0]);
	appendStringInfoString(&out, ":{\"S\":");
	escape_json(&out, pk);
	appendStringInfoString(&out, "},");
	escape_json(&out, keycols[1]);
	appendStringInfoString(&out, ":{\"S\":");
	escape_json(&out, sk);
	appendStringInfoChar(&out, '}');
	if (ttl != NULL)
	{
		appendStringInfoChar(&out, ',');
		escape_json(&out, ttlname);
		appendStringInfo(&out, ":{\"N\":\"%s\"}", ttl);
	}
	if (data != NULL && !(JB_ROOT_IS_SCALAR(data) && JB_ROOT_COUNT(data) == 1 &&
						  getIthJsonbValueFromContainer(&data->root, 0)->type == jbvNull))
	{
		JsonbIterator *it;
		JsonbValue	v;
		JsonbIteratorToken tok;

		if (!JB_ROOT_IS_OBJECT(data))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("the data of item (\"%s\", \"%s\") is not a JSON object", pk, sk),
					 errdetail("A DynamoDB item's attributes are the members of its data.")));
		it = JsonbIteratorInit(&data->root);
		while ((tok = JsonbIteratorNext(&it, &v, true)) != WJB_DONE)
		{
			if (tok == WJB_KEY)
			{
				char	   *name = value_string(&v);

				if (strcmp(name, keycols[0]) == 0 || strcmp(name, keycols[1]) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("the data of item (\"%s\", \"%s\") has a member \"%s\", the name of a key attribute",
									pk, sk, name)));
				if (ttl != NULL && strcmp(name, ttlname) == 0)
					ereport(ERROR,
							(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
							 errmsg("the data of item (\"%s\", \"%s\") has a member \"%s\", the name of its expiry column",
									pk, sk, name),
							 errdetail("The item's expiry is written as that attribute.")));
				appendStringInfoChar(&out, ',');
				escape_json(&out, name);
				appendStringInfoChar(&out, ':');
			}
			else if (tok == WJB_VALUE)
				append_typed(&out, &v);
		}
	}
	appendStringInfoString(&out, "}}");
	return out.data;
}

/*
 * export_dynamodb(tbl regclass) RETURNS SETOF text: one line of DynamoDB
 * JSON per item, in key order, read as the caller.
 */
Datum
adjlist_export_dynamodb(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			relid;
	char	   *keycols[2];
	char	   *payload;
	bool		is_index;
	char	   *live;
	char	   *ttlname;
	Oid			ttltype = InvalidOid;
	char	   *ttlsql = "NULL";
	char	   *sql;
	SPIPlanPtr	plan;
	Portal		portal;
	MemoryContext rowcxt;

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table must not be null")));
	relid = PG_GETARG_OID(0);
	adjlist_item_table(relid, keycols, &payload, &is_index, NULL, &live);
	ttlname = adjlist_item_ttl(relid, &ttltype);
	/*
	 * The expiry as epoch seconds, DynamoDB's TTL format, without trailing
	 * zeros, exactly: whole seconds plus the microseconds.  (EXTRACT(epoch)
	 * alone rounds to 16 digits in the last 30 years of timestamptz's range,
	 * whose microseconds from 1970 overflow an int64.)
	 */
	if (ttlname != NULL && (ttltype == TIMESTAMPTZOID || ttltype == TIMESTAMPOID || ttltype == DATEOID))
	{
		char	   *utc = psprintf("(t.%s::pg_catalog.timestamptz AT TIME ZONE 'UTC')",
								   quote_identifier(ttlname));

		ttlsql = psprintf("pg_catalog.trim_scale(EXTRACT(epoch FROM pg_catalog.date_trunc('second', %s)) "
						  "OPERATOR(pg_catalog.+) ((EXTRACT(microseconds FROM %s) "
						  "OPERATOR(pg_catalog.%%) 1000000) OPERATOR(pg_catalog./) 1000000))",
						  utc, utc);
	}
	else if (ttlname != NULL)
		ttlsql = psprintf("pg_catalog.trim_scale(t.%s::pg_catalog.numeric)", quote_identifier(ttlname));
	sql = psprintf("SELECT t.%s, t.%s, %s%s, %s FROM %s t WHERE %s "
				   "ORDER BY t.%s USING OPERATOR(%s.<), t.%s USING OPERATOR(%s.<)",
				   quote_identifier(keycols[0]), quote_identifier(keycols[1]),
				   payload ? "t." : "", payload ? payload : "NULL::pg_catalog.jsonb", ttlsql,
				   adjlist_qualified_name(relid), live,
				   quote_identifier(keycols[0]), cat->nspname, quote_identifier(keycols[1]), cat->nspname);
	rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist export row", ALLOCSET_DEFAULT_SIZES);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(sql, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, EXPORT_FETCH);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			MemoryContext old = MemoryContextSwitchTo(rowcxt);
			bool		isnull;
			Datum		d = SPI_getbinval(tup, desc, 3, &isnull);
			Datum		line;
			bool		linenull = false;

			line = CStringGetTextDatum(export_line(keycols, SPI_getvalue(tup, desc, 1),
												   SPI_getvalue(tup, desc, 2), ttlname,
												   SPI_getvalue(tup, desc, 4),
												   isnull ? NULL : DatumGetJsonbP(d)));
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, &line, &linenull);
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	MemoryContextDelete(rowcxt);
	return (Datum) 0;
}
