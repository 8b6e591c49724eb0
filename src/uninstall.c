/*-------------------------------------------------------------------------
 *
 * uninstall.c
 *	  adjlist_uninstall(): what to run before DROP EXTENSION adjlist to keep
 *	  every row.
 *
 * DROP EXTENSION adjlist refuses while anything depends on it (a column of
 * type adjkey, a trigger, an index table's key), listing what does; DROP
 * EXTENSION ... CASCADE would drop those columns with their data.  This
 * function removes the dependencies instead: it drops every inverted index
 * (index and counter tables, triggers, registrations: derived data, which
 * the base tables still hold) and turns every adjkey column of a user
 * table into text (adjkey[] into text[]), with the same characters, so that
 * DROP EXTENSION then succeeds and the data stays.  It runs as the caller,
 * who must own every table it changes (a superuser does); anything it
 * cannot do (a view over an adjkey column, a table of another owner, a
 * table partitioned by an adjkey column) is an error that rolls it all
 * back, and it can be run again once that is fixed.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/tuplestore.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "index_admin.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_uninstall);

static void
put_row(ReturnSetInfo *rsinfo, const char *action, const char *object)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = CStringGetTextDatum(action);
	values[1] = CStringGetTextDatum(object);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
}

/* adjlist_uninstall() RETURNS TABLE (action text, object text) */
Datum
adjlist_uninstall(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid		   *bases;
	Oid		   *counters;
	Oid		   *indexes;
	int			n;
	Oid			argtypes[2] = {OIDOID, OIDOID};
	Datum		args[2];
	SPITupleTable *tt;
	uint64		ncols;

	InitMaterializedSRF(fcinfo, 0);

	/* the inverted indexes: derived data, dropped */
	n = registry_all(&indexes, &bases, &counters);
	for (int i = 0; i < n; i++)
	{
		char	   *name = adjlist_qualified_name(indexes[i]);

		drop_index(indexes[i]);
		put_row(rsinfo, "dropped inverted index", name);
	}

	/* every adjkey (or adjkey[]) column of a user table becomes text */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	args[0] = ObjectIdGetDatum(cat->keytype);
	args[1] = ObjectIdGetDatum(cat->keyarraytype);
	if (SPI_execute_with_args("SELECT c.oid, a.attname::pg_catalog.text, a.atttypid, "
							  "EXISTS (SELECT FROM pg_catalog.pg_partitioned_table p "
							  "WHERE p.partrelid OPERATOR(pg_catalog.=) c.oid "
							  "AND a.attnum OPERATOR(pg_catalog.=) ANY (p.partattrs::pg_catalog.int2[])) "
							  "FROM pg_catalog.pg_attribute a "
							  "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid "
							  "WHERE a.atttypid OPERATOR(pg_catalog.=) ANY (ARRAY[$1, $2]) "
							  "AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped "
							  "AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,f}'::pg_catalog.\"char\"[]) "
							  "AND NOT c.relispartition "
							  "ORDER BY c.oid, a.attnum",
							  2, argtypes, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not list the adjkey columns");
	tt = SPI_tuptable;
	ncols = SPI_processed;
	for (uint64 i = 0; i < ncols; i++)
	{
		bool		isnull;
		Oid			rel = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 1, &isnull));
		char	   *col = SPI_getvalue(tt->vals[i], tt->tupdesc, 2);
		bool		array = DatumGetObjectId(SPI_getbinval(tt->vals[i], tt->tupdesc, 3, &isnull))
			== cat->keyarraytype;
		char	   *qrel = adjlist_qualified_name(rel);
		int			ret;

		if (DatumGetBool(SPI_getbinval(tt->vals[i], tt->tupdesc, 4, &isnull)))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of table %s is in its partition key", col, qrel),
					 errdetail("PostgreSQL cannot change the type of a column a table is partitioned by, and the bounds of its partitions are adjkey values."),
					 errhint("Move the rows into a table partitioned by a text column (or detach the partitions and make them plain tables), then run adjlist_uninstall() again.")));
		if (!adjlist_rel_ownercheck(rel, GetUserId()))
			ereport(ERROR,
					(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
					 errmsg("must be owner of table %s to change its column \"%s\"",
							get_rel_name(rel), col),
					 errhint("Run adjlist_uninstall() as a superuser, or as a role that owns every table with adjkey columns.")));
		ret = SPI_execute(psprintf("ALTER TABLE %s ALTER COLUMN %s TYPE %s USING %s::%s",
								   qrel, quote_identifier(col),
								   array ? "pg_catalog.text[]" : "pg_catalog.text",
								   quote_identifier(col),
								   array ? "pg_catalog.text[]" : "pg_catalog.text"),
						  false, 0);
		if (ret != SPI_OK_UTILITY)
			elog(ERROR, "could not change the type of column \"%s\" of %s", col, qrel);
		put_row(rsinfo, array ? "adjkey[] column is now text[]" : "adjkey column is now text",
				psprintf("%s.%s", qrel, quote_identifier(col)));
	}
	SPI_finish();
	return (Datum) 0;
}
