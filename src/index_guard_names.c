/*-------------------------------------------------------------------------
 *
 * index_guard_names.c
 *	  What a DDL statement's names found at its start, compared with what
 *	  the statement then acted on.
 *
 * adjlist's ddl_command_start guards (index_guard.c, index_guard_drop.c)
 * look the statement's names up with the search_path of that moment.  A
 * superuser's ddl_command_start event trigger that fires after adjlist's
 * (its name sorts after adjlist_ddl_start) may move search_path, and the
 * command then acts on another table than the one the guard checked: ALTER
 * TABLE ... ALTER COLUMN TYPE of a used column, DISABLE TRIGGER of a sync
 * trigger, SET UNLOGGED of a partition, DROP TRIGGER, DROP TABLE of a
 * partition whose rows would stay in the index, all on a table the guard
 * never saw.
 *
 * So the start remembers, for the statement, what each relevant name found
 * (ddl_names_start()): the table of ALTER TABLE, ALTER FOREIGN TABLE, ALTER
 * TYPE, ALTER ... RENAME, ALTER TRIGGER and ALTER ... SET SCHEMA; the
 * relations of DROP TABLE, DROP FOREIGN TABLE and DROP INDEX; the triggers
 * of DROP TRIGGER.  Its end compares: for ALTER and RENAME, with the
 * relation PostgreSQL collected for the command (ddl_collected.c), at
 * ddl_command_end (ddl_names_end()); for DROP, with the objects that
 * pg_event_trigger_dropped_objects() flags as the statement's own
 * (original), at sql_drop (ddl_names_dropped()).  Where they differ, and
 * either side takes part in an inverted index, the statement is refused
 * (refuse_moved_names(), 55000), which undoes what the start did.  Names
 * that found nothing at the start (IF EXISTS) count as differing from
 * whatever the command then found.
 *
 * A dropped object's catalog rows are gone by sql_drop; whether it took
 * part in an index is read from the rows this transaction deleted (a
 * partition's pg_inherits row, an index's pg_index row, a trigger's
 * pg_trigger row), which still exist for the transaction that deleted
 * them.
 *
 * Each start is remembered with the statement, its subtransaction and the
 * command counter, and taken by that statement's end: DDL that the
 * command's code runs (another event trigger's) is a statement of its own,
 * with its own start and end, and a parse tree of its own.  A statement
 * that fails leaves its start behind in a subtransaction that is gone
 * (forgotten when it aborts) or in the aborted transaction's memory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "nodes/makefuncs.h"
#include "tcop/utility.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "compat.h"
#include "ddl_collected.h"
#include "index_guard_int.h"
#include "index_sync_leaving.h"
#include "registry.h"

typedef struct NamesAtStart
{
	Node	   *stmt;			/* the statement (only compared) */
	SubTransactionId subxact;
	CommandId	since;			/* the command counter at its start */
	Oid			classid;		/* what oids are: relations or triggers */
	List	   *oids;			/* what each name found (InvalidOid: none) */
} NamesAtStart;

static List *starts = NIL;		/* in TopTransactionContext */
static LocalTransactionId starts_lxid = InvalidLocalTransactionId;

static List *
starts_list(void)
{
	if (starts_lxid != adjlist_local_xid())
		starts = NIL;			/* (freed with its transaction) */
	return starts;
}

static void
starts_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
						SubTransactionId parentSubid, void *arg)
{
	if (event != SUBXACT_EVENT_ABORT_SUB || starts_list() == NIL)
		return;
	for (int i = list_length(starts) - 1; i >= 0; i--)
		if (((NamesAtStart *) list_nth(starts, i))->subxact >= mySubid)
			starts = list_delete_nth_cell(starts, i);
}

/* The relation of a statement's one RangeVar, for ALTER and RENAME. */
static RangeVar *
altered_relation(Node *stmt)
{
	if (IsA(stmt, AlterTableStmt))
		return ((AlterTableStmt *) stmt)->relation;
	if (IsA(stmt, RenameStmt))
		return ((RenameStmt *) stmt)->relation;
	if (IsA(stmt, AlterObjectDependsStmt))
		return ((AlterObjectDependsStmt *) stmt)->relation;
	if (IsA(stmt, AlterObjectSchemaStmt))
		return ((AlterObjectSchemaStmt *) stmt)->relation;
	return NULL;
}

