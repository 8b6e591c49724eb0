/*-------------------------------------------------------------------------
 *
 * adjkey_funcs.c
 *	  begins_with, the bounds of a begins_with range, LIKE on keys, and the
 *	  component helpers (make_key, key_parts, key_part, key_prefix, key_tail,
 *	  key_nparts).
 *
 * Components.  A key's components are separated by '#'.  make_key() escapes
 * a '#' inside a part as '\#' and a backslash as '\\', so a user id that
 * contains '#' cannot change the structure of a key built from it; the
 * readers (key_parts, key_part, key_nparts, key_prefix) treat '\#' and '\\'
 * as escapes and any other backslash as an ordinary character.  Both '#'
 * and '\' are ASCII, and no byte of a multi-byte UTF-8 character is ASCII,
 * so scanning bytes is safe.
 *
 * Prefix ranges.  Under byte-wise UTF-8 ordering the keys that begin with a
 * prefix P are exactly the keys K with P <= K < succ(P), where succ(P) is P
 * with its last character replaced by the next code point (trailing
 * U+10FFFF characters, which have no successor, are dropped first).  succ(P)
 * is valid UTF-8, so a plan that shows it prints a readable key (where the
 * database encoding has its last character; adjkey_support.c says what a
 * plan shows otherwise).  When P has no successor at all (it is empty, or
 * only U+10FFFF characters), the range has no upper bound; for run-time
 * bounds we then use a sentinel that sorts after every storable key: the
 * byte 0xFF, which no UTF-8 string contains.
 * The bounds are bytea, compared with keys byte-wise by the cross-type
 * operators of adjkey's btree family, so a sentinel need not be a key.
 *
 * LIKE.  "key LIKE pattern" matches the key's UTF-8 bytes against the
 * pattern's (converted as adjkey_text_bytes() does for comparisons), with
 * no collation: '%' matches any run of characters, '_' one character, and
 * a backslash makes the next character literal (LIKE ... ESCAPE is
 * rewritten to this by the parser).  A pattern ending in an unescaped
 * backslash is an error, raised before matching, so it does not depend on
 * the key.  Every special character is ASCII and no byte of a multi-byte
 * UTF-8 character is, so the pattern is scanned byte by byte; only '_' and
 * the backtracking of '%' step over whole characters of the key.  The
 * literal prefix of a pattern (the characters before its first wildcard)
 * bounds an index range exactly like a begins_with prefix.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "adjlist.h"

PG_FUNCTION_INFO_V1(adjkey_begins_with);
PG_FUNCTION_INFO_V1(adjkey_begins_with_key);
PG_FUNCTION_INFO_V1(adjkey_prefix_lower);
PG_FUNCTION_INFO_V1(adjkey_prefix_upper);
PG_FUNCTION_INFO_V1(adjkey_prefix_upper_key);
PG_FUNCTION_INFO_V1(adjkey_like);
PG_FUNCTION_INFO_V1(adjkey_notlike);
PG_FUNCTION_INFO_V1(adjkey_like_lower);
PG_FUNCTION_INFO_V1(adjkey_like_upper);
PG_FUNCTION_INFO_V1(adjkey_make_key);
PG_FUNCTION_INFO_V1(adjkey_key_parts);
PG_FUNCTION_INFO_V1(adjkey_key_part);
PG_FUNCTION_INFO_V1(adjkey_key_prefix);
PG_FUNCTION_INFO_V1(adjkey_key_tail);
PG_FUNCTION_INFO_V1(adjkey_key_nparts);

/* ----------------------------------------------------------------------
 * begins_with
 * ----------------------------------------------------------------------
 */

static inline bool
bytes_begin_with(const char *k, int klen, const char *p, int plen)
{
	return plen <= klen && memcmp(k, p, plen) == 0;
}

Datum
adjkey_begins_with(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	text	   *prefix = PG_GETARG_TEXT_PP(1);
	const char *p;
	int			plen;

	p = adjkey_text_to_utf8(prefix, &plen);
	PG_RETURN_BOOL(bytes_begin_with(ADJKEY_DATA(key), ADJKEY_LEN(key), p, plen));
}

