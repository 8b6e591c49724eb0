/*-------------------------------------------------------------------------
 *
 * graph_scan_spi.c
 *	  Reading edges through SQL, with saved plans: what the direct path
 *	  cannot read.
 *
 * This path serves tables whose rows no single local btree can give: a
 * partitioned or foreign base or index table, a table Citus distributes
 * (its coordinator table is an empty shell: Citus's planner routes the
 * statement to the shard that holds the partition), a table without a
 * primary key (read by its registered key), and any table with row-level
 * security active for the caller, where a plain SELECT must give the same
 * answer.  The statements are generated from the catalogs once per shape,
 * with every name quoted and every operator spelled OPERATOR(schema.op),
 * and their plans saved (plan_cache.c).
 *
 * Out-edges are read from the base table as the caller.  In-edges are
 * read from the inverted index as its owner (the index is part of the
 * table's machinery, like a btree, and needs no privilege of its own);
 * when row-level security is active the sources found there are only
 * candidates, and the edges returned are the base table's rows with those
 * keys that the caller can SELECT, read as the caller, so no hidden row is
 * ever returned or counted, whatever the shape of the key.
 *
 * An edge filter is one more condition, "data @> $n", on the base table
 * or on an index that projects data.  In-edges through an index that does
 * not project data, when a filter or the data is asked for, are read as
 * under row-level security: candidate sources from the index, confirmed
 * (and filtered) against the base table as the caller.
 *
 * A traversal expands a whole BFS level at once (spi_scan_level): one
 * statement per chunk of the frontier with "= ANY($1)", instead of one per
 * node, so a distributed or remote table costs a round trip per level.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"

#include "adjlist.h"
#include "catalog.h"
#include "graph.h"
#include "graph_scan.h"
#include "plan_cache.h"
#include "table_options.h"
#include "write_shard.h"

#define LEVEL_CHUNK 1000		/* frontier nodes per statement */
#define RLS_CHUNK	1000		/* candidate sources confirmed per statement */

static Datum
key_datum(const char *p, int len)
{
	return PointerGetDatum(adjkey_from_utf8(p, len));
}

static Datum
key_array(Datum *keys, int n)
{
	return PointerGetDatum(construct_array(keys, n, adjlist_catalog()->keytype, -1, false,
										   TYPALIGN_INT));
}

/* Parameters of a statement being built. */
typedef struct Params
{
	int			n;
	Oid			types[8];
	Datum		values[8];
} Params;

static int
param(Params *p, Oid type, Datum value)
{
	p->types[p->n] = type;
	p->values[p->n] = value;
	return ++p->n;
}

/*
 * " AND col >= $a AND col < $b": the edge prefix's range; strict, "col >
 * $a": without the key that is the bare prefix (no key is empty, so an
 * empty prefix needs no condition).
 */
static void
append_prefix(StringInfo sql, GraphTable *g, const char *col, const GraphScan *req,
			  bool strict, Params *p)
{
	const EdgeConvention *conv = req->conv;
	char	   *succ;
	int			slen;

	if (conv->eplen == 0)
		return;
	appendStringInfo(sql, " AND %s OPERATOR(%s.%s) $%d", col, g->op_schema,
					 strict ? ">" : ">=",
					 param(p, g->keytype, key_datum(conv->edge_prefix, conv->eplen)));
	succ = palloc(conv->eplen + 4);
	slen = adjkey_prefix_successor(conv->edge_prefix, conv->eplen, succ);
	if (slen >= 0)
		appendStringInfo(sql, " AND %s OPERATOR(%s.<) $%d", col, g->op_schema,
						 param(p, g->keytype, key_datum(succ, slen)));
}

/* " AND col > $a" (or <): after the exclusive start */
static void
append_after(StringInfo sql, GraphTable *g, const char *col, const GraphScan *req, Params *p)
{
	if (req->after == NULL)
		return;
	appendStringInfo(sql, " AND %s OPERATOR(%s.%s) $%d", col, g->op_schema,
					 req->backward ? "<" : ">",
					 param(p, g->keytype, key_datum(req->after, req->afterlen)));
}