static bool
dropped_kind(Node *stmt)
{
	return IsA(stmt, DropStmt) &&
		(((DropStmt *) stmt)->removeType == OBJECT_TABLE ||
		 ((DropStmt *) stmt)->removeType == OBJECT_FOREIGN_TABLE ||
		 ((DropStmt *) stmt)->removeType == OBJECT_INDEX ||
		 ((DropStmt *) stmt)->removeType == OBJECT_TRIGGER);
}

/* What DROP stmt's names find now: relations, or triggers (*classid). */
static List *
dropped_names(DropStmt *stmt, Oid *classid)
{
	List	   *oids = NIL;
	ListCell   *lc;

	*classid = stmt->removeType == OBJECT_TRIGGER ? TriggerRelationId : RelationRelationId;
	foreach(lc, stmt->objects)
	{
		List	   *names = (List *) lfirst(lc);
		Oid			relid;

		if (stmt->removeType != OBJECT_TRIGGER)
		{
			oids = lappend_oid(oids, guard_rangevar_oid(makeRangeVarFromNameList(names)));
			continue;
		}
		if (list_length(names) < 2)
			continue;
		relid = guard_rangevar_oid(makeRangeVarFromNameList(list_truncate(list_copy(names),
																	  list_length(names) - 1)));
		oids = lappend_oid(oids, OidIsValid(relid) ?
						   get_trigger_oid(relid, strVal(llast(names)), true) : InvalidOid);
	}
	return oids;
}

void
ddl_names_start(Node *stmt)
{
	static bool registered = false;
	RangeVar   *rv = altered_relation(stmt);
	Oid			classid = RelationRelationId;
	List	   *oids;
	MemoryContext old;
	NamesAtStart *s;

	if (rv != NULL)
		oids = list_make1_oid(guard_rangevar_oid(rv));
	else if (dropped_kind(stmt))
		oids = dropped_names((DropStmt *) stmt, &classid);
	else
		return;
	if (!registered)
	{
		RegisterSubXactCallback(starts_subxact_callback, NULL);
		registered = true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	s = palloc(sizeof(NamesAtStart));
	s->stmt = stmt;
	s->subxact = GetCurrentSubTransactionId();
	s->since = GetCurrentCommandId(false);
	s->classid = classid;
	s->oids = list_copy(oids);
	starts = lappend(starts_list(), s);
	starts_lxid = adjlist_local_xid();
	MemoryContextSwitchTo(old);
}

/* The start of stmt in this subtransaction (the latest), taken off if take. */
static NamesAtStart *
start_of(Node *stmt, bool take)
{
	SubTransactionId subxact = GetCurrentSubTransactionId();

	if (starts_list() == NIL)
		return NULL;
	for (int i = list_length(starts) - 1; i >= 0; i--)
	{
		NamesAtStart *s = (NamesAtStart *) list_nth(starts, i);

		if (s->stmt != stmt || s->subxact != subxact)
			continue;
		if (take)
			starts = list_delete_nth_cell(starts, i);
		return s;
	}
	return NULL;
}

/* ----------------------------------------------------------------------
 * Whether an object takes part in an inverted index
 * ----------------------------------------------------------------------
 */

/*
 * Column refatt of the rows of catalog (by its index indexid on column
 * keyatt = key) that this transaction deleted: what a dropped object was.
 */
static List *
deleted_refs(Oid catalog, Oid indexid, AttrNumber keyatt, Oid key, AttrNumber refatt)
{
	Relation	rel = table_open(catalog, AccessShareLock);
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *refs = NIL;

	ScanKeyInit(&skey, keyatt, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(key));
	scan = systable_beginscan(rel, indexid, true, SnapshotAny, 1, &skey);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		HeapTupleHeader h = tup->t_data;
		bool		isnull;
		Datum		d;

		if ((h->t_infomask & HEAP_XMAX_INVALID) || HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask) ||
			!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(h)))
			continue;
		d = heap_getattr(tup, refatt, RelationGetDescr(rel), &isnull);
		if (!isnull)
			refs = lappend_oid(refs, DatumGetObjectId(d));
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return refs;
}

static bool relation_involved(Oid relid, int depth);

static bool
any_involved(List *relids, int depth)
{
	ListCell   *lc;

	foreach(lc, relids)
		if (relation_involved(lfirst_oid(lc), depth + 1))
			return true;
	return false;
}

/*
 * Does relation relid take part in an inverted index: a base, index or
 * counter table, a partition of one, an index of one, a composite type of
 * one's?  Of a relation this transaction dropped, what its deleted catalog
 * rows say it was.
 */
