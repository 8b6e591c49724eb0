/*-------------------------------------------------------------------------
 *
 * adjkey_cmp.c
 *	  Comparison, btree sort support and hashing of adjkey.
 *
 * There is one ordering: memcmp over the UTF-8 bytes, shorter first on a tie
 * (adjkey_cmp_bytes in adjlist.h).  Every operator, the btree support
 * functions and the hash functions are thin wrappers around it, and none of
 * them consults a collation, so an index on an adjkey column is the same in
 * every database.
 *
 * Sort support gives tuplesort (ORDER BY, merge joins, CREATE INDEX) a
 * comparator without fmgr overhead and abbreviated keys: the first eight
 * bytes of the key, big-endian, compared as an unsigned integer.  Keys such
 * as 'FOLLOWS#USER#...' share long prefixes and make abbreviation useless, so
 * a HyperLogLog estimate of distinct abbreviations against distinct keys
 * lets tuplesort abandon it early, as core does for text.
 *
 * Comparison functions free detoasted copies: btree calls them in long loops
 * in a memory context that is not reset per call.
 *
 * Keys and text.  The cross-type functions at the end compare a key (or
 * bytea: any varlena of raw bytes) with text, and text with text, by the
 * same memcmp over the text's UTF-8 form, never by a collation; they back
 * the adjkey/text operators of adjkey's btree and hash families (see
 * src/sql/text_ops.sql).  Text that could not be a key (empty, too long)
 * simply compares by its bytes: a comparison never raises an error.  In
 * UTF8 and SQL_ASCII databases the text's bytes are used as they are (in
 * SQL_ASCII, where text need not be UTF-8, checking would make comparisons
 * fail); in other encodings they are converted to UTF-8 first, and the
 * text hash functions hash the same bytes, so that equal values hash alike.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "lib/hyperloglog.h"
#include "mb/pg_wchar.h"
#include "port/pg_bswap.h"
#include "utils/sortsupport.h"

#include "adjlist.h"

PG_FUNCTION_INFO_V1(adjkey_eq);
PG_FUNCTION_INFO_V1(adjkey_ne);
PG_FUNCTION_INFO_V1(adjkey_lt);
PG_FUNCTION_INFO_V1(adjkey_le);
PG_FUNCTION_INFO_V1(adjkey_gt);
PG_FUNCTION_INFO_V1(adjkey_ge);
PG_FUNCTION_INFO_V1(adjkey_cmp);
PG_FUNCTION_INFO_V1(adjkey_larger);
PG_FUNCTION_INFO_V1(adjkey_smaller);
PG_FUNCTION_INFO_V1(adjkey_sortsupport);
PG_FUNCTION_INFO_V1(adjkey_hash);
PG_FUNCTION_INFO_V1(adjkey_hash_extended);

/*
 * The bytes of a key held inline and uncompressed, under a 1-byte or a
 * plain 4-byte header: every key of an index tuple, of a heap tuple of
 * the keys' lengths, of a scan key or a parameter.  False for one that
 * must be detoasted first.
 */
static inline bool
adjkey_inline_bytes(Datum d, const char **data, int *len)
{
	struct varlena *p = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_1B(p))
	{
		if (VARATT_IS_1B_E(p))
			return false;
		*data = VARDATA_1B(p);
		*len = VARSIZE_1B(p) - VARHDRSZ_SHORT;
		return true;
	}
	if (!VARATT_IS_4B_U(p))
		return false;
	*data = VARDATA_4B(p);
	*len = VARSIZE_4B(p) - VARHDRSZ;
	return true;
}

/* adjkey_cmp_datums() of keys that must be detoasted: the copies freed */
static pg_noinline int
adjkey_cmp_detoasted(Datum a, Datum b)
{
	struct varlena *ka = DatumGetAdjkeyPP(a);
	struct varlena *kb = DatumGetAdjkeyPP(b);
	int			r;

	r = adjkey_cmp_bytes(ADJKEY_DATA(ka), ADJKEY_LEN(ka),
						 ADJKEY_DATA(kb), ADJKEY_LEN(kb));
	if ((Pointer) ka != DatumGetPointer(a))
		pfree(ka);
	if ((Pointer) kb != DatumGetPointer(b))
		pfree(kb);
	return r;
}

