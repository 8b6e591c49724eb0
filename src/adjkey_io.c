/*-------------------------------------------------------------------------
 *
 * adjkey_io.c
 *	  Text and binary input/output of adjkey, and its casts to and from text.
 *
 * Every way a key enters the server (text input, binary recv, a cast from
 * text, the make_key() constructor) goes through adjkey_check_bytes(), so the
 * rules are stated once: a key is non-empty, valid UTF-8, and at most
 * ADJKEY_MAX_BYTES long.  Keys that arrive as text are in the database
 * encoding by construction; binary receive, whose bytes are UTF-8 whatever
 * the database encoding, also checks that the database encoding can
 * represent them, so that every stored key can be output (and dumped).  Keys are stored as UTF-8 whatever the database
 * encoding (see adjlist.h); in a UTF8 database, the common case, no
 * conversion is done at all.
 *
 * The binary format is one version byte (ADJKEY_BINARY_VERSION) followed by
 * the key's UTF-8 bytes.  It does not depend on client_encoding, so a binary
 * COPY file moves between databases of any encoding.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/namespace.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "adjlist.h"

PG_FUNCTION_INFO_V1(adjkey_in);
PG_FUNCTION_INFO_V1(adjkey_out);
PG_FUNCTION_INFO_V1(adjkey_recv);
PG_FUNCTION_INFO_V1(adjkey_send);
PG_FUNCTION_INFO_V1(adjkey_from_text);
PG_FUNCTION_INFO_V1(adjkey_to_text);

/*
 * Check that utf8[0..len) may be stored as a key.  Reports a problem through
 * escontext when the caller supplies one (soft error) and returns false;
 * otherwise throws.
 */
bool
adjkey_check_bytes(const char *utf8, int len, Node *escontext)
{
	if (len == 0)
		ADJLIST_INPUT_ERROR(escontext, false,
							errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
							errmsg("adjkey value must not be empty"),
							errhint("A key needs at least one character, for example 'USER#alice'."));
	if (len > ADJKEY_MAX_BYTES)
		ADJLIST_INPUT_ERROR(escontext, false,
							errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
							errmsg("adjkey value too long"),
							errdetail("The key is %d bytes long in UTF-8; the limit is %d bytes.",
									  len, ADJKEY_MAX_BYTES),
							errhint("DynamoDB allows sort keys of up to %d bytes, and partition keys of up to %d.",
									ADJKEY_MAX_SORT_BYTES, ADJKEY_MAX_BYTES));
	if (!pg_verify_mbstr(PG_UTF8, utf8, len, true))
		ADJLIST_INPUT_ERROR(escontext, false,
							errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
							errmsg("invalid byte sequence for encoding \"UTF8\" in adjkey value"));
	return true;
}

/* Build a key datum from bytes that are already known to be acceptable. */
struct varlena *
adjkey_from_utf8(const char *utf8, int len)
{
	struct varlena *key = (struct varlena *) palloc(VARHDRSZ + len);

	SET_VARSIZE(key, VARHDRSZ + len);
	memcpy(VARDATA(key), utf8, len);
	return key;
}

/*
 * Build a key from a string in the server encoding, checking it.  Returns
 * NULL after a soft error.
 */
struct varlena *
adjkey_from_server(const char *s, int len, Node *escontext)
{
	const char *utf8 = s;
	int			utf8len = len;

	if (GetDatabaseEncoding() != PG_UTF8)
	{
		utf8 = pg_server_to_any(s, len, PG_UTF8);
		if (utf8 != s)
			utf8len = strlen(utf8);
	}
	if (!adjkey_check_bytes(utf8, utf8len, escontext))
		return NULL;
	return adjkey_from_utf8(utf8, utf8len);
}

/*
 * The key as a NUL-terminated string in the server encoding (palloc'd).
 */
char *
adjkey_to_server(struct varlena *key, int *outlen)
{
	const char *utf8 = ADJKEY_DATA(key);
	int			len = ADJKEY_LEN(key);
	char	   *conv;
	char	   *result;

	if (GetDatabaseEncoding() != PG_UTF8)
	{
		conv = pg_any_to_server(utf8, len, PG_UTF8);
		if (conv != utf8)
		{
			*outlen = strlen(conv);
			return conv;
		}
	}
	result = palloc(len + 1);
	memcpy(result, utf8, len);
	result[len] = '\0';
	*outlen = len;
	return result;
}