static bool
relation_involved(Oid relid, int depth)
{
	if (!OidIsValid(relid) || depth > 32)
		return false;
	if (registry_involves(relid))
		return true;
	if (!SearchSysCacheExists1(RELOID, ObjectIdGetDatum(relid)))
		return any_involved(deleted_refs(InheritsRelationId, InheritsRelidSeqnoIndexId,
										 Anum_pg_inherits_inhrelid, relid,
										 Anum_pg_inherits_inhparent), depth) ||
			any_involved(deleted_refs(IndexRelationId, IndexRelidIndexId,
									  Anum_pg_index_indexrelid, relid,
									  Anum_pg_index_indrelid), depth);
	switch (get_rel_relkind(relid))
	{
		case RELKIND_INDEX:
		case RELKIND_PARTITIONED_INDEX:
			return relation_involved(IndexGetRelation(relid, true), depth + 1);
		case RELKIND_COMPOSITE_TYPE:
			return any_involved(guard_typed_tables(relid), depth);
		default:
			return OidIsValid(guard_base_of(relid)) ||
				OidIsValid(registry_base_of_index(relid));
	}
}

/* A trigger's table, or a dropped one's (in this transaction). */
static bool
trigger_involved(Oid tgoid)
{
	Relation	tgrel;
	ScanKeyData skey;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			relid = InvalidOid;

	if (!OidIsValid(tgoid))
		return false;
	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyInit(&skey, Anum_pg_trigger_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(tgoid));
	scan = systable_beginscan(tgrel, TriggerOidIndexId, true, NULL, 1, &skey);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		relid = ((Form_pg_trigger) GETSTRUCT(tup))->tgrelid;
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	if (OidIsValid(relid))
		return relation_involved(relid, 0);
	return any_involved(deleted_refs(TriggerRelationId, TriggerOidIndexId, Anum_pg_trigger_oid,
									 tgoid, Anum_pg_trigger_tgrelid), 0);
}

static bool
involved(Oid classid, Oid oid)
{
	return classid == TriggerRelationId ? trigger_involved(oid) : relation_involved(oid, 0);
}

/* ----------------------------------------------------------------------
 * The comparisons
 * ----------------------------------------------------------------------
 */

/*
 * ALTER, RENAME ... stmt has ended: the relation it collected must be the
 * one its name found at the start, unless neither takes part in an index.
 * Then the partitions its start marked leaving are no longer.
 */
void
ddl_names_end(Node *stmt)
{
	NamesAtStart *s = start_of(stmt, true);
	RangeVar   *rv = altered_relation(stmt);
	ListCell   *lc;

	if (s == NULL)
		return;
	if (rv != NULL)
	{
		Oid			found = linitial_oid(s->oids);

		/* (only its own commands: a serial column's sequence is another's) */
		foreach(lc, ddl_collected_commands())
		{
			DdlCommand *c = (DdlCommand *) lfirst(lc);

			if (nodeTag(c->stmt) != nodeTag(stmt) || !equal(altered_relation(c->stmt), rv) ||
				c->relid == found)
				continue;
			if (involved(RelationRelationId, found) || involved(RelationRelationId, c->relid))
				refuse_moved_names(CreateCommandName(stmt));
		}
	}
	sync_leaving_forget(s->since);
}

/*
 * DROP stmt has dropped its objects: those it named (original) must be the
 * ones its names found at the start, unless none of those that differ takes
 * part in an index.
 */
void
ddl_names_dropped(Node *stmt)
{
	NamesAtStart *s = start_of(stmt, false);
	List	   *dropped;
	ListCell   *lc;

	if (s == NULL || !dropped_kind(stmt))
		return;
	dropped = ddl_dropped_oids(psprintf("SELECT d.objid FROM pg_catalog.pg_event_trigger_dropped_objects() d "
										"WHERE d.original AND d.objsubid OPERATOR(pg_catalog.=) 0 "
										"AND d.classid OPERATOR(pg_catalog.=) %u::pg_catalog.oid",
										s->classid));
	foreach(lc, dropped)
		if (!list_member_oid(s->oids, lfirst_oid(lc)) && involved(s->classid, lfirst_oid(lc)))
			refuse_moved_names(CreateCommandName(stmt));
	foreach(lc, s->oids)
		if (OidIsValid(lfirst_oid(lc)) && !list_member_oid(dropped, lfirst_oid(lc)) &&
			involved(s->classid, lfirst_oid(lc)))
			refuse_moved_names(CreateCommandName(stmt));
}
