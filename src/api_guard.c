/*-------------------------------------------------------------------------
 *
 * api_guard.c
 *	  Plain writes of a table that no trigger keeps: refused.
 *
 * Where the triggers of index_sync.c cannot run, the write API writes the
 * index rows itself (write_api*.c): on a table Citus distributes, and on a
 * local table whose inverted indexes are all in API mode in a database
 * where Citus is installed (index_admin.c installs no triggers there, so
 * that Citus may distribute the table later).  A plain INSERT, UPDATE,
 * DELETE, MERGE, COPY FROM or TRUNCATE of such a table would leave its
 * indexes and counters out of date without a word, so it is refused
 * (0A000), naming the table and its index: the write API (put_edge(),
 * put_edges(), delete_edge(), delete_node()...) is the way to write it.
 *
 * Where the statements are seen:
 *
 * - at parse analysis (post_parse_analyze_hook): the target of an INSERT,
 *   UPDATE, DELETE or MERGE, of a data-modifying WITH and of EXPLAIN
 *   ANALYZE.  On the Citus coordinator this is the only place that sees
 *   the table: the plan of a distributed statement is a custom scan whose
 *   range table no longer names it.  A statement prepared before the index
 *   was created is analysed again before it runs: create_inverted_index()
 *   invalidates the base table's relcache entry (registry_invalidate()),
 *   which invalidates every cached plan that uses the table;
 * - at executor start (sync_guard.c): the result relations of a local
 *   plan, which also shows the table behind an updatable view or a rule;
 * - in the utility hook (sync_guard.c): COPY FROM and TRUNCATE (of a
 *   partitioned table, with the partitions it reaches).
 *
 * The write API's own statements go through: each is prepared and run by
 * plan_cache.c, which tells its text (adjlist_plan_running_sql()); a
 * statement with another text, such as one a user trigger runs during a
 * put, is the user's and is checked.  Also let through: a session in
 * session_replication_role = replica (a superuser's setting, in which no
 * trigger fires either: the loader takes the index on itself, and
 * rebuild_inverted_index() mends it), and a dump's restore run by the
 * table's owner or a superuser (restoring_dump(), index_sync_check.c),
 * whose dumped index and counter rows are the index.
 *
 * The answer for a relation is cached (rel_cache.c) until its next
 * relcache invalidation, or its base table's, or the registry's; a table
 * without indexes costs a hash lookup per statement.  Creating an index,
 * installing or dropping triggers and distributing the table invalidate
 * the base table.  Like the other hooks, this runs only in a backend that
 * has loaded the library (README: session_preload_libraries).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "nodes/plannodes.h"
#include "parser/analyze.h"
#include "parser/parsetree.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "catalog.h"
#include "compat.h"
#include "index_admin.h"
#include "index_sync_check.h"
#include "plan_cache.h"
#include "registry.h"
#include "rel_cache.h"

typedef struct GuardEntry
{
	RelCacheEntry head;
	Oid			base;			/* the registered base table, or InvalidOid */
	Oid			index;			/* the index to name: InvalidOid, not guarded */
} GuardEntry;

static RelCache guard_cache = REL_CACHE_INIT("adjlist api guard cache", GuardEntry, 1024, NULL);
static uint64 guard_generation = 0;

static post_parse_analyze_hook_type prev_post_parse_analyze = NULL;

void
api_guard_relcache_invalidate(Oid relid)
{
	HASH_SEQ_STATUS status;
	GuardEntry *e;

	guard_generation++;
	if (guard_cache.hash == NULL)
		return;
	hash_seq_init(&status, guard_cache.hash);
	while ((e = (GuardEntry *) hash_seq_search(&status)) != NULL)
		if (!OidIsValid(relid) || e->head.relid == relid || e->base == relid ||
			relid == adjlist_registry_oid_if_loaded())
			e->head.valid = false;
}

/*
 * Does an enabled adjlist_sync_trigger() AFTER INSERT trigger keep the
 * indexes of base (api_triggers_keep() of write_api_table.c, from
 * pg_trigger: the utility hook runs before the statement locks the table,
 * and a lock taken here would be upgraded by TRUNCATE)?
 */