static void
append_order(StringInfo sql, GraphTable *g, const char *col, bool backward)
{
	appendStringInfo(sql, " ORDER BY %s USING OPERATOR(%s.%s)", col, g->op_schema,
					 backward ? ">" : "<");
}

/* " AND col @> $a": the edge filter, if any */
static void
append_filter(StringInfo sql, const char *col, const GraphScan *req, Params *p)
{
	if (req->conv->filter == NULL)
		return;
	appendStringInfo(sql, " AND %s OPERATOR(pg_catalog.@>) $%d", col,
					 param(p, JSONBOID, PointerGetDatum(req->conv->filter)));
}

/*
 * " AND <not expired>": on a table with an expiry column (set_ttl), the
 * condition over alias.column (or the bare column); the base table and its
 * index have the column under the same name.
 */
static void
append_live(StringInfo sql, GraphTable *g, const char *alias)
{
	TableOptions o = {0};

	if (g->ttl == NULL)
		return;
	o.ttl = g->ttl;
	o.ttl_type = g->ttl_type;
	appendStringInfo(sql, " AND %s", table_options_live_sql(&o, alias));
}

/*
 * In-edges read from the base table, the index giving only candidates:
 * under row-level security, and when the data is needed (a filter, or
 * need_data) but the index does not project it.
 */
static bool
reverse_confirmed(GraphTable *g, const GraphScan *req, bool rls)
{
	return rls || ((req->need_data || req->conv->filter != NULL) && g->inv_data == 0);
}

/* Run a saved statement as role (InvalidOid: the caller); rows in SPI_tuptable. */
static void
run(const char *sql, Params *p, Oid role)
{
	AdjlistRoleSwitch save;
	SPIPlanPtr	plan;

	if (OidIsValid(role))
		adjlist_become(role, &save);
	plan = adjlist_plan(sql, p->n, p->types);
	adjlist_plan_execute(plan, p->values, NULL, true, 0, SPI_OK_SELECT);
	if (OidIsValid(role))
		adjlist_unbecome(&save);
}

/*
 * Hand the rows of SPI_tuptable to cb: column pkcol is the edge's pk,
 * skcol its sk (0: the partition scanned), datacol its data (0: none).
 * Returns the number of edges handed over; a row that is no edge of the
 * convention (graph_row_is_edge) is handed over uncounted, as on the
 * direct path.  *stopped (if not NULL) says whether the callback or the
 * limit stopped it.
 */
static int64
emit_rows(const GraphScan *req, const char *part, int partlen, int pkcol, int skcol,
		  int datacol, int64 limit, GraphEdgeCallback cb, void *arg, bool *stopped)
{
	SPITupleTable *tt = SPI_tuptable;
	uint64		nrows = SPI_processed;
	int64		n = 0;

	for (uint64 i = 0; i < nrows; i++)
	{
		HeapTuple	tup = tt->vals[i];
		bool		isnull;
		Datum		pd = SPI_getbinval(tup, tt->tupdesc, pkcol, &isnull);
		struct varlena *pv;
		GraphEdge	edge;

		CHECK_FOR_INTERRUPTS();
		if (isnull)
			continue;			/* a row without both keys is no edge */
		pv = DatumGetAdjkeyPP(pd);
		memset(&edge, 0, sizeof(edge));
		edge.origin = -1;
		edge.pk = ADJKEY_DATA(pv);
		edge.pklen = ADJKEY_LEN(pv);
		if (skcol > 0)
		{
			Datum		sd = SPI_getbinval(tup, tt->tupdesc, skcol, &isnull);
			struct varlena *sv;

			if (isnull)
				continue;
			sv = DatumGetAdjkeyPP(sd);
			edge.sk = ADJKEY_DATA(sv);
			edge.sklen = ADJKEY_LEN(sv);
		}
		else
		{
			edge.sk = part;
			edge.sklen = partlen;
		}
		edge.data_isnull = true;
		if (datacol > 0)
			edge.data = SPI_getbinval(tup, tt->tupdesc, datacol, &edge.data_isnull);
		if (graph_row_is_edge(req->conv, req->reverse, edge.sklen))
			n++;
		if (!cb(arg, &edge) || (limit > 0 && n >= limit))
		{
			if (stopped)
				*stopped = true;
			break;
		}
	}
	return n;
}