/*
 * Compare two key datums, freeing any detoasted copies.  Inline in the
 * operators and the btree comparison function below, which a btree
 * descent calls a few dozen times per call of a one-hop function: keys
 * held inline (the common case) are compared where they are, without the
 * call and the header tests of the detoasting path.  (Always inline: the
 * compiler kept a call here, a tenth of a comparison.)
 */
static pg_attribute_always_inline int
cmp_datums(Datum a, Datum b)
{
	const char *da;
	const char *db;
	int			la;
	int			lb;

	if (likely(adjkey_inline_bytes(a, &da, &la) && adjkey_inline_bytes(b, &db, &lb)))
		return adjkey_cmp_bytes(da, la, db, lb);
	return adjkey_cmp_detoasted(a, b);
}

int
adjkey_cmp_datums(Datum a, Datum b)
{
	return cmp_datums(a, b);
}

#define ADJKEY_CMP_ARGS cmp_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1))

Datum
adjkey_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ADJKEY_CMP_ARGS == 0);
}

Datum
adjkey_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ADJKEY_CMP_ARGS != 0);
}

Datum
adjkey_lt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ADJKEY_CMP_ARGS < 0);
}

Datum
adjkey_le(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ADJKEY_CMP_ARGS <= 0);
}

Datum
adjkey_gt(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ADJKEY_CMP_ARGS > 0);
}

Datum
adjkey_ge(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(ADJKEY_CMP_ARGS >= 0);
}

Datum
adjkey_cmp(PG_FUNCTION_ARGS)
{
	int			r = ADJKEY_CMP_ARGS;

	PG_RETURN_INT32((r > 0) - (r < 0));
}

Datum
adjkey_larger(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(ADJKEY_CMP_ARGS >= 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1));
}

Datum
adjkey_smaller(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(ADJKEY_CMP_ARGS <= 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1));
}

/* ----------------------------------------------------------------------
 * Sort support
 * ----------------------------------------------------------------------
 */

typedef struct AdjkeySortState
{
	hyperLogLogState abbr_card; /* distinct abbreviated keys */
	hyperLogLogState full_card; /* distinct full keys */
	bool		estimating;		/* still deciding whether to abort? */
} AdjkeySortState;

static int
adjkey_fastcmp(Datum x, Datum y, SortSupport ssup)
{
	return cmp_datums(x, y);
}

static Datum
adjkey_abbrev_convert(Datum original, SortSupport ssup)
{
	AdjkeySortState *state = (AdjkeySortState *) ssup->ssup_extra;
	struct varlena *key = DatumGetAdjkeyPP(original);
	const char *data = ADJKEY_DATA(key);
	int			len = ADJKEY_LEN(key);
	Datum		res = (Datum) 0;

	/*
	 * Keys contain no zero byte, so zero padding of a short key sorts it
	 * before every longer key with the same leading bytes, as memcmp does.
	 */
	memcpy(&res, data, Min(len, (int) sizeof(Datum)));
	res = DatumBigEndianToNative(res);

	if (state->estimating)
	{
		uint32		abbr_hash;

#if SIZEOF_DATUM == 8
		abbr_hash = hash_uint32((uint32) (res ^ (res >> 32)));
#else
		abbr_hash = hash_uint32((uint32) res);
#endif
		addHyperLogLog(&state->abbr_card, abbr_hash);
		/* like core's text: the first cache line is enough for the estimate */
		addHyperLogLog(&state->full_card,
					   hash_bytes((const unsigned char *) data, Min(len, PG_CACHE_LINE_SIZE)));
	}

	if ((Pointer) key != DatumGetPointer(original))
		pfree(key);
	return res;
}

/*
 * Abandon abbreviation when the abbreviated keys are far less distinct than
 * the keys themselves (long common prefixes): the conversion then costs
 * more than the comparisons it saves.
 */
