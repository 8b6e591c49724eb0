/*-------------------------------------------------------------------------
 *
 * index_rule.c
 *	  The rules that define an inverted index and its degree counters.
 *
 * Everything that computes index rows or counts calls these functions:
 * the sync triggers, the write API, the backfill of create_inverted_index,
 * and, through adjlist_index_rows() and adjlist_index_counts() (SQL), the
 * check of verify_inverted_index and the repair of rebuild_inverted_index.
 * There is no second copy of a rule in SQL or PL/pgSQL.
 *
 * The index row: the base row's values of the registered columns (by
 * name), the partition key stored under its write shard when the index
 * has write shards; no row when a key column is null (a sparse index).
 * DynamoDB's size limits apply per role, on the tables adjlist manages: a
 * sort key (the base table's, and the index's, which is the base table's
 * partition key) may have 1024 bytes, a partition key 2048 (the type's own
 * limit; a write-sharded index's partition key with its suffix too).  The
 * checks are apart from index_row(), which computes the index rows of old
 * rows as well as new ones: the writers call index_row_check_base() on each
 * row they add (the triggers' new rows, the write API's puts, a build and
 * its backfill), never on a row they remove, so that a row written before
 * the limit was kept (or with the triggers off) can still be deleted or
 * have its key shortened.  The base table's limit holds for every row it
 * gets, whether an index holds the row or not (a sparse index, a NULL
 * derived key); the index's own only for the rows it holds.  A build scans
 * the rows its index skips too (index_skips_rows()).
 * verify_inverted_index() reports the rows that break a limit
 * (index_row_breach()) rather than raising.
 *
 * The counters: see index_rule.h.  Edge names are the raw first part of
 * the partition key (escapes kept, as key_prefix(sk, 1) returns it),
 * stored as text in the database encoding.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "common/hashfn.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_predicate.h"
#include "index_rule.h"
#include "index_write.h"
#include "plan_cache.h"
#include "write_shard.h"

/* ----------------------------------------------------------------------
 * Index rows
 * ----------------------------------------------------------------------
 */

/* Characters of a key value shown in an error (index_row_key_desc()). */
#define KEY_DESC_CHARS 40

/*
 * DynamoDB's limits on the keys of relid (an inverted index's table when
 * of_index), one per role: the one definition of the check and its error,
 * with DynamoDB's own wording in the detail, as its ValidationException
 * says it.  Writers, import_dynamodb and the reads by key (batch_get,
 * query) all call it.
 */
void
check_key_size(Oid relid, bool of_index, int role, const char *column, int len)
{
	int			limit = role == KEY_ROLE_PARTITION ? ADJKEY_MAX_BYTES : ADJKEY_MAX_SORT_BYTES;

	if (len <= limit)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_STRING_DATA_RIGHT_TRUNCATION),
			 of_index ?
			 errmsg("%s key of inverted index \"%s\" is too long",
					role == KEY_ROLE_PARTITION ? "partition" : "sort", get_rel_name(relid)) :
			 errmsg("%s key of table \"%s\" is too long",
					role == KEY_ROLE_PARTITION ? "partition" : "sort", get_rel_name(relid)),
			 role == KEY_ROLE_PARTITION ?
			 errdetail("One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of %d bytes (column \"%s\" has %d bytes).",
					   limit, column, len) :
			 errdetail("One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit of %d bytes (column \"%s\" has %d bytes).",
					   limit, column, len),
			 errhint("DynamoDB allows sort keys of up to %d bytes, and partition keys of up to %d.",
					 ADJKEY_MAX_SORT_BYTES, ADJKEY_MAX_BYTES)));
}

void
check_base_sort_key(Oid relid, const char *column, Datum key)
{
	check_key_size(relid, false, KEY_ROLE_SORT, column, ADJKEY_LEN(DatumGetAdjkeyPP(key)));
}