/* The stored partition keys of a logical partition of the index. */
static Datum *
shard_keys(GraphTable *g, const char *part, int partlen, int *n)
{
	Datum	   *keys;

	*n = Max(g->inv_shards, 1);
	keys = palloc(sizeof(Datum) * *n);
	if (g->inv_shards == 0)
		keys[0] = key_datum(part, partlen);
	else
		for (int i = 0; i < g->inv_shards; i++)
			keys[i] = PointerGetDatum(write_shard_key(part, partlen, i));
	return keys;
}

/* ----------------------------------------------------------------------
 * One node
 * ----------------------------------------------------------------------
 */

/*
 * Which rows of a partition a forward statement reads: every row with the
 * edge prefix; or, for a limit that counts edges only, the rows that are
 * edges (graph_row_is_edge: a sort key longer than the bare prefix, and not
 * so long that the target could not be a key), or the rows whose sort key
 * is the bare prefix (handed over uncounted).
 */
typedef enum ForwardRows
{
	FORWARD_ALL,
	FORWARD_EDGES,
	FORWARD_BARE
} ForwardRows;

/* " AND sk <what the rows are>" for a forward statement */
static void
append_forward_rows(StringInfo sql, GraphTable *g, const GraphScan *req, ForwardRows rows,
					Params *p)
{
	const EdgeConvention *conv = req->conv;
	int			maxlen = graph_edge_max_sklen(conv);

	if (rows == FORWARD_BARE)
	{
		/*
		 * No key is empty, and none longer than a key can be: such a bare
		 * prefix matches no row, and is no value to send (Citus sends
		 * parameters to its workers as text, which adjkey's input refuses).
		 */
		if (conv->eplen == 0 || conv->eplen > ADJKEY_MAX_BYTES)
			appendStringInfoString(sql, " AND false");
		else
			appendStringInfo(sql, " AND %s OPERATOR(%s.=) $%d", g->sk_name, g->op_schema,
							 param(p, g->keytype, key_datum(conv->edge_prefix, conv->eplen)));
		return;
	}
	append_prefix(sql, g, g->sk_name, req, rows == FORWARD_EDGES, p);
	/* adjkey_send(): a version byte, then the key's bytes */
	if (rows == FORWARD_EDGES && maxlen < ADJKEY_MAX_BYTES)
		appendStringInfo(sql, " AND pg_catalog.octet_length(%s.adjkey_send(%s)) "
						 "OPERATOR(pg_catalog.<=) $%d", g->op_schema, g->sk_name,
						 param(p, INT4OID, Int32GetDatum(maxlen + 1)));
}

/* One statement of out-edges, from the base table as the caller. */
static int64
forward_statement(GraphTable *g, const GraphScan *req, const char *part, int partlen,
				  ForwardRows rows, GraphEdgeCallback cb, void *arg, bool *stopped)
{
	StringInfoData sql;
	Params		p = {0};
	bool		with_data = (req->want_data || req->need_data) && g->base_data != 0;
	int64		n;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s, %s%s%s FROM %s WHERE %s OPERATOR(%s.=) $%d",
					 g->pk_name, g->sk_name, with_data ? ", " : "",
					 with_data ? g->data_name : "", g->base_name, g->pk_name, g->op_schema,
					 param(&p, g->keytype, key_datum(part, partlen)));
	append_forward_rows(&sql, g, req, rows, &p);
	append_after(&sql, g, g->sk_name, req, &p);
	append_filter(&sql, g->data_name, req, &p);
	append_live(&sql, g, NULL);
	append_order(&sql, g, g->sk_name, req->backward);
	if (req->limit > 0 && rows != FORWARD_BARE)
		appendStringInfo(&sql, " LIMIT $%d", param(&p, INT8OID, Int64GetDatum(req->limit)));
	run(sql.data, &p, InvalidOid);
	n = emit_rows(req, part, partlen, 1, 2, with_data ? 3 : 0,
				  rows == FORWARD_BARE ? 0 : req->limit, cb, arg, stopped);
	SPI_freetuptable(SPI_tuptable);
	return n;
}

