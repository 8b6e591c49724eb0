/*-------------------------------------------------------------------------
 *
 * index_write_sql.c
 *	  The index writer's SQL path: saved statements run through SPI with
 *	  the latest snapshot (index_execute_plan()), for an index or counter
 *	  table the executor path does not write (a partitioned or foreign
 *	  table, one whose key is not its primary key).
 *	  index_write.c says when each path is taken and what they share.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_write_int.h"
#include "plan_cache.h"

/*
 * " ON CONFLICT (key) DO UPDATE SET the other columns" (DO NOTHING when
 * the key is every column): the upsert of an index row.
 */
static void
append_upsert(StringInfo buf, const IndexWriter *w, char **colnames)
{
	appendStringInfoString(buf, " ON CONFLICT (");
	for (int i = 0; i < w->nkeys; i++)
		appendStringInfo(buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
	if (w->ncols == w->nkeys)
	{
		appendStringInfoString(buf, ") DO NOTHING");
		return;
	}
	appendStringInfoString(buf, ") DO UPDATE SET ");
	for (int i = w->nkeys; i < w->ncols; i++)
		appendStringInfo(buf, "%s%s = EXCLUDED.%s", i > w->nkeys ? ", " : "",
						 quote_identifier(colnames[i]), quote_identifier(colnames[i]));
}

/*
 * Buffered SQL writes: rows a batch at a time, as arrays of the columns'
 * values unnested side by side into one INSERT, when every column's type
 * has an array type (else a row at a time).
 *
 * WRITE_IF_ABSENT inserts the rows whose key is not there.  A plain insert
 * costs less than ON CONFLICT's speculative one; its caller makes sure
 * that nobody else inserts those keys meanwhile (a build holds the base
 * rows' locks), so a unique violation would be a bug, and fails the build.
 *
 * On a table Citus distributes, many rows (put_edges, a rebuild, counter
 * deltas) would otherwise cost a statement each, a round trip to a
 * worker: WRITE_UPSERT then writes a batch as one INSERT ... SELECT ...
 * ON CONFLICT DO UPDATE (of a key given twice in a batch the last row, as
 * row after row would leave it), WRITE_APPEND as one INSERT ... SELECT,
 * which Citus splits by shard.
 */
static void
bulk_sql_setup(IndexWriter *w, char **colnames)
{
	StringInfoData buf;
	const char *qrel = adjlist_qualified_name(RelationGetRelid(w->rel));

	w->arraytypes = palloc(sizeof(Oid) * w->ncols);
	for (int i = 0; i < w->ncols; i++)
		if (!OidIsValid(w->arraytypes[i] = get_array_type(w->types[i])))
			return;
	initStringInfo(&buf);
	appendStringInfo(&buf, "INSERT INTO %s AS t (", qrel);
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
	appendStringInfoString(&buf, ") SELECT ");
	if (w->mode == WRITE_UPSERT)
	{
		appendStringInfoString(&buf, "DISTINCT ON (");
		for (int i = 0; i < w->nkeys; i++)
			appendStringInfo(&buf, "%sr.%s", i ? ", " : "", quote_identifier(colnames[i]));
		appendStringInfoString(&buf, ") ");
	}
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%sr.%s", i ? ", " : "", quote_identifier(colnames[i]));
	appendStringInfoString(&buf, " FROM ROWS FROM (");
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%spg_catalog.unnest($%d::%s)", i ? ", " : "", i + 1,
						 adjlist_type_sql(w->arraytypes[i]));
	appendStringInfoString(&buf, ") WITH ORDINALITY AS r (");
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%s, ", quote_identifier(colnames[i]));
	appendStringInfoString(&buf, "adjlist_row)");
	if (w->mode == WRITE_IF_ABSENT)
	{
		appendStringInfo(&buf, " WHERE NOT EXISTS (SELECT FROM %s AS e WHERE ", qrel);
		for (int i = 0; i < w->nkeys; i++)
			appendStringInfo(&buf, "%se.%s %s r.%s", i ? " AND " : "", quote_identifier(colnames[i]),
							 adjlist_equality_sql(w->types[i]), quote_identifier(colnames[i]));
		appendStringInfoChar(&buf, ')');
	}
	else if (w->mode == WRITE_UPSERT)
	{
		appendStringInfoString(&buf, " ORDER BY ");
		for (int i = 0; i < w->nkeys; i++)
			appendStringInfo(&buf, "r.%s, ", quote_identifier(colnames[i]));
		appendStringInfoString(&buf, "r.adjlist_row DESC");
		append_upsert(&buf, w, colnames);
	}
	w->bulk_sql = buf.data;
	w->bufsize = w->mode == WRITE_IF_ABSENT ? WRITE_BATCH : SQL_BATCH;
	w->bufcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist bulk rows",
									  ALLOCSET_DEFAULT_SIZES);
	w->bufvals = palloc(sizeof(Datum *) * w->ncols);
	w->bufnulls = palloc(sizeof(bool *) * w->ncols);
	for (int i = 0; i < w->ncols; i++)
	{
		w->bufvals[i] = palloc(sizeof(Datum) * w->bufsize);
		w->bufnulls[i] = palloc(sizeof(bool) * w->bufsize);
	}
}