static bool
triggers_keep(Oid base)
{
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		keep = false;

	ScanKeyInit(&key, Anum_pg_trigger_tgrelid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(base));
	scan = systable_beginscan(tgrel, TriggerRelidNameIndexId, true, NULL, 1, &key);
	while (!keep && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_trigger tg = (Form_pg_trigger) GETSTRUCT(tup);

		keep = sync_trigger_keeps_inserts(tg->tgtype, tg->tgenabled, tg->tgfoid);
	}
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	return keep;
}

/*
 * The first inverted index of relid (a base table or a partition of one)
 * when no trigger keeps its indexes; InvalidOid otherwise.  *base: its
 * registered base table, if any.
 */
static Oid
unkept_index(Oid relid, Oid *base)
{
	char		kind = get_rel_relkind(relid);
	TableIndexes *ti;

	*base = InvalidOid;
	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE &&
		kind != RELKIND_FOREIGN_TABLE)
		return InvalidOid;
	if (!admin_citus_installed() || !OidIsValid(get_extension_oid("adjlist", true)))
		return InvalidOid;
	ti = registry_lookup_unchecked(relid);
	if (ti->nindexes == 0)
		return InvalidOid;
	*base = ti->baserel;
	/* a trigger-mode index has the triggers (index_admin.c) */
	for (int i = 0; i < ti->nindexes; i++)
		if (ti->indexes[i].mode != INDEX_MODE_API)
			return InvalidOid;
	if (triggers_keep(ti->baserel))
		return InvalidOid;
	return ti->indexes[0].indexrel;
}

/* The index whose drift a plain write of relid would cause, or InvalidOid. */
static Oid
guarded_index(Oid relid, Oid *base)
{
	GuardEntry *e;
	uint64		generation;
	Oid			index;
	Oid			b;

	if (relid < FirstNormalObjectId || creating_extension)
		return InvalidOid;
	e = (GuardEntry *) rel_cache_find(&guard_cache, relid);
	if (e != NULL && e->head.valid)
	{
		*base = e->base;
		return e->index;
	}
	generation = guard_generation;
	index = unkept_index(relid, &b);
	/* kept unless an invalidation arrived meanwhile */
	e = (GuardEntry *) rel_cache_enter(&guard_cache, relid);
	e->base = b;
	e->index = index;
	e->head.valid = (generation == guard_generation);
	*base = b;
	return index;
}

/*
 * May this session write relid plainly: the write API's own statement
 * (its text, sql, is the one plan_cache.c runs), replica mode, or a
 * restore by the owner or a superuser?
 */
static bool
plain_write_allowed(Oid relid, const char *sql)
{
	const char *own = adjlist_plan_running_sql();

	if (own != NULL && sql != NULL && (own == sql || strcmp(own, sql) == 0))
		return true;
	if (SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA)
		return true;
	return restoring_dump() &&
		(superuser() || adjlist_rel_ownercheck(relid, GetUserId()));
}

/* Refuse what, a plain write of relid, if no trigger keeps its indexes. */
static void
check_target(Oid relid, const char *what, const char *sql)
{
	Oid			base;
	Oid			index = guarded_index(relid, &base);
	bool		truncate = strcmp(what, "TRUNCATE") == 0;

	if (!OidIsValid(index) || plain_write_allowed(relid, sql))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("%s on table \"%s\" is not supported: its inverted index \"%s\" is kept by the write API only",
					what, get_rel_name(relid), get_rel_name(index)),
			 errdetail("%s, so no trigger runs on it, and this %s would leave the index out of date.",
					   adjlist_is_citus_table(base) ?
					   psprintf("Citus distributes table \"%s\"", get_rel_name(base)) :
					   psprintf("The inverted indexes of table \"%s\" are all in API mode in a database where Citus is installed",
								get_rel_name(base)),
					   what),
			 truncate ?
			 errhint("Delete the items with delete_node() or delete_edge(), or drop the index with drop_inverted_index(), truncate the table, and create the index again.") :
			 errhint("Write it with put_edge(), put_edges(), delete_edge() or delete_node(); after a bulk load in session_replication_role = replica, run rebuild_inverted_index().")));
}