static bool
adjkey_abbrev_abort(int memtupcount, SortSupport ssup)
{
	AdjkeySortState *state = (AdjkeySortState *) ssup->ssup_extra;
	double		abbr_distinct;
	double		key_distinct;

	if (!state->estimating || memtupcount < 100)
		return false;

	abbr_distinct = Max(estimateHyperLogLog(&state->abbr_card), 1.0);
	key_distinct = Max(estimateHyperLogLog(&state->full_card), 1.0);

	if (abbr_distinct < key_distinct * 0.05)
		return true;

	/*
	 * After enough input the ratio is known; stop paying for the estimate.
	 */
	if (memtupcount >= 100000)
		state->estimating = false;
	return false;
}

Datum
adjkey_sortsupport(PG_FUNCTION_ARGS)
{
	SortSupport ssup = (SortSupport) PG_GETARG_POINTER(0);

	ssup->comparator = adjkey_fastcmp;

	if (ssup->abbreviate)
	{
		MemoryContext oldcxt = MemoryContextSwitchTo(ssup->ssup_cxt);
		AdjkeySortState *state = palloc0(sizeof(AdjkeySortState));

		initHyperLogLog(&state->abbr_card, 10);
		initHyperLogLog(&state->full_card, 10);
		state->estimating = true;
		MemoryContextSwitchTo(oldcxt);

		ssup->ssup_extra = state;
		ssup->comparator = ssup_datum_unsigned_cmp;
		ssup->abbrev_converter = adjkey_abbrev_convert;
		ssup->abbrev_abort = adjkey_abbrev_abort;
		ssup->abbrev_full_comparator = adjkey_fastcmp;
	}
	PG_RETURN_VOID();
}

/* ----------------------------------------------------------------------
 * Hashing (hash indexes, hash joins, PARTITION BY HASH)
 * ----------------------------------------------------------------------
 */

Datum
adjkey_hash(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	Datum		result;

	result = hash_any((const unsigned char *) ADJKEY_DATA(key), ADJKEY_LEN(key));
	PG_FREE_IF_COPY(key, 0);
	PG_RETURN_DATUM(result);
}

Datum
adjkey_hash_extended(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	Datum		result;

	result = hash_any_extended((const unsigned char *) ADJKEY_DATA(key),
							   ADJKEY_LEN(key), PG_GETARG_INT64(1));
	PG_FREE_IF_COPY(key, 0);
	PG_RETURN_DATUM(result);
}

/* ----------------------------------------------------------------------
 * Keys and text
 * ----------------------------------------------------------------------
 */

/*
 * The UTF-8 bytes by which a text value compares with keys (see the file
 * header).  The result points into t when no conversion is needed, else to
 * a palloc'd copy.
 */
const char *
adjkey_text_bytes(text *t, int *len)
{
	const char *s = VARDATA_ANY(t);
	int			slen = VARSIZE_ANY_EXHDR(t);
	int			enc = GetDatabaseEncoding();
	const char *utf8;

	if (enc == PG_UTF8 || enc == PG_SQL_ASCII)
	{
		*len = slen;
		return s;
	}
	utf8 = pg_server_to_any(s, slen, PG_UTF8);
	*len = (utf8 == s) ? slen : (int) strlen(utf8);
	return utf8;
}

/* One argument of a cross-type comparison: raw bytes or text. */
typedef struct CmpArg
{
	struct varlena *value;		/* detoasted argument */
	const char *bytes;			/* its bytes as compared */
	int			len;
} CmpArg;

static void
cmp_arg_get(CmpArg *arg, Datum d, bool is_text)
{
	arg->value = DatumGetAdjkeyPP(d);
	if (is_text)
		arg->bytes = adjkey_text_bytes((text *) arg->value, &arg->len);
	else
	{
		arg->bytes = ADJKEY_DATA(arg->value);
		arg->len = ADJKEY_LEN(arg->value);
	}
}