Datum
adjkey_begins_with_key(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	struct varlena *prefix = PG_GETARG_ADJKEY_PP(1);

	PG_RETURN_BOOL(bytes_begin_with(ADJKEY_DATA(key), ADJKEY_LEN(key),
									ADJKEY_DATA(prefix), ADJKEY_LEN(prefix)));
}

/* ----------------------------------------------------------------------
 * Range bounds of begins_with
 * ----------------------------------------------------------------------
 */

/*
 * Write succ(p) (see the file header) into out, which has room for len + 4
 * bytes, and return its length; return -1 when p has no successor.
 */
int
adjkey_prefix_successor(const char *p, int len, char *out)
{
	while (len > 0)
	{
		int			start = len - 1;
		pg_wchar	cp;

		while (start > 0 && (((unsigned char) p[start]) & 0xC0) == 0x80)
			start--;
		cp = utf8_to_unicode((const unsigned char *) p + start);
		if (cp >= 0x10FFFF)
		{
			len = start;		/* no successor: drop it, bump the one before */
			continue;
		}
		cp++;
		if (cp == 0xD800)		/* surrogates are not characters */
			cp = 0xE000;
		memcpy(out, p, start);
		unicode_to_utf8(cp, (unsigned char *) out + start);
		return start + pg_utf_mblen((unsigned char *) out + start);
	}
	return -1;
}

/*
 * A value that sorts after every key: the single byte 0xFF, which no UTF-8
 * string contains.  Only for scan keys built in C; palloc'd.
 */
struct varlena *
adjkey_upper_sentinel(void)
{
	struct varlena *s = palloc(VARHDRSZ + 1);

	SET_VARSIZE(s, VARHDRSZ + 1);
	*VARDATA(s) = (char) 0xFF;
	return s;
}

/* The exclusive upper bound of a prefix range, as bytea. */
static Datum
prefix_upper(const char *p, int len)
{
	bytea	   *res = palloc(VARHDRSZ + len + 4);
	int			n = adjkey_prefix_successor(p, len, VARDATA(res));

	if (n < 0)
	{
		/* no successor: every key that sorts after p begins with it */
		SET_VARSIZE(res, VARHDRSZ + 1);
		*VARDATA(res) = (char) 0xFF;
	}
	else
		SET_VARSIZE(res, VARHDRSZ + n);
	return PointerGetDatum(res);
}

/* The inclusive lower bound of keys beginning with a text prefix (bytea). */
Datum
adjkey_prefix_lower(PG_FUNCTION_ARGS)
{
	text	   *prefix = PG_GETARG_TEXT_PP(0);
	const char *p;
	int			plen;
	bytea	   *res;

	p = adjkey_text_to_utf8(prefix, &plen);
	res = palloc(VARHDRSZ + plen);
	SET_VARSIZE(res, VARHDRSZ + plen);
	memcpy(VARDATA(res), p, plen);
	PG_RETURN_BYTEA_P(res);
}

/* The exclusive upper bound of keys beginning with a text prefix (bytea). */
Datum
adjkey_prefix_upper(PG_FUNCTION_ARGS)
{
	text	   *prefix = PG_GETARG_TEXT_PP(0);
	const char *p;
	int			plen;

	p = adjkey_text_to_utf8(prefix, &plen);
	PG_RETURN_DATUM(prefix_upper(p, plen));
}

/* The exclusive upper bound of keys beginning with a key (bytea). */
Datum
adjkey_prefix_upper_key(PG_FUNCTION_ARGS)
{
	struct varlena *prefix = PG_GETARG_ADJKEY_PP(0);

	PG_RETURN_DATUM(prefix_upper(ADJKEY_DATA(prefix), ADJKEY_LEN(prefix)));
}

/* ----------------------------------------------------------------------
 * LIKE
 * ----------------------------------------------------------------------
 */

#define LIKE_ESC	'\\'

/* Reject a pattern that ends in an unescaped escape character. */
static void
like_check_pattern(const char *p, int plen)
{
	for (int i = 0; i < plen; i++)
	{
		if (p[i] != LIKE_ESC)
			continue;
		if (i + 1 >= plen)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_ESCAPE_SEQUENCE),
					 errmsg("LIKE pattern must not end with escape character")));
		i++;
	}
}

