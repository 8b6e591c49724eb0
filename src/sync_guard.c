/*-------------------------------------------------------------------------
 *
 * sync_guard.c
 *	  Statements whose rows PostgreSQL does not show to the sync triggers:
 *	  refused before they run.
 *
 * The triggers of index_sync.c see every row a statement writes, with two
 * exceptions that no trigger can mend, since the rows never reach one:
 *
 * 1. A MERGE whose UPDATE action moves a row to another partition.  The
 *    executor collects a moved row into the UPDATE transition tables only
 *    when the statement is an UPDATE (nodeModifyTable.c, ExecDelete() and
 *    ExecInsert() test operation == CMD_UPDATE; the same in 15 and 18), so
 *    a MERGE passes it to no statement trigger: the index would keep the
 *    old row and miss the new one.  An executor hook refuses, before it
 *    runs, a MERGE into a partitioned table with adjlist's statement
 *    triggers (adjlist_sync_upd) whose UPDATE action could move a row: it
 *    assigns a column of the partition key of the target or of a
 *    partitioned table below it, or a partition it updates has a BEFORE
 *    UPDATE row trigger (which could change the key).  A MERGE that cannot
 *    move rows (other columns, INSERT and DELETE actions), and a plain
 *    UPDATE that moves rows, run as before.  Tables kept by the row trigger
 *    adjlist_sync (foreign partitions) see moved rows as a delete and an
 *    insert and need no refusal.
 *
 * 2. TRUNCATE of a foreign table: foreign tables can have no TRUNCATE
 *    trigger, so a foreign base table, a foreign partition of a base table,
 *    or a foreign partition of an index table named by TRUNCATE would leave
 *    the index as it was.  A utility hook refuses it.  (TRUNCATE of a
 *    partitioned table with foreign partitions is followed: the parent's
 *    triggers read them, index_sync.c.)
 *
 * 3. Plain writes of a table that no trigger keeps (Citus): api_guard.c,
 *    whose checks the executor and utility hooks here call.
 *
 * Both are hooks, so they run only in a backend that has loaded the
 * library.  An adjkey literal or parameter, a partition key on an adjkey
 * column and any adjlist function load it before the check, as does any
 * earlier statement of the session that did; the sync triggers load it
 * too, but only when they fire, after the statement has started.  So from
 * 16 on the MERGE is checked once more before its AFTER triggers fire
 * (ExecutorFinish): a row moved to another partition fires the partitions'
 * BEFORE INSERT row trigger adjlist_sync_route (compat.h) on the way, which
 * loads the library.  What stays unchecked: on 15, a session's first
 * statement when it is such a MERGE that mentions no adjkey value, and on
 * any version such a first TRUNCATE.  The README ("Statements are sets")
 * says so, and how to close the gap: session_preload_libraries = 'adjlist'.
 *
 * The tables are recognised by adjlist's trigger names, which are looked
 * up in the relcache (MERGE, whose tables the executor has locked) or by
 * name in pg_trigger (TRUNCATE: no lock is taken before the statement's own
 * ACCESS EXCLUSIVE, so no lock upgrade can deadlock).  Nothing here needs
 * the extension to be installed in the database.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "nodes/bitmapset.h"
#include "nodes/plannodes.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "tcop/utility.h"
#include "utils/lsyscache.h"
#include "utils/partcache.h"
#include "utils/rel.h"

#include "adjlist.h"
#include "index_sync_check.h"
#include "index_write.h"

static ExecutorStart_hook_type prev_executor_start = NULL;
static ExecutorFinish_hook_type prev_executor_finish = NULL;
static ProcessUtility_hook_type prev_process_utility = NULL;

/* The first enabled BEFORE UPDATE row trigger of rel, or NULL. */
static const char *
before_update_row_trigger(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td != NULL && i < td->numtriggers; i++)
	{
		const Trigger *t = &td->triggers[i];

		if (t->tgenabled != TRIGGER_DISABLED &&
			TRIGGER_FOR_ROW(t->tgtype) && TRIGGER_FOR_BEFORE(t->tgtype) &&
			TRIGGER_FOR_UPDATE(t->tgtype))
			return t->tgname;
	}
	return NULL;
}

/*
 * The names of the columns the UPDATE actions of a MERGE assign, over all
 * its result relations (each action list is in that relation's attribute
 * numbers; partitions share column names).  *any tells whether there is an
 * UPDATE action at all.
 */