/*
 * Out-edges.  A limit counts edges only (graph_row_is_edge), and SQL's
 * LIMIT counts rows: under a limit the edges are read by a statement of
 * their own, and the rows whose sort key is the bare prefix (no edge, but
 * has_edge() looks for the one its prefix names) by another, handed over
 * uncounted where they sort: before the edges, or after them backward.
 */
static int64
scan_forward(GraphTable *g, const GraphScan *req, const char *part, int partlen,
			 GraphEdgeCallback cb, void *arg)
{
	bool		stopped = false;
	int64		n;

	if (req->limit <= 0 || req->conv->sk_is_target)
		return forward_statement(g, req, part, partlen, FORWARD_ALL, cb, arg, NULL);
	if (!req->backward)
	{
		(void) forward_statement(g, req, part, partlen, FORWARD_BARE, cb, arg, &stopped);
		if (stopped)
			return 0;
	}
	n = forward_statement(g, req, part, partlen, FORWARD_EDGES, cb, arg, &stopped);
	if (req->backward && !stopped)
		(void) forward_statement(g, req, part, partlen, FORWARD_BARE, cb, arg, &stopped);
	return n;
}

/*
 * In-edges from the index, as its owner: the sources of one partition
 * (filtered by the projected data when filtered).
 */
static void
index_sources(GraphTable *g, const GraphScan *req, const char *part, int partlen,
			  bool with_data, bool filtered, bool distinct, int64 limit,
			  const char *after, int afterlen)
{
	StringInfoData sql;
	Params		p = {0};
	int			nkeys;
	Datum	   *keys = shard_keys(g, part, partlen, &nkeys);
	GraphScan	r = *req;

	r.after = after;
	r.afterlen = afterlen;
	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s%s%s%s FROM %s WHERE %s OPERATOR(%s.=) ",
					 distinct ? "DISTINCT " : "", g->inv_pk_name, with_data ? ", " : "",
					 with_data ? quote_identifier(g->payload) : "",
					 g->inv_name, g->inv_sk_name, g->op_schema);
	if (g->inv_shards == 0)
		appendStringInfo(&sql, "$%d", param(&p, g->keytype, keys[0]));
	else
		appendStringInfo(&sql, "ANY ($%d)", param(&p, adjlist_catalog()->keyarraytype,
												  key_array(keys, nkeys)));
	/* a row without both keys is no edge */
	appendStringInfo(&sql, " AND %s IS NOT NULL", g->inv_pk_name);
	append_after(&sql, g, g->inv_pk_name, &r, &p);
	if (filtered)
		append_filter(&sql, quote_identifier(g->payload), req, &p);
	append_live(&sql, g, NULL);
	append_order(&sql, g, g->inv_pk_name, req->backward);
	if (limit > 0)
		appendStringInfo(&sql, " LIMIT $%d", param(&p, INT8OID, Int64GetDatum(limit)));
	run(sql.data, &p, g->inv_owner);
}

/*
 * In-edges confirmed against the base table (row-level security, or data
 * the index does not have): candidate sources from the index, in chunks,
 * and the base table's rows with those keys that the caller can see (and
 * whose data passes the filter), read as the caller.
 */