static const char *
command_name(CmdType cmd)
{
	switch (cmd)
	{
		case CMD_INSERT:
			return "INSERT";
		case CMD_UPDATE:
			return "UPDATE";
		case CMD_DELETE:
			return "DELETE";
		case CMD_MERGE:
			return "MERGE";
		default:
			return "a write";
	}
}

/* Is this EXPLAIN one that runs its statement? */
static bool
explain_analyze(ExplainStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst_node(DefElem, lc);

		if (strcmp(opt->defname, "analyze") == 0)
			return defGetBoolean(opt);
	}
	return false;
}

/* The targets of an analysed statement, its data-modifying WITH, EXPLAIN ANALYZE. */
static void
check_query(Query *q, const char *sql)
{
	if (q->commandType == CMD_UTILITY)
	{
		if (q->utilityStmt != NULL && IsA(q->utilityStmt, ExplainStmt) &&
			IsA(((ExplainStmt *) q->utilityStmt)->query, Query) &&
			explain_analyze((ExplainStmt *) q->utilityStmt))
			check_query((Query *) ((ExplainStmt *) q->utilityStmt)->query, sql);
		return;
	}
	if (q->resultRelation > 0 &&
		(q->commandType == CMD_INSERT || q->commandType == CMD_UPDATE ||
		 q->commandType == CMD_DELETE || q->commandType == CMD_MERGE))
		check_target(rt_fetch(q->resultRelation, q->rtable)->relid,
					 command_name(q->commandType), sql);
	if (q->hasModifyingCTE)
	{
		ListCell   *lc;

		foreach(lc, q->cteList)
		{
			CommonTableExpr *cte = lfirst_node(CommonTableExpr, lc);

			if (IsA(cte->ctequery, Query))
				check_query((Query *) cte->ctequery, sql);
		}
	}
}

static void
guard_post_parse_analyze(ParseState *pstate, Query *query, JumbleState *jstate)
{
	if (prev_post_parse_analyze)
		prev_post_parse_analyze(pstate, query, jstate);
	check_query(query, pstate->p_sourcetext);
}

/* The result relations of a plan (sync_guard.c, at executor start). */
void
api_guard_check_plan(PlannedStmt *ps, const char *sql)
{
	ListCell   *lc;

	if (ps->commandType == CMD_SELECT && !ps->hasModifyingCTE)
		return;
	foreach(lc, ps->resultRelations)
		check_target(rt_fetch(lfirst_int(lc), ps->rtable)->relid,
					 command_name(ps->commandType), sql);
}

/* COPY FROM and TRUNCATE (sync_guard.c, in the utility hook). */
void
api_guard_check_utility(Node *stmt)
{
	if (IsA(stmt, CopyStmt))
	{
		CopyStmt   *copy = (CopyStmt *) stmt;
		Oid			relid;

		if (!copy->is_from || copy->relation == NULL)
			return;
		relid = RangeVarGetRelid(copy->relation, NoLock, true);
		if (OidIsValid(relid))
			check_target(relid, "COPY FROM", NULL);
	}
	else if (IsA(stmt, TruncateStmt))
	{
		ListCell   *lc;

		foreach(lc, ((TruncateStmt *) stmt)->relations)
		{
			RangeVar   *rv = lfirst_node(RangeVar, lc);
			Oid			relid = RangeVarGetRelid(rv, NoLock, true);
			List	   *members;
			ListCell   *m;

			if (!OidIsValid(relid))
				continue;
			members = rv->inh && get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE ?
				find_all_inheritors(relid, NoLock, NULL) : list_make1_oid(relid);
			foreach(m, members)
				check_target(lfirst_oid(m), "TRUNCATE", NULL);
		}
	}
}

void
api_guard_init(void)
{
	prev_post_parse_analyze = post_parse_analyze_hook;
	post_parse_analyze_hook = guard_post_parse_analyze;
}
