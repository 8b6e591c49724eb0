/*-------------------------------------------------------------------------
 *
 * adjlist.h
 *	  Shared declarations of the adjlist extension.
 *
 * The adjkey type
 * ---------------
 * An adjkey is a composite key such as 'USER#alice' or 'FOLLOWS#USER#bob'.
 * On disk it is a plain varlena whose payload is the key's UTF-8 bytes,
 * whatever the database encoding: keys are converted to UTF-8 on input and
 * back to the server encoding on output, so that ordering is always the
 * byte order of the UTF-8 form (memcmp), exactly as DynamoDB orders string
 * keys, and never depends on a collation.
 *
 * A stored key is never empty, is valid UTF-8 (so it contains no zero byte)
 * and is at most ADJKEY_MAX_BYTES long.  That leaves room for a future
 * on-disk format without a version field costing a byte per key today: a
 * payload whose first byte is 0x00 can never be a current-format key, so a
 * later format can be introduced as "0x00, version byte, ...".  The binary
 * send/recv format, which clients see, carries an explicit version byte.
 *
 * Values built internally for index scans (the bounds of a begins_with
 * range) may be empty or longer than the limit; they are never stored.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_H
#define ADJLIST_H

#include "postgres.h"
#include "fmgr.h"
#include "access/attnum.h"
#include "nodes/nodes.h"

#include "compat.h"

/* DynamoDB's limit for a partition key; also ours for any key. */
#define ADJKEY_MAX_BYTES		2048

/* Version byte of the binary (send/recv) format. */
#define ADJKEY_BINARY_VERSION	1

/* The separator of key components. */
#define ADJKEY_SEP				'#'
/* The escape character used by make_key() for separators inside a part. */
#define ADJKEY_ESC				'\\'

/*
 * Access to a key, which may have a short header.  Keys are almost never
 * compressed or toasted (they are at most 2 kB), so the check is inline and
 * the detoasting call is made only when needed: comparisons run this twice
 * per call, millions of times in a sort.
 */
static inline struct varlena *
DatumGetAdjkeyPP(Datum d)
{
	struct varlena *p = (struct varlena *) DatumGetPointer(d);

	if (VARATT_IS_COMPRESSED(p) || VARATT_IS_EXTERNAL(p))
		return pg_detoast_datum_packed(p);
	return p;
}
#define PG_GETARG_ADJKEY_PP(n)	DatumGetAdjkeyPP(PG_GETARG_DATUM(n))
#define ADJKEY_DATA(k)			VARDATA_ANY(k)
#define ADJKEY_LEN(k)			((int) VARSIZE_ANY_EXHDR(k))

/*
 * Byte-wise comparison of two UTF-8 strings: the one ordering of adjkey.
 */
static inline int
adjkey_cmp_bytes(const char *a, int alen, const char *b, int blen)
{
	int			r = memcmp(a, b, Min(alen, blen));

	if (r != 0)
		return r;
	return (alen > blen) - (alen < blen);
}

/* adjkey_io.c */
extern bool adjkey_check_bytes(const char *utf8, int len, Node *escontext);
extern struct varlena *adjkey_from_utf8(const char *utf8, int len);
extern struct varlena *adjkey_from_server(const char *s, int len,
										  Node *escontext);
extern char *adjkey_to_server(struct varlena *key, int *outlen);
extern const char *adjkey_text_to_utf8(text *t, int *outlen);

/* adjkey_cmp.c */
extern int	adjkey_cmp_datums(Datum a, Datum b);

/* adjkey_funcs.c */
extern int	adjkey_prefix_successor(const char *p, int len, char *out);
extern struct varlena *adjkey_upper_sentinel(void);
extern int	adjkey_first_part_len(const char *s, int len);

/* index_direct.c: writing an index table without SQL */
typedef struct DirectInfo
{
	bool		ok;				/* may the table be written directly? */
	int			ncols;
	int			nkeys;
	AttrNumber *relattnos;		/* registry column i -> attribute number */
	Oid			keyindex;		/* unique index on exactly the key */
	AttrNumber *keypos;			/* key column i -> its position in keyindex */
	RegProcedure *eqprocs;		/* equality of key column i */
	int			nindexes;		/* the indexes to maintain */
	Oid		   *indexoids;
	struct IndexInfo **indexinfos;
} DirectInfo;

#define DIRECT_BATCH 1000			/* rows buffered per heap_multi_insert */

typedef struct DirectWriter
{
	const DirectInfo *d;
	struct RelationData *rel;
	int			natts;
	int			nindexes;
	struct RelationData **indexes;
	struct IndexInfo **infos;
	uint32		cid;
	struct TupleTableSlot **slots;	/* the batch */
	int			nbuffered;
	MemoryContext batchcxt;		/* the batch's copied values */
	struct BulkInsertStateData *bistate;
} DirectWriter;

extern Oid	index_key_index(Oid relid, char **colnames, int nkeys, AttrNumber **keypos);
extern bool direct_write_prepare(Oid relid, char **colnames, int ncols, int nkeys,
								 DirectInfo *d);
extern DirectWriter *direct_begin(const DirectInfo *d, Oid relid);
extern void direct_insert(DirectWriter *w, Datum *values, const char *nulls);
extern void direct_end(DirectWriter *w);
extern void direct_insert_row(const DirectInfo *d, Oid relid, Datum *values,
							  const char *nulls);
extern bool direct_delete(const DirectInfo *d, Oid relid, Datum *keyvalues);

/* write_shard.c: write sharding of index partitions */
#define WRITE_SHARDS_MAX		256

extern int	write_shard_of(const char *src, int len, int nshards);
extern struct varlena *write_shard_key(const char *part, int len, int shard);
extern Datum write_shard_row_key(Datum partition, Datum source, int nshards);

/* index_sync.c */
extern void adjlist_sync_init(void);
extern int	registry_query(const char *sql, int nargs, Oid *argtypes, Datum *args);
extern bool registry_has_write_shards(Oid extnsp);

#endif							/* ADJLIST_H */