static List *
merge_assigned_columns(PlannedStmt *ps, ModifyTable *mt, bool *any)
{
	List	   *names = NIL;
	ListCell   *lr,
			   *la;

	*any = false;
	forboth(lr, mt->resultRelations, la, mt->mergeActionLists)
	{
		Oid			relid = rt_fetch(lfirst_int(lr), ps->rtable)->relid;
		ListCell   *lc;

		foreach(lc, (List *) lfirst(la))
		{
			MergeAction *action = lfirst_node(MergeAction, lc);
			ListCell   *lcol;

			if (action->commandType != CMD_UPDATE)
				continue;
			*any = true;
			foreach(lcol, action->updateColnos)
			{
				char	   *name = get_attname(relid, (AttrNumber) lfirst_int(lcol), false);

				if (!list_member(names, makeString(name)))
					names = lappend(names, makeString(name));
			}
		}
	}
	return names;
}

/* A column of the partition key of rel (partitioned) that names holds, or NULL. */
static const char *
key_column_assigned(Relation rel, List *names)
{
	PartitionKey key = RelationGetPartitionKey(rel);
	ListCell   *expr = list_head(key->partexprs);
	Oid			relid = RelationGetRelid(rel);

	for (int i = 0; i < key->partnatts; i++)
	{
		Bitmapset  *attrs = NULL;
		int			a = -1;

		if (key->partattrs[i] != 0)
			attrs = bms_make_singleton(key->partattrs[i] - FirstLowInvalidHeapAttributeNumber);
		else
		{
			pull_varattnos((Node *) lfirst(expr), 1, &attrs);
			expr = lnext(key->partexprs, expr);
		}
		while ((a = bms_next_member(attrs, a)) >= 0)
		{
			AttrNumber	attno = a + FirstLowInvalidHeapAttributeNumber;
			char	   *name;

			if (attno <= 0)
				continue;
			name = get_attname(relid, attno, false);
			if (list_member(names, makeString(name)))
				return name;
		}
	}
	return NULL;
}

/* why: a sentence saying what could move a row */
static void
refuse_merge(Relation target, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("a MERGE that can move rows between partitions of table \"%s\" is not supported",
					RelationGetRelationName(target)),
			 errdetail("%s PostgreSQL passes the rows a MERGE moves to another partition to no statement trigger, so the inverted index of \"%s\" would keep the old row and miss the new one.",
					   why, RelationGetRelationName(target)),
			 errhint("Change the partition key with UPDATE, which the index follows, and use MERGE for the other columns.")));
}

/*
 * Refuse a MERGE into a partitioned table with adjlist's statement
 * triggers whose UPDATE action could move a row (see the header).
 */
static void
check_merge(PlannedStmt *ps, ModifyTable *mt)
{
	Relation	target;
	List	   *assigned;
	bool		any_update;
	List	   *members;
	ListCell   *lc;

	if (mt->operation != CMD_MERGE || mt->nominalRelation == 0)
		return;
	target = table_open(rt_fetch(mt->nominalRelation, ps->rtable)->relid, AccessShareLock);
	if (target->rd_rel->relkind != RELKIND_PARTITIONED_TABLE ||
		!rel_has_trigger(target, "adjlist_sync_upd"))
	{
		table_close(target, AccessShareLock);
		return;
	}
	assigned = merge_assigned_columns(ps, mt, &any_update);
	if (!any_update)
	{
		table_close(target, AccessShareLock);
		return;
	}

	/*
	 * The partition keys of the target and of the partitioned tables below
	 * (only those are locked: the leaves are many, and the statement locks
	 * those it writes).
	 */
	members = find_all_inheritors(RelationGetRelid(target), NoLock, NULL);
	foreach(lc, members)
	{
		Relation	m;
		const char *col = NULL;

		if (assigned == NIL || get_rel_relkind(lfirst_oid(lc)) != RELKIND_PARTITIONED_TABLE ||
			(m = try_table_open(lfirst_oid(lc), AccessShareLock)) == NULL)
			continue;			/* (a partition dropped meanwhile) */
		if (m->rd_rel->relkind == RELKIND_PARTITIONED_TABLE)
			col = key_column_assigned(m, assigned);
		if (col != NULL)
			refuse_merge(target,
						 psprintf("The UPDATE action assigns \"%s\", a column of the partition key of \"%s\".",
								  col, RelationGetRelationName(m)));
		table_close(m, AccessShareLock);
	}

	/* a BEFORE UPDATE row trigger of a partition it updates */
	foreach(lc, mt->resultRelations)
	{
		Relation	m = table_open(rt_fetch(lfirst_int(lc), ps->rtable)->relid, AccessShareLock);
		const char *trig = before_update_row_trigger(m);

		if (trig != NULL)
			refuse_merge(target,
						 psprintf("Partition \"%s\" has the BEFORE UPDATE row trigger \"%s\", which could change the partition key.",
								  RelationGetRelationName(m), trig));
		table_close(m, AccessShareLock);
	}
	table_close(target, AccessShareLock);
}

