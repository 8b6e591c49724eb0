/*-------------------------------------------------------------------------
 *
 * write_api_owner.c
 *	  The write API on a Citus table whose index tables share its shard
 *	  placements, for a role that does not own it: the whole write as the
 *	  owner, after the checks the caller's own statements would get.
 *
 * The write API writes the base table as the caller and the index rows as
 * the index's owner, as the triggers do (write_api.c).  Citus opens its
 * connections to a worker per role, and in a transaction it refuses to
 * reach a placement over one role's connection once another role's
 * connection modified it or a placement colocated with it ("cannot
 * perform query on placements that were modified in this transaction by a
 * different user").  Colocated, for Citus, are the placements on one node
 * of the tables of one colocation group (pg_dist_partition.colocationid)
 * that hold the same hash range: every reference table's placement on a
 * node (the index tables of a reference table are reference tables), the
 * shards of a base table and of index tables distributed with
 * colocate_with => the base table that hold the same range.  So a role
 * other than the owner could not write such a table through the write API
 * (a distributed one: whenever an item's base and index rows fall in one
 * range, which any write may).
 *
 * There (api_placements_shared(), from Citus's metadata), a write by a
 * role that is not the owner runs wholly as the owner (api_owner_begin()),
 * and what would have kept the caller to its rights is done here instead:
 *
 *	- privileges: before each statement the write API runs meanwhile
 *	  (adjlist_plan_set_check()), every reference to the base table in it,
 *	  subqueries included, is checked as the caller, for what the executor
 *	  would check had the caller run it (table privileges, or column
 *	  privileges where the table's are missing): 42501 as for the caller's
 *	  own statement.  Statements that name only index and counter tables
 *	  are the owner's, as they always are.
 *	- row-level security cannot be honoured by a statement that runs as
 *	  the owner: where it applies to the caller on the base table, the
 *	  write is refused (0A000) before anything is written.
 *
 * What else runs as the owner then is the table's own code: its defaults,
 * generated columns, constraints and triggers (README, Citus).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/plancache.h"
#include "utils/rls.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "plan_cache.h"
#include "registry.h"
#include "write_api_int.h"

/*
 * The colocation group of relid, a hash-distributed or reference table;
 * 0 for any other (Citus-local tables, whose colocationid is 0, are
 * written on the coordinator itself, over no connection).
 */
static uint32
placement_group(Oid relid)
{
	char		method = '\0';
	uint32		group = 0;

	if (!OidIsValid(relid) || !adjlist_citus_placement_group(relid, &method, &group) ||
		(method != 'h' && method != 'n'))
		return 0;
	return group;
}

/*
 * Does an index or counter table the write API writes for t (API mode,
 * where no trigger runs) share the colocation group of t, a Citus table?
 */
bool
api_placements_shared(ApiTable *t)
{
	uint32		group = t->no_triggers ? placement_group(t->relid) : 0;

	if (group == 0)
		return false;
	for (int i = 0; i < t->ti->nindexes; i++)
	{
		const IndexDef *ix = &t->ti->indexes[i];

		if (ix->mode == INDEX_MODE_API &&
			(placement_group(ix->indexrel) == group || placement_group(ix->counterrel) == group))
			return true;
	}
	return false;
}

/* Check each Query of a tree (subqueries, CTEs, sublinks) for m's table. */
static bool
check_walker(Node *node, void *arg)
{
	ApiOwnerMode *m = (ApiOwnerMode *) arg;

	if (node == NULL)
		return false;
	if (IsA(node, Query))
	{
		Query	   *q = (Query *) node;
		ListCell   *lc;

		foreach(lc, q->rtable)
		{
			RangeTblEntry *rte = (RangeTblEntry *) lfirst(lc);

			if (rte->rtekind == RTE_RELATION && rte->relid == m->relid)
				adjlist_check_rte_as(q, rte, m->caller);
		}
		return query_tree_walker(q, check_walker, arg, 0);
	}
	return expression_tree_walker(node, check_walker, arg);
}

/*
 * The plan check of owner mode: the caller's privileges on the base table
 * in each statement of plan, from its analyzed and rewritten queries (the
 * plan cache keeps them; re-analyzed first if it dropped them).
 */
static void
check_plan(SPIPlanPtr plan, void *arg)
{
	ListCell   *lc;

	foreach(lc, SPI_plan_get_plan_sources(plan))
	{
		CachedPlanSource *ps = (CachedPlanSource *) lfirst(lc);
		ListCell   *q;

		if (ps->query_list == NIL)
		{
			CachedPlan *cp = SPI_plan_get_cached_plan(plan);

			if (cp != NULL)
				ReleaseCachedPlan(cp, CurrentResourceOwner);
		}
		if (ps->query_list == NIL)
			elog(ERROR, "adjlist: a statement of the write API has no query to check");
		foreach(q, ps->query_list)
			(void) check_walker((Node *) lfirst(q), arg);
	}
}

/*
 * Begin a write of t: as the owner, with the checks above, where t's
 * placements are shared and the caller is not the owner; else nothing
 * changes (the caller writes the base table, the owner the index rows).
 */
void
api_owner_begin(ApiTable *t, ApiOwnerMode *m)
{
	m->active = false;
	if (!t->shared_placements || GetUserId() == t->ti->owner)
		return;
	/* with row_security off, 42501 where a policy would apply */
	if (check_enable_rls(t->relid, InvalidOid, false) == RLS_ENABLED)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the write API cannot honour the row-level security of Citus table \"%s\" for role \"%s\"",
						get_rel_name(t->relid), GetUserNameFromId(GetUserId(), false)),
				 errdetail("Its inverted index or counter tables share its shard placements (a reference table's, or colocated with it), which Citus lets one role alone write in a transaction: the write API writes such a table as its owner, whom its policies do not restrict."),
				 errhint("Write it as its owner or as a role that row-level security does not restrict, or keep its index and counter tables out of its colocation group (colocate_with => 'none').")));
	m->caller = GetUserId();
	m->relid = t->relid;
	m->check.check = check_plan;
	m->check.arg = m;
	adjlist_become(t->ti->owner, &m->role);
	m->saved = adjlist_plan_set_check(&m->check);
	m->active = true;
}

/* The write is done: back to the caller. */
void
api_owner_end(ApiOwnerMode *m)
{
	if (!m->active)
		return;
	(void) adjlist_plan_set_check(m->saved);
	adjlist_unbecome(&m->role);
	m->active = false;
}

/*
 * The write failed: the plan check is put back (the role and the settings
 * are restored by the (sub)transaction's abort).
 */
void
api_owner_abandon(ApiOwnerMode *m)
{
	if (m->active)
		(void) adjlist_plan_set_check(m->saved);
	m->active = false;
}