/* Where the base table's sort key stands among the registered columns, or -1. */
static int
base_sort_column(const IndexDef *ix)
{
	if (ix->nbasekey < 2)
		return -1;
	for (int i = 0; i < ix->ncols; i++)
		if (strcmp(ix->colnames[i], ix->base_key[1]) == 0)
			return ix->coltypes[i] == ix->coltypes[1] ? i : -1;
	return -1;
}

/* Does ix hold a row for these base values (its predicate, its key columns)? */
static bool
index_holds(const IndexDef *ix, Datum *base, bool *basenull)
{
	if (ix->predicate != NULL &&
		(basenull[ix->ncols] || !DatumGetBool(base[ix->ncols])))
		return false;
	for (int i = 0; i < ix->nkeys; i++)
		if (basenull[i])
			return false;
	return true;
}

bool
index_row_breach(const IndexDef *ix, Datum *base, bool *basenull, KeyBreach *kb)
{
	int			b = base_sort_column(ix);

	memset(kb, 0, sizeof(KeyBreach));
	/* the base table's sort key, whether ix holds the row or not */
	if (b >= 0 && !basenull[b] && ADJKEY_LEN(DatumGetAdjkeyPP(base[b])) > ADJKEY_MAX_SORT_BYTES)
	{
		kb->relid = ix->baserel;
		kb->column = ix->colnames[b];
		kb->len = ADJKEY_LEN(DatumGetAdjkeyPP(base[b]));
		kb->limit = ADJKEY_MAX_SORT_BYTES;
		return true;
	}
	if (!index_holds(ix, base, basenull))
		return false;
	/* the index's sort key: the second registered column */
	kb->relid = ix->indexrel;
	kb->of_index = true;
	kb->column = ix->colnames[1];
	kb->len = ADJKEY_LEN(DatumGetAdjkeyPP(base[1]));
	kb->limit = ADJKEY_MAX_SORT_BYTES;
	if (kb->len > kb->limit)
		return true;
	/* a write-sharded index's partition key, with its suffix */
	if (ix->write_shards > 0 && !write_shard_row_key_fits(base[0], base[1], ix->write_shards))
	{
		kb->partition = true;
		kb->column = ix->colnames[0];
		kb->len = write_shard_row_key_len(base[0], base[1], ix->write_shards);
		kb->limit = ADJKEY_MAX_BYTES;
		return true;
	}
	return false;
}

void
index_row_check_base(const IndexDef *ix, Datum *base, bool *basenull)
{
	KeyBreach	kb;

	if (!index_row_breach(ix, base, basenull, &kb))
		return;
	if (kb.partition)
		(void) write_shard_row_key(base[0], base[1], ix->write_shards);	/* its error */
	check_key_size(kb.relid, kb.of_index, KEY_ROLE_SORT, kb.column, kb.len);
	elog(ERROR, "key limit not raised");	/* not reached */
}

bool
index_skips_rows(const IndexDef *ix)
{
	if (ix->predicate != NULL)
		return true;
	for (int i = 0; i < ix->nkeys; i++)
	{
		bool		in_base_key = false;

		for (int b = 0; b < ix->nbasekey; b++)
			if (strcmp(ix->colnames[i], ix->base_key[b]) == 0)
				in_base_key = true;
		if (!in_base_key)
			return true;
	}
	return false;
}