/* Every MERGE of a statement: itself, or in WITH (a subplan, from 17 on). */
static void
check_plan(PlannedStmt *ps)
{
	ListCell   *lc;

	if (index_writes_allowed())
		return;
	if (ps->planTree != NULL && IsA(ps->planTree, ModifyTable))
		check_merge(ps, (ModifyTable *) ps->planTree);
	foreach(lc, ps->subplans)
	{
		Plan	   *sub = (Plan *) lfirst(lc);

		if (sub != NULL && IsA(sub, ModifyTable))
			check_merge(ps, (ModifyTable *) sub);
	}
}

static void
guard_executor_start(QueryDesc *queryDesc, int eflags)
{
	if (!(eflags & EXEC_FLAG_EXPLAIN_ONLY))
	{
		check_plan(queryDesc->plannedstmt);
		api_guard_check_plan(queryDesc->plannedstmt, queryDesc->sourceText);
	}
	if (prev_executor_start)
		prev_executor_start(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

/*
 * Once more before the AFTER triggers fire, for a backend that loaded the
 * library while the statement ran, after its start: from 16 on the
 * partitions of a base table have the BEFORE INSERT row trigger
 * adjlist_sync_route (compat.h), which a row moved to another partition
 * fires.
 */
static void
guard_executor_finish(QueryDesc *queryDesc)
{
	if (ADJLIST_MERGE_NEEDS_ROUTE_TRIGGER)
		check_plan(queryDesc->plannedstmt);
	if (prev_executor_finish)
		prev_executor_finish(queryDesc);
	else
		standard_ExecutorFinish(queryDesc);
}

/*
 * Refuse TRUNCATE of a foreign table that is a base table with adjlist's
 * triggers, a partition of one, or a partition of an index table.
 */
static void
check_truncate(TruncateStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->relations)
	{
		Oid			relid = RangeVarGetRelid(lfirst_node(RangeVar, lc), NoLock, true);
		bool		base;
		Oid			top;

		/* a foreign table named itself (a parent's triggers read its own) */
		if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_FOREIGN_TABLE)
			continue;
		base = OidIsValid(get_trigger_oid(relid, "adjlist_sync", true));
		if (!base && !OidIsValid(get_trigger_oid(relid, "adjlist_index_guard", true)))
			continue;
		top = get_rel_relispartition(relid) ?
			llast_oid(get_partition_ancestors(relid)) : relid;
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 top == relid ?
				 errmsg("cannot truncate foreign table \"%s\", which has an inverted index",
						get_rel_name(relid)) :
				 base ?
				 errmsg("cannot truncate foreign table \"%s\", a partition of \"%s\", which has an inverted index",
						get_rel_name(relid), get_rel_name(top)) :
				 errmsg("cannot truncate foreign table \"%s\", a partition of inverted index \"%s\"",
						get_rel_name(relid), get_rel_name(top)),
				 errdetail("Foreign tables can have no TRUNCATE trigger, so the inverted index would not follow."),
				 base ?
				 errhint("Delete the rows with DELETE, which the index follows.") :
				 errhint("Only adjlist writes an index table; rebuild_inverted_index() writes it again from its base table.")));
	}
}

static void
guard_process_utility(PlannedStmt *pstmt, const char *queryString,
					  bool readOnlyTree, ProcessUtilityContext context,
					  ParamListInfo params, QueryEnvironment *queryEnv,
					  DestReceiver *dest, QueryCompletion *qc)
{
	if (IsA(pstmt->utilityStmt, TruncateStmt) && !index_writes_allowed())
		check_truncate((TruncateStmt *) pstmt->utilityStmt);
	if (IsA(pstmt->utilityStmt, TruncateStmt) || IsA(pstmt->utilityStmt, CopyStmt))
		api_guard_check_utility(pstmt->utilityStmt);
	if (prev_process_utility)
		prev_process_utility(pstmt, queryString, readOnlyTree, context,
							 params, queryEnv, dest, qc);
	else
		standard_ProcessUtility(pstmt, queryString, readOnlyTree, context,
								params, queryEnv, dest, qc);
}

void
sync_guard_init(void)
{
	prev_executor_start = ExecutorStart_hook;
	ExecutorStart_hook = guard_executor_start;
	prev_executor_finish = ExecutorFinish_hook;
	ExecutorFinish_hook = guard_executor_finish;
	prev_process_utility = ProcessUtility_hook;
	ProcessUtility_hook = guard_process_utility;
	api_guard_init();
}