/*
 * Whether the database encoding can represent the UTF-8 string
 * utf8[0..len), so that a key made of it could be output.  A UTF8 database
 * represents everything, and SQL_ASCII does no conversion (adjkey_out
 * then only validates the UTF-8).  Elsewhere the string is converted with
 * the conversion's noError mode, which stops at the first character it
 * cannot convert instead of throwing: the planner asks this of bounds it
 * derives, where an error must not be the answer.
 */
bool
adjkey_utf8_representable(const char *utf8, int len)
{
	int			enc = GetDatabaseEncoding();
	int			i = 0;
	Oid			proc;
	unsigned char *buf;
	int			converted;

	if (enc == PG_UTF8 || enc == PG_SQL_ASCII)
		return true;
	while (i < len && !IS_HIGHBIT_SET(utf8[i]))
		i++;
	if (i == len)
		return true;			/* ASCII: the same in every server encoding */
	proc = FindDefaultConversionProc(PG_UTF8, enc);
	if (!OidIsValid(proc))
		return false;			/* adjkey_out could not convert it either */
	buf = palloc((Size) len * MAX_CONVERSION_GROWTH + 1);
	converted = pg_do_encoding_conversion_buf(proc, PG_UTF8, enc,
											  (unsigned char *) utf8, len,
											  buf, len * MAX_CONVERSION_GROWTH + 1,
											  true);
	pfree(buf);
	return converted == len;
}

/*
 * The UTF-8 bytes of a text value.  The result points into t itself when no
 * conversion is needed, else to a palloc'd copy.
 */
const char *
adjkey_text_to_utf8(text *t, int *outlen)
{
	const char *s = VARDATA_ANY(t);
	int			len = VARSIZE_ANY_EXHDR(t);
	const char *utf8;

	if (GetDatabaseEncoding() == PG_UTF8)
	{
		*outlen = len;
		return s;
	}
	utf8 = pg_server_to_any(s, len, PG_UTF8);
	*outlen = (utf8 == s) ? len : (int) strlen(utf8);
	return utf8;
}

Datum
adjkey_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	struct varlena *key;

	key = adjkey_from_server(s, strlen(s), ADJLIST_ESCONTEXT(fcinfo));
	if (key == NULL)
		PG_RETURN_NULL();
	PG_RETURN_POINTER(key);
}

Datum
adjkey_out(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	int			len;

	PG_RETURN_CSTRING(adjkey_to_server(key, &len));
}

Datum
adjkey_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			version;
	int			nbytes;
	const char *data;

	version = pq_getmsgbyte(buf);
	if (version != ADJKEY_BINARY_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("unsupported adjkey binary format version %d", version),
				 errdetail("This server reads version %d.", ADJKEY_BINARY_VERSION)));
	nbytes = buf->len - buf->cursor;
	data = pq_getmsgbytes(buf, nbytes);
	adjkey_check_bytes(data, nbytes, NULL);
	/* the text form must exist: throws for characters it cannot represent */
	if (GetDatabaseEncoding() != PG_UTF8)
		(void) pg_any_to_server(data, nbytes, PG_UTF8);
	PG_RETURN_POINTER(adjkey_from_utf8(data, nbytes));
}

Datum
adjkey_send(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbyte(&buf, ADJKEY_BINARY_VERSION);
	pq_sendbytes(&buf, ADJKEY_DATA(key), ADJKEY_LEN(key));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
adjkey_from_text(PG_FUNCTION_ARGS)
{
	text	   *t = PG_GETARG_TEXT_PP(0);

	PG_RETURN_POINTER(adjkey_from_server(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t),
										 NULL));
}

Datum
adjkey_to_text(PG_FUNCTION_ARGS)
{
	struct varlena *key = PG_GETARG_ADJKEY_PP(0);
	char	   *s;
	int			len;

	if (GetDatabaseEncoding() == PG_UTF8)
		PG_RETURN_TEXT_P(cstring_to_text_with_len(ADJKEY_DATA(key),
												  ADJKEY_LEN(key)));
	s = adjkey_to_server(key, &len);
	PG_RETURN_TEXT_P(cstring_to_text_with_len(s, len));
}