char *
index_row_key_desc(const IndexDef *ix, Datum *base, bool *basenull)
{
	StringInfoData names;
	StringInfoData values;

	initStringInfo(&names);
	initStringInfo(&values);
	for (int b = 0; b < ix->nbasekey; b++)
		for (int i = 0; i < ix->ncols; i++)
		{
			char	   *v;
			Oid			out;
			bool		varlena;

			if (strcmp(ix->colnames[i], ix->base_key[b]) != 0)
				continue;
			appendStringInfo(&names, "%s%s", b ? ", " : "", quote_identifier(ix->colnames[i]));
			if (basenull[i])
				v = "null";
			else
			{
				getTypeOutputInfo(ix->coltypes[i], &out, &varlena);
				v = OidOutputFunctionCall(out, base[i]);
			}
			/* a key as long as the limit it breaks would drown the message */
			if (strlen(v) > KEY_DESC_CHARS)
				v = psprintf("%s...", pnstrdup(v, pg_mbcliplen(v, strlen(v), KEY_DESC_CHARS)));
			appendStringInfo(&values, "%s%s", b ? ", " : "", v);
			break;
		}
	return psprintf("(%s)=(%s)", names.data, values.data);
}

void
index_row_errcontext(const IndexDef *ix, Datum *base, bool *basenull)
{
	errcontext("row %s of table \"%s\", for inverted index \"%s\"",
			   index_row_key_desc(ix, base, basenull),
			   get_rel_name(ix->baserel), get_rel_name(ix->indexrel));
}

bool
index_row(const IndexDef *ix, Datum *base, bool *basenull,
		  Datum *row, bool *rownull, Datum *logical)
{
	if (!index_holds(ix, base, basenull))
		return false;
	/* (a row older than the limits whose shard key cannot be: not held) */
	if (ix->write_shards > 0 &&
		!write_shard_row_key_fits(base[0], base[1], ix->write_shards))
		return false;
	for (int i = 0; i < ix->ncols; i++)
	{
		row[i] = base[i];
		rownull[i] = basenull[i];
	}
	if (logical)
		*logical = row[0];
	if (ix->write_shards > 0)
		row[0] = write_shard_row_key(row[0], row[1], ix->write_shards);
	return true;
}

AttrNumber *
index_row_attnos(const IndexDef *ix, TupleDesc desc)
{
	AttrNumber *attnos = palloc(sizeof(AttrNumber) * ix->ncols);

	for (int i = 0; i < ix->ncols; i++)
	{
		AttrNumber	a = InvalidAttrNumber;

		for (int j = 0; j < desc->natts; j++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, j);

			if (!att->attisdropped && strcmp(NameStr(att->attname), ix->colnames[i]) == 0)
			{
				a = j + 1;
				break;
			}
		}
		if (a == InvalidAttrNumber)
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_COLUMN),
					 errmsg("column \"%s\" of inverted index \"%s\" is missing from a table it indexes",
							ix->colnames[i], get_rel_name(ix->indexrel))));
		if (TupleDescAttr(desc, a - 1)->atttypid != ix->coltypes[i])
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("column \"%s\" of inverted index \"%s\" has another type in a table it indexes",
							ix->colnames[i], get_rel_name(ix->indexrel))));
		attnos[i] = a;
	}
	return attnos;
}

void
index_row_extract(const IndexDef *ix, const AttrNumber *attnos,
				  struct IndexPredicateState *pred, TupleTableSlot *slot,
				  Datum *base, bool *basenull)
{
	for (int i = 0; i < ix->ncols; i++)
		base[i] = slot_getattr(slot, attnos[i], &basenull[i]);
	base[ix->ncols] = BoolGetDatum(pred == NULL || index_predicate_check(pred, slot));
	basenull[ix->ncols] = false;
}

bool
index_row_equal(const IndexDef *ix, int from, int to, Datum *a, bool *anull,
				Datum *b, bool *bnull)
{
	for (int i = from; i < to; i++)
	{
		if (anull[i] != bnull[i])
			return false;
		if (!anull[i] && !datum_image_eq(a[i], b[i], ix->typbyvals[i], ix->typlens[i]))
			return false;
	}
	return true;
}

/* ----------------------------------------------------------------------
 * Degree counters
 * ----------------------------------------------------------------------
 */

#define COUNTS_FLUSH_AT 10000	/* groups summed in memory before a flush */
#define COUNTS_FEW 16			/* groups written a row at a time */