/*
 * Split a pattern into its literal prefix (unescaped, written to prefix,
 * which has room for plen bytes) and the rest, and say what the rest is:
 * nothing (the pattern matches one key), only '%' (it matches the keys
 * that begin with the prefix), or anything else.  Never raises an error: a
 * pattern ending in an unescaped backslash is ADJKEY_LIKE_BAD.
 */
AdjkeyLikeKind
adjkey_like_prefix(const char *p, int plen, char *prefix, int *prefixlen)
{
	AdjkeyLikeKind kind = ADJKEY_LIKE_PREFIX;
	int			n = 0;
	int			i;

	for (i = 0; i < plen; i++)
	{
		if (p[i] == '%' || p[i] == '_')
			break;
		if (p[i] == LIKE_ESC)
		{
			if (++i >= plen)
				return ADJKEY_LIKE_BAD;
		}
		prefix[n++] = p[i];
	}
	*prefixlen = n;
	if (i == plen)
		return ADJKEY_LIKE_EXACT;
	for (; i < plen; i++)
	{
		if (p[i] == LIKE_ESC)
		{
			if (++i >= plen)
				return ADJKEY_LIKE_BAD;
			kind = ADJKEY_LIKE_OTHER;
		}
		else if (p[i] != '%')
			kind = ADJKEY_LIKE_OTHER;
	}
	return kind;
}

/* The length of the character at k[s], within klen. */
static inline int
key_char_len(const char *k, int s, int klen)
{
	int			n = pg_utf_mblen((const unsigned char *) k + s);

	return Min(n, klen - s);
}

/*
 * Does k match the (checked) pattern p?  Backtracking is only ever to the
 * last '%' seen, which is enough for '%' and '_' (a '%' further back could
 * absorb no more than the last one can); the work is at most
 * klen * plen steps.
 */
static bool
like_match(const char *k, int klen, const char *p, int plen)
{
	int			s = 0;			/* position in the key */
	int			i = 0;			/* position in the pattern */
	int			star_i = -1;	/* pattern position after the last '%' */
	int			star_s = 0;		/* key position that '%' resumes from */

	while (s < klen)
	{
		if (i < plen && p[i] == '%')
		{
			star_i = ++i;
			star_s = s;
			continue;
		}
		if (i < plen && p[i] == '_')
		{
			s += key_char_len(k, s, klen);
			i++;
			continue;
		}
		if (i < plen)
		{
			int			li = (p[i] == LIKE_ESC) ? i + 1 : i;

			if (p[li] == k[s])
			{
				s++;
				i = li + 1;
				continue;
			}
		}
		if (star_i < 0)
			return false;
		/* let the last '%' absorb one more character and retry */
		star_s += key_char_len(k, star_s, klen);
		s = star_s;
		i = star_i;
	}
	while (i < plen && p[i] == '%')
		i++;
	return i == plen;
}

static bool
like_args(FunctionCallInfo fcinfo)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	text	   *pattern = PG_GETARG_TEXT_PP(1);
	const char *p;
	int			plen;

	p = adjkey_text_bytes(pattern, &plen);
	like_check_pattern(p, plen);
	return like_match(ADJKEY_DATA(key), ADJKEY_LEN(key), p, plen);
}

Datum
adjkey_like(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(like_args(fcinfo));
}

Datum
adjkey_notlike(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(!like_args(fcinfo));
}

/* The literal prefix of a pattern as UTF-8 bytes; errors if it is bad. */
static char *
like_pattern_prefix(text *pattern, int *len)
{
	const char *p;
	int			plen;
	char	   *prefix;

	p = adjkey_text_bytes(pattern, &plen);
	prefix = palloc(plen + 4);	/* room for its successor too */
	if (adjkey_like_prefix(p, plen, prefix, len) == ADJKEY_LIKE_BAD)
		like_check_pattern(p, plen);	/* raises the error */
	return prefix;
}

