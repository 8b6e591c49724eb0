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
 *		 with the same characters; a foreign table's column too (its
 *		 definition only: the remote table is not touched);
 *	  5. those objects are created again on text, under their names, from
 *		 their rewritten definitions (uninstall_rewrite.c);
 *	  6. nothing outside the extension may depend on it any more, or the
 *		 whole transaction is undone with the list (a safety net: the plan
 *		 should have refused it).
 *
 * The caller must own every table and view it changes (a superuser does),
 * but each statement of steps 3 to 5 runs as the owner of the table or view
 * it changes, the way core's REINDEX, CLUSTER and VACUUM run a table's index
 * functions: re-adding a CHECK constraint, rewriting a table for a type
 * change (which re-checks its constraints) or adding a foreign key again
 * evaluates what the owner wrote -- functions of theirs, which must never run
 * with a superuser's rights.  So each runs with the owner's rights alone,
 * as a security-restricted operation (no SET ROLE, no temporary objects
 * left for the caller to find), with search_path pinned to pg_catalog,
 * pg_temp, and whatever settings it changed are rolled back after it.  The
 * plan is made with the same search_path, so that every name the
 * statements use that is not pg_catalog's is written with its schema, and
 * checks first that each owner can run its statements.  An error at any
 * step rolls everything back (the role and settings with it, as the
 * transaction's abort restores them), and it can be run again once the
 * cause is fixed.
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
#include "utils/guc.h"
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

/*
 * sql as owner: adjlist_become() (the role, row security not forced on its
 * own tables, search_path pinned), a security-restricted operation as core
 * makes REINDEX one, and what the owner's code SET rolled back, not kept
 * (core's AtEOXact_GUC(false) after REINDEX).  On error the transaction's
 * or subtransaction's abort restores the role and the settings.
 */
static void
run_as(Oid owner, const char *sql)
{
	AdjlistRoleSwitch role;
	Oid			userid;
	int			sec_context;

	adjlist_become(owner, &role);
	GetUserIdAndSecContext(&userid, &sec_context);
	SetUserIdAndSecContext(userid, sec_context | SECURITY_RESTRICTED_OPERATION);
	run(sql);
	AtEOXact_GUC(false, role.guc_nest);
	role.guc_nest = -1;			/* popped: adjlist_unbecome() only restores the role */
	adjlist_unbecome(&role);
}

static void
run_steps(ReturnSetInfo *rsinfo, List *steps)
{
	ListCell   *lc;

	foreach(lc, steps)
	{
		UninstallStep *s = lfirst(lc);

		run_as(s->owner, s->sql);
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
	int			nest;

	InitMaterializedSRF(fcinfo, 0);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* the path the statements run with, for writing them */
	nest = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);

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

		run_as(col->owner, col->sql);
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
	AtEOXact_GUC(false, nest);
	SPI_finish();
	return (Datum) 0;
}
