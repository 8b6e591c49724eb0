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
 * range in a direct scan) may be empty or longer than the limit; they are
 * never handed to SQL.  Bounds that SQL sees are bytea (adjkey_funcs.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_H
#define ADJLIST_H

#include "postgres.h"
#include "fmgr.h"
#include "nodes/nodes.h"
#include "port/pg_bswap.h"

#include "compat.h"

/* DynamoDB's limit for a partition key; also ours for any key. */
#define ADJKEY_MAX_BYTES		2048
/* DynamoDB's limit for a sort key (tables and indexes adjlist manages). */
#define ADJKEY_MAX_SORT_BYTES	1024

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
 * Are len bytes at a and at b the same?  Inline, eight bytes at a time, as
 * adjkey_cmp_bytes() compares: the scans and the node sets test a key per
 * index tuple or edge.
 */
static inline bool
adjkey_bytes_equal(const char *a, const char *b, int len)
{
	for (; len >= 8; a += 8, b += 8, len -= 8)
	{
		uint64		x;
		uint64		y;

		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		if (x != y)
			return false;
	}
	for (; len > 0; a++, b++, len--)
		if (*a != *b)
			return false;
	return true;
}

/*
 * Byte-wise comparison of two UTF-8 strings: the one ordering of adjkey.
 * Only the sign of the result means anything.  Keys are short (node keys
 * of a few dozen bytes) and compared on every index tuple a scan reads,
 * so they are compared inline, eight bytes at a time, instead of through
 * a call of memcmp().
 */
static inline int
adjkey_cmp_bytes(const char *a, int alen, const char *b, int blen)
{
	int			n = Min(alen, blen);
	int			i = 0;

	for (; i + 8 <= n; i += 8)
	{
		uint64		x;
		uint64		y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
		{
#ifndef WORDS_BIGENDIAN
			x = pg_bswap64(x);
			y = pg_bswap64(y);
#endif
			return x < y ? -1 : 1;
		}
	}
	for (; i < n; i++)
	{
		if (a[i] != b[i])
			return (unsigned char) a[i] < (unsigned char) b[i] ? -1 : 1;
	}
	return (alen > blen) - (alen < blen);
}

/*
 * Does an edge prefix end in a separator?  ASCII punctuation only: a
 * prefix ending in a multi-byte character does not, whatever the locale.
 */
static inline bool
adjkey_ends_in_separator(const char *p, int len)
{
	unsigned char c = len > 0 ? (unsigned char) p[len - 1] : 0;

	return len > 0 && c < 0x80 &&
		((c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
		 (c >= '[' && c <= '`') || (c >= '{' && c <= '~'));
}

/* adjkey_io.c */
extern bool adjkey_check_bytes(const char *utf8, int len, Node *escontext);
extern struct varlena *adjkey_from_utf8(const char *utf8, int len);
extern struct varlena *adjkey_from_server(const char *s, int len,
										  Node *escontext);
extern char *adjkey_to_server(struct varlena *key, int *outlen);
extern const char *adjkey_text_to_utf8(text *t, int *outlen);
extern bool adjkey_utf8_representable(const char *utf8, int len);

/* adjkey_cmp.c */
extern int	adjkey_cmp_datums(Datum a, Datum b);
extern const char *adjkey_text_bytes(text *t, int *len);

/* adjkey_funcs.c */
extern int	adjkey_prefix_successor(const char *p, int len, char *out);
extern struct varlena *adjkey_upper_sentinel(void);
extern int	adjkey_next_separator(const char *s, int len, int from);
extern int	adjkey_first_part_len(const char *s, int len);
extern const char *adjkey_edge_prefix(text *prefix, int *len);

/* What follows the literal prefix of a LIKE pattern */
typedef enum AdjkeyLikeKind
{
	ADJKEY_LIKE_EXACT,			/* nothing: the pattern is one key */
	ADJKEY_LIKE_PREFIX,			/* only '%': the keys beginning with it */
	ADJKEY_LIKE_OTHER,			/* anything else */
	ADJKEY_LIKE_BAD				/* ends in an unescaped escape character */
} AdjkeyLikeKind;

extern AdjkeyLikeKind adjkey_like_prefix(const char *p, int plen,
										 char *prefix, int *prefixlen);

#endif							/* ADJLIST_H */