/* Write the buffered rows (bulk_sql_setup()). */
void
index_sql_flush(IndexWriter *w)
{
	Datum	   *arrays;
	int			dims[1];
	int			lbs[1] = {1};

	if (w->nbuf == 0)
		return;
	arrays = palloc(sizeof(Datum) * w->ncols);
	dims[0] = w->nbuf;
	for (int i = 0; i < w->ncols; i++)
	{
		int16		typlen;
		bool		typbyval;
		char		typalign;

		get_typlenbyvalalign(w->types[i], &typlen, &typbyval, &typalign);
		arrays[i] = PointerGetDatum(construct_md_array(w->bufvals[i], w->bufnulls[i], 1, dims, lbs,
													   w->types[i], typlen, typbyval, typalign));
	}
	index_execute_plan(adjlist_plan(w->bulk_sql, w->ncols, w->arraytypes), arrays, NULL,
					   SPI_OK_INSERT);
	pfree(arrays);
	w->nbuf = 0;
	MemoryContextReset(w->bufcxt);
}

void
index_sql_buffer(IndexWriter *w, Datum *values, bool *nulls)
{
	MemoryContext old = MemoryContextSwitchTo(w->bufcxt);

	for (int i = 0; i < w->ncols; i++)
	{
		w->bufnulls[i][w->nbuf] = nulls[i];
		w->bufvals[i][w->nbuf] = nulls[i] ? (Datum) 0 :
			datumCopy(values[i], w->typbyvals[i], w->typlens[i]);
	}
	MemoryContextSwitchTo(old);
	if (++w->nbuf == w->bufsize)
		index_sql_flush(w);
}

/*
 * A multiset's statements: delete one row equal to the whole row, and
 * insert a row unless its key is there (index_writer_put_new()).
 */
