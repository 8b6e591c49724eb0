/*-------------------------------------------------------------------------
 *
 * uninstall.c
 *	  adjlist_uninstall(): what to run before DROP EXTENSION adjlist to keep
 *	  every row.
 *
 * DROP EXTENSION adjlist refuses while anything depends on it (a column of
 * type adjkey, a trigger, an index table's key, a default or a view that
 * uses keys), listing what does; DROP EXTENSION ... CASCADE would drop
 * those columns with their data.  This function removes the dependencies
 * instead, in one transaction:
 *
 *	  1. the plan (uninstall_plan.c): every object that depends on the
 *		 extension, found in pg_depend and sorted into what goes away, what
 *		 is rewritten to text and what cannot be -- which is refused, all
 *		 of it in one error, before anything is changed;
 *	  2. every inverted index is dropped (index and counter tables,
 *		 triggers, registrations: derived data, which the base tables still
 *		 hold);
 *	  3. the column defaults, CHECK constraints, partial indexes, foreign
 *		 keys and views that the type change would break are dropped;
 *	  4. every adjkey column of a user table becomes text (adjkey[] text[]),
 *		 with the same characters;
 *	  5. those objects are created again on text, under their names, from
 *		 their rewritten definitions (uninstall_rewrite.c);
 *	  6. nothing outside the extension may depend on it any more, or the
 *		 whole transaction is undone with the list (a safety net: the plan
 *		 should have refused it).
 *
 * It runs as the caller, who must own every table and view it changes (a
 * superuser does).  An error at any step rolls everything back, and it can
 * be run again once the cause is fixed.
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
#include "uninstall.h"

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

/* the statement that failed, in the error's context */
static void
step_context(void *arg)
{
	errcontext("adjlist_uninstall() running: %s", (const char *) arg);
}

static void
run(const char *sql)
{
	ErrorContextCallback callback;

	callback.callback = step_context;
	callback.arg = (void *) sql;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	if (SPI_execute(sql, false, 0) < 0)
		elog(ERROR, "could not run: %s", sql);
	error_context_stack = callback.previous;
}

static void
run_steps(ReturnSetInfo *rsinfo, List *steps)
{
	ListCell   *lc;

	foreach(lc, steps)
	{
		UninstallStep *s = lfirst(lc);

		run(s->sql);
		if (s->action != NULL)
			put_row(rsinfo, s->action, s->object);
	}
}

/* adjlist_uninstall() RETURNS TABLE (action text, object text) */
Datum
adjlist_uninstall(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	UninstallPlan *plan;
	Oid		   *bases;
	Oid		   *counters;
	Oid		   *indexes;
	int			n;
	ListCell   *lc;
	List	   *left;

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	/* everything worked out, and every refusal made, before any change */
	plan = uninstall_plan();

	/* the inverted indexes: derived data, dropped */
	n = registry_all(&indexes, &bases, &counters);
	for (int i = 0; i < n; i++)
	{
		char	   *name = adjlist_qualified_name(indexes[i]);

		drop_index(indexes[i]);
		put_row(rsinfo, "dropped inverted index", name);
	}

	/* what the type changes would break: dropped, to be re-created on text */
	run_steps(rsinfo, plan->before);
	/* every adjkey (or adjkey[]) column of a user table becomes text */
	foreach(lc, plan->columns)
	{
		UninstallColumn *col = lfirst(lc);
		char	   *qrel = adjlist_qualified_name(col->rel);
		const char *type = col->array ? "pg_catalog.text[]" : "pg_catalog.text";

		run(psprintf("ALTER TABLE %s ALTER COLUMN %s TYPE %s USING %s::%s",
					 qrel, quote_identifier(col->name), type, quote_identifier(col->name), type));
		put_row(rsinfo, col->array ? "adjkey[] column is now text[]" : "adjkey column is now text",
				psprintf("%s.%s", qrel, quote_identifier(col->name)));
	}
	run_steps(rsinfo, plan->after);

	/* nothing may be left for DROP EXTENSION to refuse (or to cascade to) */
	left = uninstall_dependents();
	if (left != NIL)
	{
		StringInfoData detail;

		initStringInfo(&detail);
		foreach(lc, left)
			appendStringInfo(&detail, "%s%s", detail.len > 0 ? "\n" : "", (char *) lfirst(lc));
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 errmsg("adjlist_uninstall() would leave %d object%s that depend%s on adjlist",
						list_length(left), list_length(left) == 1 ? "" : "s",
						list_length(left) == 1 ? "s" : ""),
				 errdetail("%s", detail.data),
				 errhint("Nothing was changed. Drop or redefine these objects without adjlist's types, functions and operators, then call adjlist_uninstall() again.")));
	}
	SPI_finish();
	return (Datum) 0;
}
