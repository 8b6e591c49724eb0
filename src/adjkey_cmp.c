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
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "lib/hyperloglog.h"
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

/* Compare two key datums, freeing any detoasted copies. */
int
adjkey_cmp_datums(Datum a, Datum b)
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

#define ADJKEY_CMP_ARGS adjkey_cmp_datums(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1))

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
	return adjkey_cmp_datums(x, y);
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