typedef struct CountKey
{
	const char *bytes;			/* direction, edge length (4 bytes), edge, node */
	int			len;
} CountKey;

typedef struct CountEntry
{
	CountKey	key;			/* hash key: must be first */
	int64		n;
} CountEntry;

struct Counts
{
	const IndexDef *ix;
	HTAB	   *hash;
	MemoryContext cxt;
	Tuplestorestate *sink;		/* or NULL: the counter table */
	TupleDesc	sinkdesc;
};

static uint32
countkey_hash(const void *key, Size keysize)
{
	const CountKey *k = (const CountKey *) key;

	return hash_bytes((const unsigned char *) k->bytes, k->len);
}

static int
countkey_match(const void *a, const void *b, Size keysize)
{
	const CountKey *x = (const CountKey *) a;
	const CountKey *y = (const CountKey *) b;

	if (x->len != y->len)
		return 1;
	return memcmp(x->bytes, y->bytes, x->len);
}

static void
counts_reset(Counts *c)
{
	HASHCTL		ctl;

	MemoryContextReset(c->cxt);
	ctl.keysize = sizeof(CountKey);
	ctl.entrysize = sizeof(CountEntry);
	ctl.hash = countkey_hash;
	ctl.match = countkey_match;
	ctl.hcxt = c->cxt;
	c->hash = hash_create("adjlist counts", 256, &ctl,
						  HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}

Counts *
counts_create(const IndexDef *ix)
{
	Counts	   *c = palloc0(sizeof(Counts));

	c->ix = ix;
	c->cxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist counts",
								   ALLOCSET_DEFAULT_SIZES);
	counts_reset(c);
	return c;
}

void
counts_set_sink(Counts *c, Tuplestorestate *ts, TupleDesc desc)
{
	c->sink = ts;
	c->sinkdesc = desc;
}

static void
count_one(Counts *c, char direction, const char *edge, int edgelen,
		  const char *node, int nodelen, int64 delta)
{
	char	   *buf = palloc(1 + sizeof(int32) + edgelen + nodelen);
	int32		el = edgelen;
	CountKey	k;
	CountEntry *e;
	bool		found;

	buf[0] = direction;
	memcpy(buf + 1, &el, sizeof(int32));
	memcpy(buf + 1 + sizeof(int32), edge, edgelen);
	memcpy(buf + 1 + sizeof(int32) + edgelen, node, nodelen);
	k.bytes = buf;
	k.len = 1 + sizeof(int32) + edgelen + nodelen;
	e = hash_search(c->hash, &k, HASH_FIND, NULL);
	if (e == NULL)
	{
		k.bytes = MemoryContextAlloc(c->cxt, k.len);
		memcpy((char *) k.bytes, buf, k.len);
		e = hash_search(c->hash, &k, HASH_ENTER, &found);
		e->n = 0;
	}
	e->n += delta;
	pfree(buf);
}

void
counts_add(Counts *c, Datum logical_partition, Datum sort_key, int64 delta)
{
	struct varlena *p = DatumGetAdjkeyPP(logical_partition);
	struct varlena *s = DatumGetAdjkeyPP(sort_key);
	const char *pdata = ADJKEY_DATA(p);
	int			plen = ADJKEY_LEN(p);
	int			edgelen = adjkey_first_part_len(pdata, plen);

	if (edgelen == 0)
		return;					/* no edge name: not counted */
	if (edgelen < 0)
		edgelen = plen;			/* a single part: an out-edge only */
	count_one(c, 'o', pdata, edgelen, ADJKEY_DATA(s), ADJKEY_LEN(s), delta);
	if (edgelen + 1 < plen)
		count_one(c, 'i', pdata, edgelen, pdata + edgelen + 1, plen - edgelen - 1, delta);
	if (hash_get_num_entries(c->hash) >= COUNTS_FLUSH_AT)
		counts_flush(c);
}