static void
cmp_arg_free(CmpArg *arg, Datum d)
{
	if (arg->bytes != ADJKEY_DATA(arg->value))
		pfree((void *) arg->bytes);
	if ((Pointer) arg->value != DatumGetPointer(d))
		pfree(arg->value);
}

/* Compare the two arguments of fcinfo, each raw bytes or text. */
static int
cmp_mixed_args(FunctionCallInfo fcinfo, bool ltext, bool rtext)
{
	CmpArg		a;
	CmpArg		b;
	int			r;

	cmp_arg_get(&a, PG_GETARG_DATUM(0), ltext);
	cmp_arg_get(&b, PG_GETARG_DATUM(1), rtext);
	r = adjkey_cmp_bytes(a.bytes, a.len, b.bytes, b.len);
	cmp_arg_free(&a, PG_GETARG_DATUM(0));
	cmp_arg_free(&b, PG_GETARG_DATUM(1));
	return r;
}

/*
 * The seven functions of one pair of argument kinds: raw bytes (adjkey or
 * bytea) with text, text with raw bytes, text with text.
 */
#define ADJKEY_MIXED_CMP_FUNCS(name, ltext, rtext) \
PG_FUNCTION_INFO_V1(adjkey_##name##_eq); \
Datum adjkey_##name##_eq(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmp_mixed_args(fcinfo, ltext, rtext) == 0); } \
PG_FUNCTION_INFO_V1(adjkey_##name##_ne); \
Datum adjkey_##name##_ne(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmp_mixed_args(fcinfo, ltext, rtext) != 0); } \
PG_FUNCTION_INFO_V1(adjkey_##name##_lt); \
Datum adjkey_##name##_lt(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmp_mixed_args(fcinfo, ltext, rtext) < 0); } \
PG_FUNCTION_INFO_V1(adjkey_##name##_le); \
Datum adjkey_##name##_le(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmp_mixed_args(fcinfo, ltext, rtext) <= 0); } \
PG_FUNCTION_INFO_V1(adjkey_##name##_gt); \
Datum adjkey_##name##_gt(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmp_mixed_args(fcinfo, ltext, rtext) > 0); } \
PG_FUNCTION_INFO_V1(adjkey_##name##_ge); \
Datum adjkey_##name##_ge(PG_FUNCTION_ARGS) \
{ PG_RETURN_BOOL(cmp_mixed_args(fcinfo, ltext, rtext) >= 0); } \
PG_FUNCTION_INFO_V1(adjkey_##name##_cmp); \
Datum adjkey_##name##_cmp(PG_FUNCTION_ARGS) \
{ \
	int			r = cmp_mixed_args(fcinfo, ltext, rtext); \
	PG_RETURN_INT32((r > 0) - (r < 0)); \
}

ADJKEY_MIXED_CMP_FUNCS(raw_text, false, true)
ADJKEY_MIXED_CMP_FUNCS(text_raw, true, false)
ADJKEY_MIXED_CMP_FUNCS(text_text, true, true)

/* Hashes of text compatible with adjkey_hash: the same UTF-8 bytes. */
PG_FUNCTION_INFO_V1(adjkey_text_hash);
PG_FUNCTION_INFO_V1(adjkey_text_hash_extended);

Datum
adjkey_text_hash(PG_FUNCTION_ARGS)
{
	CmpArg		t;
	Datum		result;

	cmp_arg_get(&t, PG_GETARG_DATUM(0), true);
	result = hash_any((const unsigned char *) t.bytes, t.len);
	cmp_arg_free(&t, PG_GETARG_DATUM(0));
	PG_RETURN_DATUM(result);
}

Datum
adjkey_text_hash_extended(PG_FUNCTION_ARGS)
{
	CmpArg		t;
	Datum		result;

	cmp_arg_get(&t, PG_GETARG_DATUM(0), true);
	result = hash_any_extended((const unsigned char *) t.bytes, t.len,
							   PG_GETARG_INT64(1));
	cmp_arg_free(&t, PG_GETARG_DATUM(0));
	PG_RETURN_DATUM(result);
}
