/*-------------------------------------------------------------------------
 *
 * index_guard_foreign.c
 *	  ALTER FOREIGN TABLE ... OPTIONS of a foreign table taking part in an
 *	  inverted index, at ddl_command_start (index_guard.c's header says
 *	  what a DBA may do).
 *
 * A foreign table's options say which remote rows it shows (postgres_fdw's
 * table_name, schema_name and column_name; another wrapper's file name or
 * query): changing them swaps the rows of a foreign base table or
 * partition, or of an index table's foreign partition, for others without
 * a write that the triggers could see, and the index would keep the old
 * ones.  So ALTER [FOREIGN] TABLE ... OPTIONS and ... ALTER COLUMN ...
 * OPTIONS of such a table are refused (0A000), before they start.  The
 * way to re-point a partition is to detach it, alter it and attach it
 * again: DETACH takes its rows out of the index and ATTACH indexes the
 * new ones.  postgres_fdw's table options that change no row (fetch_size,
 * batch_size, use_remote_estimate, updatable, truncatable, async_capable,
 * analyze_sampling) stay allowed; any other wrapper's are all refused, as
 * adjlist cannot tell.  What happens behind a foreign table's back (ALTER
 * SERVER, a user mapping, writes on the remote server) is not seen either:
 * the README says to run rebuild_inverted_index() then.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "foreign/foreign.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "utils/lsyscache.h"
#include "utils/relcache.h"

#include "catalog.h"
#include "compat.h"
#include "index_guard_int.h"
#include "registry.h"

/* postgres_fdw's table options that change no row */
static const char *const harmless_options[] = {
	"fetch_size", "batch_size", "use_remote_estimate", "updatable", "truncatable",
	"async_capable", "analyze_sampling"
};

/* Does a table-level OPTIONS list of foreign table relid change no row? */
static bool
harmless(Oid relid, List *options)
{
	ForeignServer *server = GetForeignServer(GetForeignTable(relid)->serverid);
	ListCell   *lc;

	if (strcmp(GetForeignDataWrapper(server->fdwid)->fdwname, "postgres_fdw") != 0)
		return false;
	foreach(lc, options)
	{
		const char *name = lfirst_node(DefElem, lc)->defname;
		bool		found = false;

		for (size_t i = 0; i < lengthof(harmless_options); i++)
			if (strcmp(name, harmless_options[i]) == 0)
				found = true;
		if (!found)
			return false;
	}
	return true;
}

void
guard_refuse_foreign_options(Node *parsetree)
{
	AlterTableStmt *stmt = (AlterTableStmt *) parsetree;
	Oid			relid;
	Oid			base;
	ListCell   *lc;

	if (!IsA(parsetree, AlterTableStmt) || stmt->objtype == OBJECT_TYPE)
		return;
	relid = guard_rangevar_oid(stmt->relation);
	/* (ALTER refuses a role that does not own the table itself) */
	if (get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE ||
		!adjlist_rel_ownercheck(relid, GetUserId()))
		return;
	base = guard_base_of(relid);
	if (!OidIsValid(base))
		base = registry_base_of_index(relid);
	if (!OidIsValid(base))
		return;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype != AT_AlterColumnGenericOptions &&
			(cmd->subtype != AT_GenericOptions || harmless(relid, (List *) cmd->def)))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("cannot change the options of foreign table \"%s\", which takes part in an inverted index of table \"%s\"",
						get_rel_name(relid), get_rel_name(base)),
				 errdetail("The options say which remote rows the table holds; the index would keep the rows it has."),
				 errhint("Detach the partition, alter it and attach it again, which indexes its rows; or drop the index, alter the table and create the index again.")));
	}
}