/*
 * The inclusive lower bound (bytea) of the keys a pattern can match: its
 * literal prefix, empty when it starts with a wildcard.
 */
Datum
adjkey_like_lower(PG_FUNCTION_ARGS)
{
	int			len;
	char	   *prefix = like_pattern_prefix(PG_GETARG_TEXT_PP(0), &len);
	bytea	   *res = palloc(VARHDRSZ + len);

	SET_VARSIZE(res, VARHDRSZ + len);
	memcpy(VARDATA(res), prefix, len);
	PG_RETURN_BYTEA_P(res);
}

/* The exclusive upper bound (bytea) of the keys a pattern can match. */
Datum
adjkey_like_upper(PG_FUNCTION_ARGS)
{
	int			len;
	char	   *prefix = like_pattern_prefix(PG_GETARG_TEXT_PP(0), &len);

	PG_RETURN_DATUM(prefix_upper(prefix, len));
}

/* ----------------------------------------------------------------------
 * Components
 * ----------------------------------------------------------------------
 */

/*
 * The position of the first separator at or after "from" that is not
 * escaped, or -1.  The one escape-aware scan: every component function
 * goes through it.
 */
static inline bool
escape_at(const char *s, int len, int i)
{
	return s[i] == ADJKEY_ESC && i + 1 < len &&
		(s[i + 1] == ADJKEY_SEP || s[i + 1] == ADJKEY_ESC);
}

int
adjkey_next_separator(const char *s, int len, int from)
{
	for (int i = from; i < len; i++)
	{
		if (escape_at(s, len, i))
			i++;
		else if (s[i] == ADJKEY_SEP)
			return i;
	}
	return -1;
}

/*
 * An edge prefix as every function reads it: its UTF-8 bytes, with the
 * separator appended when it does not end in one ('FOLLOWS' and 'FOLLOWS#'
 * mean the same).  The empty prefix stays empty (every sort key).
 */
const char *
adjkey_edge_prefix(text *prefix, int *len)
{
	const char *p = adjkey_text_to_utf8(prefix, len);
	char	   *q;

	if (*len == 0 || adjkey_ends_in_separator(p, *len))
		return p;
	q = palloc(*len + 1);
	memcpy(q, p, *len);
	q[*len] = ADJKEY_SEP;
	(*len)++;
	return q;
}

/* The number of components of a key. */
static int
count_parts(const char *s, int len)
{
	int			n = 1;

	for (int i = adjkey_next_separator(s, len, 0); i >= 0;
		 i = adjkey_next_separator(s, len, i + 1))
		n++;
	return n;
}

/*
 * Find the components of a key: starts[i] and ends[i] delimit the raw
 * (still escaped) bytes of part i.  Returns the number of parts; the arrays
 * are palloc'd.
 */
static int
split_raw(const char *s, int len, int **starts, int **ends)
{
	int			nparts = count_parts(s, len);
	int			n = 0;

	*starts = palloc(sizeof(int) * nparts);
	*ends = palloc(sizeof(int) * nparts);
	(*starts)[0] = 0;
	for (int i = adjkey_next_separator(s, len, 0); i >= 0;
		 i = adjkey_next_separator(s, len, i + 1))
	{
		(*ends)[n++] = i;
		(*starts)[n] = i + 1;
	}
	(*ends)[n] = len;
	return nparts;
}

/* One raw part, unescaped, as text in the server encoding. */
static text *
unescape_part(const char *s, int len)
{
	char	   *buf = palloc(len + 1);
	int			n = 0;
	char	   *conv;
	text	   *result;

	for (int i = 0; i < len; i++)
	{
		if (escape_at(s, len, i))
			i++;
		buf[n++] = s[i];
	}
	buf[n] = '\0';
	conv = (GetDatabaseEncoding() == PG_UTF8) ? buf : pg_any_to_server(buf, n, PG_UTF8);
	result = cstring_to_text(conv);
	pfree(buf);
	return result;
}

/* Resolve a 1-based (or, if negative, from-the-end) part number. */
static int
resolve_part_number(int32 n, int nparts)
{
	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("key part number must not be zero"),
				 errhint("Parts are numbered from 1; negative numbers count from the end.")));
	return n > 0 ? n - 1 : nparts + n;
}

