/*-------------------------------------------------------------------------
 *
 * index_update.c
 *	  What ALTER EXTENSION adjlist UPDATE needs from C: bringing the
 *	  inverted indexes made by 0.1 and 0.2 to the form 0.3 keeps.
 *
 * The update script (src/sql/update--0.2--0.3-*.sql) replaces the SQL
 * objects; the user's tables are brought along here, with the same code
 * that makes them for a new index, so an updated database ends as a fresh
 * one:
 *
 *	- degree counters: 0.2 kept one row per group and shard, added to in
 *	  place; 0.3 appends signed deltas and sums them on read.  The old rows
 *	  are deltas already: the shard column and the primary key go, the
 *	  index every counter table has comes;
 *	- triggers: each registered table gets the triggers of 0.3 (statement
 *	  triggers over transition tables, the guard of its index and counter
 *	  tables) in place of those of 0.1 and 0.2, whose names
 *	  install_triggers() knows and drops.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_admin.h"
#include "index_write.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_update_to_0_3);

/* adjlist's own statement on its tables: the DDL guard lets it through */
static void
exec(const char *sql, int expected)
{
	index_execute_sql(sql, false, expected);
}

/* A counter table of 0.1/0.2 in the form of 0.3. */
static void
convert_counters(Oid cnt)
{
	char	   *qcnt = adjlist_qualified_name(cnt);
	Oid			pkey;
	Relation	rel;

	LockRelationOid(cnt, AccessExclusiveLock);
	rel = table_open(cnt, NoLock);
	pkey = adjlist_primary_key_index(rel);
	table_close(rel, NoLock);
	if (OidIsValid(pkey))
		exec(psprintf("ALTER TABLE %s DROP CONSTRAINT %s", qcnt,
					  quote_identifier(get_rel_name(pkey))), SPI_OK_UTILITY);
	exec(psprintf("ALTER TABLE %s DROP COLUMN shard", qcnt), SPI_OK_UTILITY);
	exec(counters_index_sql(qcnt), SPI_OK_UTILITY);
}

/* adjlist_update_to_0_3(): run by the update script, once. */
Datum
adjlist_update_to_0_3(PG_FUNCTION_ARGS)
{
	Oid		   *indexv;
	Oid		   *basev;
	Oid		   *counterv;
	int			n;
	List	   *bases = NIL;
	ListCell   *lc;

	if (!creating_extension)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("this function runs only inside ALTER EXTENSION adjlist UPDATE")));
	n = registry_all(&indexv, &basev, &counterv);
	for (int i = 0; i < n; i++)
		bases = list_append_unique_oid(bases, basev[i]);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (int i = 0; i < n; i++)
		if (OidIsValid(counterv[i]) &&
			get_attnum(counterv[i], "shard") != InvalidAttrNumber)
			convert_counters(counterv[i]);
	SPI_finish();

	/* the registry and the counter tables changed: look them up afresh */
	registry_invalidate(InvalidOid);
	CommandCounterIncrement();
	foreach(lc, bases)
	{
		registry_invalidate(lfirst_oid(lc));
		CommandCounterIncrement();
		install_triggers(lfirst_oid(lc));
	}
	PG_RETURN_VOID();
}