static int64
scan_reverse_confirmed(GraphTable *g, const GraphScan *req, const char *part, int partlen,
					   GraphEdgeCallback cb, void *arg)
{
	bool		with_data = (req->want_data || req->need_data) && g->base_data != 0;
	const char *after = req->after;
	int			afterlen = req->afterlen;
	int64		n = 0;
	StringInfoData sql;

	initStringInfo(&sql);
	appendStringInfo(&sql, "SELECT %s, %s%s%s FROM %s WHERE %s OPERATOR(%s.=) $1 "
					 "AND %s OPERATOR(%s.=) ANY ($2)",
					 g->pk_name, g->sk_name, with_data ? ", " : "", with_data ? g->data_name : "",
					 g->base_name, g->sk_name, g->op_schema, g->pk_name, g->op_schema);
	if (req->conv->filter != NULL)
		appendStringInfo(&sql, " AND %s OPERATOR(pg_catalog.@>) $3", g->data_name);
	append_live(&sql, g, NULL);
	append_order(&sql, g, g->pk_name, req->backward);

	for (;;)
	{
		SPITupleTable *cands;
		uint64		ncands;
		Datum	   *pks;
		Params		p = {0};
		struct varlena *last;
		int64		got;

		index_sources(g, req, part, partlen, false, false, true, RLS_CHUNK, after, afterlen);
		cands = SPI_tuptable;
		ncands = SPI_processed;
		if (ncands == 0)
		{
			SPI_freetuptable(cands);
			break;
		}
		pks = palloc(sizeof(Datum) * ncands);
		for (uint64 i = 0; i < ncands; i++)
		{
			bool		isnull;

			pks[i] = SPI_getbinval(cands->vals[i], cands->tupdesc, 1, &isnull);
		}
		last = DatumGetAdjkeyPP(pks[ncands - 1]);
		param(&p, g->keytype, key_datum(part, partlen));
		param(&p, adjlist_catalog()->keyarraytype, key_array(pks, ncands));
		if (req->conv->filter != NULL)
			param(&p, JSONBOID, PointerGetDatum(req->conv->filter));
		run(sql.data, &p, InvalidOid);
		got = emit_rows(req, part, partlen, 1, 2, with_data ? 3 : 0,
						req->limit > 0 ? req->limit - n : 0, cb, arg, NULL);
		n += got;
		SPI_freetuptable(SPI_tuptable);
		if ((req->limit > 0 && n >= req->limit) || ncands < RLS_CHUNK)
		{
			SPI_freetuptable(cands);
			break;
		}
		afterlen = ADJKEY_LEN(last);
		after = pnstrdup(ADJKEY_DATA(last), afterlen);
		SPI_freetuptable(cands);
	}
	return n;
}

/*
 * The edges of one partition.  The rows read are freed before returning
 * (edges are valid only during the callback): a search that reads one node
 * at a time does not pile up result sets.
 */
int64
spi_scan(GraphTable *g, const GraphScan *req, const char *part, int partlen,
		 bool rls, GraphEdgeCallback cb, void *arg)
{
	bool		with_data;
	int64		n;

	if (!req->reverse)
		return scan_forward(g, req, part, partlen, cb, arg);
	if (reverse_confirmed(g, req, rls))
		return scan_reverse_confirmed(g, req, part, partlen, cb, arg);
	with_data = (req->want_data || req->need_data) && g->inv_data != 0;
	index_sources(g, req, part, partlen, with_data, req->conv->filter != NULL, false,
				  req->limit, req->after, req->afterlen);
	n = emit_rows(req, part, partlen, 1, 0, with_data ? 2 : 0, req->limit, cb, arg, NULL);
	SPI_freetuptable(SPI_tuptable);
	return n;
}

/* ----------------------------------------------------------------------
 * A whole level of a traversal
 * ----------------------------------------------------------------------
 */

typedef struct OriginKey
{
	const char *bytes;
	int			len;
} OriginKey;

typedef struct OriginEntry
{
	OriginKey	key;			/* hash key: must be first */
	int			origin;
	int			lpart;			/* the logical partition: index into parts */
} OriginEntry;