static void
build_multiset_sql(IndexWriter *w, char **colnames, const char *qrel)
{
	StringInfoData buf;

	/* one row of the key whose other columns are the same, as text */
	initStringInfo(&buf);
	appendStringInfo(&buf, "DELETE FROM %s WHERE (tableoid, ctid) OPERATOR(pg_catalog.=) "
					 "(SELECT t.tableoid, t.ctid FROM %s t WHERE ", qrel, qrel);
	for (int i = 0; i < w->nkeys; i++)
		appendStringInfo(&buf, "%st.%s %s $%d", i ? " AND " : "",
						 quote_identifier(colnames[i]), adjlist_equality_sql(w->types[i]), i + 1);
	if (w->ncols > w->nkeys)
	{
		appendStringInfoString(&buf, " AND ROW(");
		for (int i = w->nkeys; i < w->ncols; i++)
			appendStringInfo(&buf, "%st.%s", i > w->nkeys ? ", " : "", quote_identifier(colnames[i]));
		/* a row's text is never null: plain equality, spelled out */
		appendStringInfoString(&buf, ")::pg_catalog.text OPERATOR(pg_catalog.=) ROW(");
		for (int i = w->nkeys; i < w->ncols; i++)
			appendStringInfo(&buf, "%s$%d::%s", i > w->nkeys ? ", " : "", i + 1,
							 adjlist_type_sql(w->types[i]));
		appendStringInfoString(&buf, ")::pg_catalog.text");
	}
	appendStringInfoString(&buf, " LIMIT 1)");
	w->delete_one_sql = buf.data;

	initStringInfo(&buf);
	appendStringInfo(&buf, "INSERT INTO %s AS t (", qrel);
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
	appendStringInfoString(&buf, ") SELECT ");
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%s$%d", i ? ", " : "", i + 1);
	appendStringInfo(&buf, " WHERE NOT EXISTS (SELECT FROM %s e WHERE ", qrel);
	for (int i = 0; i < w->nkeys; i++)
		appendStringInfo(&buf, "%se.%s %s $%d", i ? " AND " : "",
						 quote_identifier(colnames[i]), adjlist_equality_sql(w->types[i]), i + 1);
	appendStringInfoChar(&buf, ')');
	w->insert_new_sql = buf.data;
}

void
index_sql_build(IndexWriter *w, char **colnames, bool unique_key, bool deferrable, bool bulk)
{
	char	   *qrel = adjlist_qualified_name(RelationGetRelid(w->rel));
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfo(&buf, "INSERT INTO %s AS t (", qrel);
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
	appendStringInfoString(&buf, ") VALUES (");
	for (int i = 0; i < w->ncols; i++)
		appendStringInfo(&buf, "%s$%d", i ? ", " : "", i + 1);
	appendStringInfoChar(&buf, ')');
	if (w->mode == WRITE_IF_ABSENT)
	{
		if (!unique_key || deferrable)
			elog(ERROR, "table \"%s\" has no immediate unique key to skip rows by",
				 RelationGetRelationName(w->rel));
		appendStringInfoString(&buf, " ON CONFLICT (");
		for (int i = 0; i < w->nkeys; i++)
			appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
		appendStringInfoString(&buf, ") DO NOTHING");
		bulk_sql_setup(w, colnames);
	}
	else if (w->mode == WRITE_UPSERT && unique_key && !deferrable)
	{
		append_upsert(&buf, w, colnames);
	}
	else if (w->mode == WRITE_UPSERT && !unique_key)
	{
		/*
		 * No unique index to name (a partitioned table over foreign
		 * partitions cannot have one): the row is deleted first, and a
		 * remote primary key still makes the insert idempotent.
		 */
		appendStringInfoString(&buf, " ON CONFLICT DO NOTHING");
		w->remove_first_sql = "";
	}
	w->insert_sql = buf.data;
	if (bulk && !w->multiset && w->citus &&
		(w->mode == WRITE_APPEND || (w->mode == WRITE_UPSERT && unique_key && !deferrable)))
		bulk_sql_setup(w, colnames);

	initStringInfo(&buf);
	appendStringInfo(&buf, "DELETE FROM %s WHERE ", qrel);
	for (int i = 0; i < w->nkeys; i++)
		appendStringInfo(&buf, "%s%s %s $%d", i ? " AND " : "",
						 quote_identifier(colnames[i]), adjlist_equality_sql(w->types[i]), i + 1);
	w->delete_sql = buf.data;
	if (w->ncols > w->nkeys)
	{
		initStringInfo(&buf);
		appendStringInfo(&buf, "%s RETURNING ", w->delete_sql);
		for (int i = w->nkeys; i < w->ncols; i++)
			appendStringInfo(&buf, "%s%s", i > w->nkeys ? ", " : "", quote_identifier(colnames[i]));
		w->delete_returning_sql = buf.data;
	}

	if (w->multiset)
		build_multiset_sql(w, colnames, qrel);
}