/*
 * Counters in the format of 0.1 and 0.2 (a table not yet converted by
 * ALTER EXTENSION adjlist UPDATE): one row per group and shard, added to
 * in place.
 */
static void
legacy_add(Counts *c, Datum *values)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[5] = {cat->keytype, TEXTOID, CHAROID, INT2OID, INT8OID};
	Datum		args[5];
	char	   *sql;

	sql = psprintf("INSERT INTO %s AS c (node, edge, direction, shard, n) "
				   "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (node, edge, direction, shard) "
				   "DO UPDATE SET n = c.n OPERATOR(pg_catalog.+) EXCLUDED.n",
				   adjlist_qualified_name(c->ix->counterrel));
	memcpy(args, values, sizeof(Datum) * 3);
	args[3] = Int16GetDatum((int16) (MyProcPid % Max(c->ix->counter_shards, 1)));
	args[4] = values[3];
	index_execute_plan(adjlist_plan(sql, 5, types), args, NULL, SPI_OK_INSERT);
	pfree(sql);
}

void
counts_flush(Counts *c)
{
	char	   *cols[4] = {"node", "edge", "direction", "n"};
	HASH_SEQ_STATUS status;
	CountEntry *e;
	IndexWriter *w = NULL;
	bool		legacy = (c->sink == NULL && c->ix->counter_legacy);

	if (legacy && SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	hash_seq_init(&status, c->hash);
	while ((e = (CountEntry *) hash_seq_search(&status)) != NULL)
	{
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};
		int32		edgelen;
		const char *edge;
		const char *node;
		char	   *conv;

		if (e->n == 0)
			continue;
		/*
		 * bulk: buffered, and on Citus one statement for all, which costs
		 * more than the router inserts of a few
		 */
		if (w == NULL && c->sink == NULL && !legacy)
			w = index_writer_begin(c->ix->counterrel, cols, 4, 3, WRITE_APPEND,
								   hash_get_num_entries(c->hash) > COUNTS_FEW);
		memcpy(&edgelen, e->key.bytes + 1, sizeof(int32));
		edge = e->key.bytes + 1 + sizeof(int32);
		node = edge + edgelen;
		conv = pg_any_to_server(edge, edgelen, PG_UTF8);
		values[0] = PointerGetDatum(adjkey_from_utf8(node, e->key.len - 1 - sizeof(int32) - edgelen));
		values[1] = PointerGetDatum(conv == edge ? cstring_to_text_with_len(edge, edgelen)
									: cstring_to_text(conv));
		values[2] = CharGetDatum(e->key.bytes[0]);
		values[3] = Int64GetDatum(e->n);
		if (c->sink)
			tuplestore_putvalues(c->sink, c->sinkdesc, values, nulls);
		else if (legacy)
			legacy_add(c, values);
		else
			index_writer_put(w, values, nulls);
	}
	if (w != NULL)
		index_writer_end(w);
	if (legacy)
		SPI_finish();
	counts_reset(c);
}

void
counts_destroy(Counts *c)
{
	MemoryContextDelete(c->cxt);
	pfree(c);
}

text *
counts_edge_name(text *edge)
{
	int			len;
	const char *p = adjkey_text_to_utf8(edge, &len);

	/* "FOLLOWS#" and "FOLLOWS" name the same edge */
	if (len > 0 && adjkey_next_separator(p, len, 0) == len - 1)
		len--;
	if (len == 0 || adjkey_next_separator(p, len, 0) >= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid edge name \"%s\"", text_to_cstring(edge)),
				 errdetail("Degree counters are kept per edge name: the first part of a sort key, such as \"FOLLOWS\" for \"FOLLOWS#USER#bob\"."),
				 errhint("Pass the edge name with or without its trailing separator.")));
	if (GetDatabaseEncoding() == PG_UTF8)
		return cstring_to_text_with_len(p, len);
	return cstring_to_text(pg_any_to_server(p, len, PG_UTF8));
}
