/*-------------------------------------------------------------------------
 *
 * write_shard.c
 *	  Write sharding of inverted index partitions (DynamoDB's
 *	  "TARGET#bob#0..N").
 *
 * An inverted index created with write_shards => N stores the row of an
 * edge USER#alice -> FOLLOWS#USER#bob under the partition key
 * 'FOLLOWS#USER#bob#<s>', where s = shard_of(source key) is one of 0..N-1.
 * The followers of one celebrity then fill N partitions instead of one:
 * on a table hash-partitioned by the partition key (postgres_fdw shards)
 * their writes land on different servers, and in a btree they fill N leaf
 * pages instead of one.  Readers (graph_source.c, query()) read the N
 * partitions and merge them back by sort key, so callers see one ordered
 * stream.
 *
 * The shard is a function of the source key alone, so every writer (the
 * trigger, the write API, verify and rebuild) computes the same one and
 * index writes stay idempotent.  The hash is FNV-1a over the key's UTF-8
 * bytes: the same on every platform, so a dump restored on another
 * machine keeps its shards.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "catalog/pg_type.h"
#include "utils/array.h"

#include "adjlist.h"
#include "write_shard.h"

PG_FUNCTION_INFO_V1(adjlist_write_shard);
PG_FUNCTION_INFO_V1(adjlist_write_shard_key);
PG_FUNCTION_INFO_V1(adjlist_write_shard_keys);

/* The shard of a source key among nshards (nshards >= 1). */
int
write_shard_of(const char *src, int len, int nshards)
{
	uint32		h = 2166136261u;	/* FNV-1a, 32 bits */

	for (int i = 0; i < len; i++)
	{
		h ^= (unsigned char) src[i];
		h *= 16777619u;
	}
	return (int) (h % (uint32) nshards);
}

/*
 * The partition key "part#shard".  The suffix can make a key longer than
 * any stored key may be; that is an error, not a silent truncation.
 */
struct varlena *
write_shard_key(const char *part, int len, int shard)
{
	char		suffix[16];
	int			slen = snprintf(suffix, sizeof(suffix), "%c%d", ADJKEY_SEP, shard);
	struct varlena *key;

	if (len + slen > ADJKEY_MAX_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("write-sharded index key would be %d bytes long, more than the maximum of %d",
						len + slen, ADJKEY_MAX_BYTES),
				 errdetail("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of %d bytes. A write-sharded inverted index appends \"%s\" to the partition key.",
						   ADJKEY_MAX_BYTES, suffix)));
	key = (struct varlena *) palloc(VARHDRSZ + len + slen);
	SET_VARSIZE(key, VARHDRSZ + len + slen);
	memcpy(VARDATA(key), part, len);
	memcpy(VARDATA(key) + len, suffix, slen);
	return key;
}

/*
 * The length in bytes of the sharded partition key of an index row
 * (partition and source keys), made or not: over ADJKEY_MAX_BYTES it
 * cannot be made.
 */
int
write_shard_row_key_len(Datum partition, Datum source, int nshards)
{
	struct varlena *p = DatumGetAdjkeyPP(partition);
	struct varlena *s = DatumGetAdjkeyPP(source);
	char		suffix[16];

	return ADJKEY_LEN(p) + snprintf(suffix, sizeof(suffix), "%c%d", ADJKEY_SEP,
									write_shard_of(ADJKEY_DATA(s), ADJKEY_LEN(s), nshards));
}

/* Does it fit (ADJKEY_MAX_BYTES)?  Without hashing when it surely does. */
bool
write_shard_row_key_fits(Datum partition, Datum source, int nshards)
{
	/* the longest suffix: "#255" (WRITE_SHARDS_MAX - 1) */
	if (ADJKEY_LEN(DatumGetAdjkeyPP(partition)) + 4 <= ADJKEY_MAX_BYTES)
		return true;
	return write_shard_row_key_len(partition, source, nshards) <= ADJKEY_MAX_BYTES;
}

/* The sharded partition key of an index row: partition and source keys. */
Datum
write_shard_row_key(Datum partition, Datum source, int nshards)
{
	struct varlena *p = DatumGetAdjkeyPP(partition);
	struct varlena *s = DatumGetAdjkeyPP(source);

	return PointerGetDatum(write_shard_key(ADJKEY_DATA(p), ADJKEY_LEN(p),
										   write_shard_of(ADJKEY_DATA(s), ADJKEY_LEN(s),
														  nshards)));
}

static void
check_shards(int32 n, bool zero_ok)
{
	if (n < (zero_ok ? 0 : 1) || n > WRITE_SHARDS_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of write shards must be between %d and %d, not %d",
						zero_ok ? 0 : 1, WRITE_SHARDS_MAX, n)));
}

/* write_shard(source adjkey, shards integer) -> integer */
Datum
adjlist_write_shard(PG_FUNCTION_ARGS)
{
	struct varlena *src = PG_GETARG_ADJKEY_PP(0);
	int32		n = PG_GETARG_INT32(1);

	check_shards(n, false);
	PG_RETURN_INT32(write_shard_of(ADJKEY_DATA(src), ADJKEY_LEN(src), n));
}

/*
 * write_shard_key(partition adjkey, source adjkey, shards integer) -> adjkey:
 * the partition key an index row is stored under; the key itself when
 * shards is 0 (an index without write sharding).
 */
Datum
adjlist_write_shard_key(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(2);

	check_shards(n, true);
	if (n == 0)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	PG_RETURN_DATUM(write_shard_row_key(PG_GETARG_DATUM(0), PG_GETARG_DATUM(1), n));
}

/*
 * write_shard_keys(partition adjkey, shards integer) -> adjkey[]: every
 * partition key a logical partition is spread over, in shard order.
 */
Datum
adjlist_write_shard_keys(PG_FUNCTION_ARGS)
{
	struct varlena *part = PG_GETARG_ADJKEY_PP(0);
	int32		n = PG_GETARG_INT32(1);
	Oid			keytype = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Datum	   *keys;
	int			nkeys = Max(n, 1);

	check_shards(n, true);
	if (!OidIsValid(keytype))
		elog(ERROR, "could not determine the key type");
	keys = palloc(sizeof(Datum) * nkeys);
	if (n == 0)
		keys[0] = PointerGetDatum(part);
	else
		for (int i = 0; i < n; i++)
			keys[i] = PointerGetDatum(write_shard_key(ADJKEY_DATA(part), ADJKEY_LEN(part), i));
	PG_RETURN_ARRAYTYPE_P(construct_array(keys, nkeys, keytype, -1, false, TYPALIGN_INT));
}