void
index_sql_put(IndexWriter *w, Datum *values, bool *nulls)
{
	char	   *n = palloc(w->ncols);

	for (int i = 0; i < w->ncols; i++)
		n[i] = nulls[i] ? 'n' : ' ';
	if (w->remove_first_sql != NULL)
		index_execute_plan(adjlist_plan(w->delete_sql, w->nkeys, w->types),
									values, n, SPI_OK_DELETE);
	index_execute_plan(adjlist_plan(w->insert_sql, w->ncols, w->types),
								values, n, SPI_OK_INSERT);
	pfree(n);
}

bool
index_sql_remove(IndexWriter *w, Datum *values, bool *nulls)
{
	char	   *n = palloc(w->ncols);

	for (int i = 0; i < w->ncols; i++)
		n[i] = nulls[i] ? 'n' : ' ';
	if (w->multiset)
		index_execute_plan(adjlist_plan(w->delete_one_sql, w->ncols, w->types),
									values, n, SPI_OK_DELETE);
	else
		index_execute_plan(adjlist_plan(w->delete_sql, w->nkeys, w->types),
									values, n, SPI_OK_DELETE);
	pfree(n);
	return SPI_processed > 0;
}

/* The same through SQL: the row is deleted, and put again if expected. */
bool
index_sql_rewrite(IndexWriter *w, Datum *oldvalues, bool *oldnulls, Datum *values, bool *nulls)
{
	char	   *n = palloc(w->ncols);
	bool		expected;

	for (int i = 0; i < w->ncols; i++)
		n[i] = nulls[i] ? 'n' : ' ';
	if (w->bulk_sql != NULL)
		index_sql_flush(w);
	index_execute_plan(adjlist_plan(w->delete_returning_sql, w->nkeys, w->types),
					   values, n, SPI_OK_DELETE_RETURNING);
	expected = SPI_processed == 1;
	for (int i = w->nkeys; expected && i < w->ncols; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
									  i - w->nkeys + 1, &isnull);

		expected = isnull == oldnulls[i] &&
			(isnull || datum_image_eq(d, oldvalues[i], w->typbyvals[i], w->typlens[i]));
	}
	pfree(n);
	if (expected)
		index_sql_put(w, values, nulls);
	return expected;
}

/*
 * The statement of index_writer_remove_all() for these columns, built at
 * first use (a writer is asked for one set of columns).
 */
void
index_sql_remove_all_setup(IndexWriter *w, int n, const int *cols)
{
	StringInfoData buf;
	TupleDesc	desc = RelationGetDescr(w->rel);

	if (w->remove_all_sql != NULL)
	{
		if (n != w->remove_all_n || memcmp(cols, w->remove_all_cols, sizeof(int) * n) != 0)
			elog(ERROR, "adjlist writer asked to remove rows by two sets of columns");
		return;
	}
	w->remove_all_n = n;
	w->remove_all_cols = palloc(sizeof(int) * Max(n, 1));
	w->remove_all_types = palloc(sizeof(Oid) * Max(n, 1));
	memcpy(w->remove_all_cols, cols, sizeof(int) * n);
	initStringInfo(&buf);
	appendStringInfo(&buf, "DELETE FROM %s WHERE true",
					 adjlist_qualified_name(RelationGetRelid(w->rel)));
	for (int i = 0; i < n; i++)
	{
		const char *col = NameStr(TupleDescAttr(desc, w->attnos[cols[i]] - 1)->attname);

		w->remove_all_types[i] = w->types[cols[i]];
		appendStringInfo(&buf, " AND %s %s $%d", quote_identifier(col),
						 adjlist_equality_sql(w->types[cols[i]]), i + 1);
	}
	w->remove_all_sql = buf.data;
}