static uint32
originkey_hash(const void *key, Size keysize)
{
	const OriginKey *k = (const OriginKey *) key;

	return hash_bytes((const unsigned char *) k->bytes, k->len);
}

static int
originkey_match(const void *a, const void *b, Size keysize)
{
	const OriginKey *x = (const OriginKey *) a;
	const OriginKey *y = (const OriginKey *) b;

	return (x->len != y->len) ? 1 : memcmp(x->bytes, y->bytes, x->len);
}

static HTAB *
origin_map(int n)
{
	HASHCTL		ctl;

	ctl.keysize = sizeof(OriginKey);
	ctl.entrysize = sizeof(OriginEntry);
	ctl.hash = originkey_hash;
	ctl.match = originkey_match;
	ctl.hcxt = CurrentMemoryContext;
	return hash_create("adjlist level", Max(n, 16), &ctl,
					   HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
}

static void
origin_add(HTAB *map, const char *bytes, int len, int origin)
{
	OriginKey	k = {bytes, len};
	bool		found;
	OriginEntry *e = hash_search(map, &k, HASH_ENTER, &found);

	if (!found)
	{
		e->origin = origin;
		e->lpart = origin;
	}
}

static int
origin_of(HTAB *map, const char *bytes, int len)
{
	OriginKey	k = {bytes, len};
	OriginEntry *e = hash_search(map, &k, HASH_FIND, NULL);

	return e ? e->origin : -1;
}

/* A row of a level's result, to be sorted before it is handed over. */
typedef struct LevelRow
{
	int			origin;
	uint64		row;			/* index into SPI_tuptable */
	const char *key;			/* what the row sorts by within its origin */
	int			keylen;
} LevelRow;

static int
level_row_cmp(const void *a, const void *b)
{
	const LevelRow *x = (const LevelRow *) a;
	const LevelRow *y = (const LevelRow *) b;

	if (x->origin != y->origin)
		return x->origin < y->origin ? -1 : 1;
	return adjkey_cmp_bytes(x->key, x->keylen, y->key, y->keylen);
}

/*
 * Emit SPI_tuptable's rows as edges, in the order the direct path gives
 * them: by node of the level, then by key (sk forward, pk in reverse), so
 * that a traversal's result does not depend on the path that read it.
 * Column partcol says whose edge a row is.
 */
static void
emit_level(HTAB *map, const char **parts, const int *lens, int pkcol, int skcol,
		   int partcol, bool by_pk, GraphEdgeCallback cb, void *arg)
{
	SPITupleTable *tt = SPI_tuptable;
	uint64		nrows = SPI_processed;
	LevelRow   *rows = palloc(sizeof(LevelRow) * Max(nrows, 1));
	uint64		m = 0;

	for (uint64 i = 0; i < nrows; i++)
	{
		bool		pnull;
		bool		knull;
		bool		onull = false;
		Datum		partd = SPI_getbinval(tt->vals[i], tt->tupdesc, partcol, &pnull);
		Datum		keyd = SPI_getbinval(tt->vals[i], tt->tupdesc, by_pk ? pkcol : skcol, &knull);
		struct varlena *partv;
		struct varlena *kv;
		int			o;

		/* a row without both keys is no edge */
		if (skcol > 0)
			(void) SPI_getbinval(tt->vals[i], tt->tupdesc, by_pk ? skcol : pkcol, &onull);
		if (pnull || knull || onull)
			continue;
		partv = DatumGetAdjkeyPP(partd);
		o = origin_of(map, ADJKEY_DATA(partv), ADJKEY_LEN(partv));
		if (o < 0)
			continue;
		kv = DatumGetAdjkeyPP(keyd);
		rows[m].origin = o;
		rows[m].row = i;
		rows[m].key = ADJKEY_DATA(kv);
		rows[m].keylen = ADJKEY_LEN(kv);
		m++;
	}
	qsort(rows, m, sizeof(LevelRow), level_row_cmp);

	for (uint64 j = 0; j < m; j++)
	{
		HeapTuple	tup = tt->vals[rows[j].row];
		int			o = rows[j].origin;
		bool		isnull;
		struct varlena *pv = DatumGetAdjkeyPP(SPI_getbinval(tup, tt->tupdesc, pkcol, &isnull));
		GraphEdge	edge;

		CHECK_FOR_INTERRUPTS();
		memset(&edge, 0, sizeof(edge));
		edge.origin = o;
		edge.pk = ADJKEY_DATA(pv);
		edge.pklen = ADJKEY_LEN(pv);
		if (skcol > 0)
		{
			struct varlena *sv = DatumGetAdjkeyPP(SPI_getbinval(tup, tt->tupdesc, skcol, &isnull));

			edge.sk = ADJKEY_DATA(sv);
			edge.sklen = ADJKEY_LEN(sv);
		}
		else
		{
			edge.sk = parts[o];
			edge.sklen = lens[o];
		}
		edge.data_isnull = true;
		if (!cb(arg, &edge))
			return;
	}
}

/*
 * In-edges of a level confirmed against the base table (row-level
 * security, or a filter on data the index does not have): the candidates
 * the index gave (in SPI_tuptable), mapped back to their logical sort key,
 * and the base rows with those keys that the caller can see (and whose
 * data passes), read as the caller.
 */
static void
level_confirmed(GraphTable *g, const GraphScan *tmpl, const char **parts, const int *lens,
				int n, HTAB *map, GraphEdgeCallback cb, void *arg)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	StringInfoData sql;
	SPITupleTable *cands = SPI_tuptable;
	uint64		ncands = SPI_processed;
	Datum	   *cpk = palloc(sizeof(Datum) * Max(ncands, 1));
	Datum	   *csk = palloc(sizeof(Datum) * Max(ncands, 1));
	Params		q = {0};
	HTAB	   *logical = origin_map(n);
	uint64		m = 0;

	if (ncands == 0)
		return;
	for (uint64 i = 0; i < ncands; i++)
	{
		bool		pnull;
		bool		snull;
		Datum		sd = SPI_getbinval(cands->vals[i], cands->tupdesc, 2, &snull);
		Datum		pd = SPI_getbinval(cands->vals[i], cands->tupdesc, 1, &pnull);
		struct varlena *sv;
		int			o;

		if (pnull || snull)
			continue;
		sv = DatumGetAdjkeyPP(sd);
		o = origin_of(map, ADJKEY_DATA(sv), ADJKEY_LEN(sv));
		if (o < 0)
			continue;
		cpk[m] = pd;
		csk[m] = key_datum(parts[o], lens[o]);	/* the logical sort key */
		m++;
	}
	if (m == 0)
		return;
	for (int i = 0; i < n; i++)
		origin_add(logical, parts[i], lens[i], i);
	initStringInfo(&sql);
	/* one candidate per (pk, sk), however many index rows have it */
	appendStringInfo(&sql, "SELECT b.%s, b.%s FROM %s b JOIN (SELECT DISTINCT u.pk, u.sk FROM ROWS FROM "
					 "(pg_catalog.unnest($1::%s.adjkey[]), pg_catalog.unnest($2::%s.adjkey[])) "
					 "AS u(pk, sk)) c ON b.%s OPERATOR(%s.=) c.pk AND b.%s OPERATOR(%s.=) c.sk",
					 g->pk_name, g->sk_name, g->base_name, g->op_schema, g->op_schema,
					 g->pk_name, g->op_schema, g->sk_name, g->op_schema);
	param(&q, cat->keyarraytype, key_array(cpk, m));
	param(&q, cat->keyarraytype, key_array(csk, m));
	if (tmpl->conv->filter != NULL)
		appendStringInfo(&sql, " WHERE b.%s OPERATOR(pg_catalog.@>) $%d", g->data_name,
						 param(&q, JSONBOID, PointerGetDatum(tmpl->conv->filter)));
	run(sql.data, &q, InvalidOid);
	emit_level(logical, parts, lens, 1, 2, 2, true, cb, arg);
}