Datum
adjkey_make_key(PG_FUNCTION_ARGS)
{
	ArrayType  *parts = PG_GETARG_ARRAYTYPE_P(0);
	Datum	   *elems;
	bool	   *nulls;
	int			nelems;
	StringInfoData buf;
	struct varlena *key;

	deconstruct_array(parts, TEXTOID, -1, false, TYPALIGN_INT,
					  &elems, &nulls, &nelems);
	if (nelems == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a key needs at least one part")));

	initStringInfo(&buf);
	for (int i = 0; i < nelems; i++)
	{
		const char *p;
		int			plen;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("part %d of a key must not be null", i + 1)));
		if (i > 0)
			appendStringInfoChar(&buf, ADJKEY_SEP);
		p = adjkey_text_to_utf8(DatumGetTextPP(elems[i]), &plen);
		for (int j = 0; j < plen; j++)
		{
			if (p[j] == ADJKEY_SEP || p[j] == ADJKEY_ESC)
				appendStringInfoChar(&buf, ADJKEY_ESC);
			appendStringInfoChar(&buf, p[j]);
		}
	}
	adjkey_check_bytes(buf.data, buf.len, NULL);
	key = adjkey_from_utf8(buf.data, buf.len);
	pfree(buf.data);
	PG_RETURN_POINTER(key);
}

Datum
adjkey_key_parts(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	const char *s = ADJKEY_DATA(key);
	int		   *starts;
	int		   *ends;
	int			nparts = split_raw(s, ADJKEY_LEN(key), &starts, &ends);
	Datum	   *elems = palloc(sizeof(Datum) * nparts);

	for (int i = 0; i < nparts; i++)
		elems[i] = PointerGetDatum(unescape_part(s + starts[i], ends[i] - starts[i]));
	PG_RETURN_ARRAYTYPE_P(construct_array(elems, nparts, TEXTOID, -1, false,
										  TYPALIGN_INT));
}

Datum
adjkey_key_part(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	const char *s = ADJKEY_DATA(key);
	int		   *starts;
	int		   *ends;
	int			nparts = split_raw(s, ADJKEY_LEN(key), &starts, &ends);
	int			i = resolve_part_number(PG_GETARG_INT32(1), nparts);

	if (i < 0 || i >= nparts)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(unescape_part(s + starts[i], ends[i] - starts[i]));
}

Datum
adjkey_key_prefix(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	int32		n = PG_GETARG_INT32(1);
	const char *s = ADJKEY_DATA(key);
	int		   *starts;
	int		   *ends;
	int			nparts = split_raw(s, ADJKEY_LEN(key), &starts, &ends);
	int			keep;

	if (n == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of key parts must not be zero"),
				 errhint("Use a positive number to keep the first parts, a negative one to drop the last parts.")));
	keep = n > 0 ? Min(n, nparts) : nparts + n;
	if (keep <= 0 || ends[keep - 1] == 0)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(adjkey_from_utf8(s, ends[keep - 1]));
}

Datum
adjkey_key_tail(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	int32		n = PG_GETARG_INT32(1);
	const char *s = ADJKEY_DATA(key);
	int			len = ADJKEY_LEN(key);
	int		   *starts;
	int		   *ends;
	int			nparts = split_raw(s, len, &starts, &ends);
	int			skip;

	if (n < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of key parts to skip must not be negative")));
	skip = n;
	if (skip == 0)
		PG_RETURN_POINTER(adjkey_from_utf8(s, len));
	if (skip >= nparts || starts[skip] == len)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(adjkey_from_utf8(s + starts[skip], len - starts[skip]));
}

/*
 * The length of the first component of a key (the bytes before its first
 * unescaped separator), or -1 when the key has a single component.
 */
int
adjkey_first_part_len(const char *s, int len)
{
	return adjkey_next_separator(s, len, 0);
}

Datum
adjkey_key_nparts(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);

	PG_RETURN_INT32(count_parts(ADJKEY_DATA(key), ADJKEY_LEN(key)));
}