/* One chunk of a level: parts[0..n) are partitions (forward: the nodes). */
static void
level_chunk(GraphTable *g, const GraphScan *tmpl, const char **parts, const int *lens, int n,
			bool rls, GraphEdgeCallback cb, void *arg)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	HTAB	   *map = origin_map(n);
	StringInfoData sql;
	Params		p = {0};
	Datum	   *keys;
	int			nkeys = 0;
	int			per = tmpl->reverse ? Max(g->inv_shards, 1) : 1;
	bool		confirm;

	keys = palloc(sizeof(Datum) * n * per);
	for (int i = 0; i < n; i++)
	{
		int			ns;
		Datum	   *sk = tmpl->reverse ? shard_keys(g, parts[i], lens[i], &ns) : NULL;

		if (!tmpl->reverse)
		{
			keys[nkeys++] = key_datum(parts[i], lens[i]);
			origin_add(map, parts[i], lens[i], i);
			continue;
		}
		for (int s = 0; s < ns; s++)
		{
			struct varlena *k = DatumGetAdjkeyPP(sk[s]);

			keys[nkeys++] = sk[s];
			origin_add(map, ADJKEY_DATA(k), ADJKEY_LEN(k), i);
		}
	}

	initStringInfo(&sql);
	if (!tmpl->reverse)
	{
		appendStringInfo(&sql, "SELECT %s, %s FROM %s WHERE %s OPERATOR(%s.=) ANY ($%d)",
						 g->pk_name, g->sk_name, g->base_name, g->pk_name, g->op_schema,
						 param(&p, cat->keyarraytype, key_array(keys, nkeys)));
		append_prefix(&sql, g, g->sk_name, tmpl, false, &p);
		append_filter(&sql, g->data_name, tmpl, &p);
		append_live(&sql, g, NULL);
		run(sql.data, &p, InvalidOid);
		emit_level(map, parts, lens, 1, 2, 1, false, cb, arg);
		return;
	}
	confirm = reverse_confirmed(g, tmpl, rls);
	appendStringInfo(&sql, "SELECT %s, %s FROM %s WHERE %s OPERATOR(%s.=) ANY ($%d)",
					 g->inv_pk_name, g->inv_sk_name, g->inv_name, g->inv_sk_name, g->op_schema,
					 param(&p, cat->keyarraytype, key_array(keys, nkeys)));
	if (!confirm)
		append_filter(&sql, quote_identifier(g->payload), tmpl, &p);
	append_live(&sql, g, NULL);
	run(sql.data, &p, g->inv_owner);
	if (!confirm)
	{
		emit_level(map, parts, lens, 1, 0, 2, true, cb, arg);
		return;
	}
	level_confirmed(g, tmpl, parts, lens, n, map, cb, arg);
}

/* Edges of a chunk that does not start at node 0: origins shifted back. */
typedef struct LevelShift
{
	GraphEdgeCallback cb;
	void	   *arg;
	int			shift;
} LevelShift;

static bool
level_shift_cb(void *arg, const GraphEdge *edge)
{
	LevelShift *s = (LevelShift *) arg;
	GraphEdge	e = *edge;

	e.origin += s->shift;
	return s->cb(s->arg, &e);
}

void
spi_scan_level(GraphTable *g, const GraphScan *tmpl, const char **parts, const int *lens,
			   int n, bool rls, GraphEdgeCallback cb, void *arg)
{
	for (int start = 0; start < n; start += LEVEL_CHUNK)
	{
		int			m = Min(LEVEL_CHUNK, n - start);
		GraphEdgeCallback wrap = cb;

		/* origins are indexes into this chunk: shift them back */
		if (start == 0)
			level_chunk(g, tmpl, parts, lens, m, rls, wrap, arg);
		else
		{
			LevelShift	s;

			s.cb = cb;
			s.arg = arg;
			s.shift = start;
			level_chunk(g, tmpl, parts + start, lens + start, m, rls, level_shift_cb, &s);
		}
	}
}
