/*-------------------------------------------------------------------------
 *
 * index_guard_cascade.c
 *	  What a DROP takes through a dependency, at sql_drop (index_guard.c's
 *	  header says what a DBA may do).
 *
 *	- A partition of an indexed table (at any depth) dropped not by its
 *	  own name but because something it depends on went: DROP SERVER ...
 *	  CASCADE or DROP EXTENSION postgres_fdw CASCADE of a foreign
 *	  partition, DROP TYPE or DROP SCHEMA ... CASCADE of the type of a
 *	  typed partition, DROP FUNCTION ... CASCADE of a function in a
 *	  sub-partitioned partition's key, DROP EXTENSION of an extension it
 *	  is a member of.  Its rows are in the index, and by sql_drop they can
 *	  no longer be read to take them out: the statement is refused (2BP01,
 *	  dependent_objects_still_exist, as DROP ... RESTRICT of a table with
 *	  dependants is), which rolls it back.  DROP TABLE of the partition (or
 *	  DETACH PARTITION) first takes its rows out.  Not refused: a
 *	  partition whose rows DROP TABLE, DROP SCHEMA ... CASCADE or DROP
 *	  OWNED took out at its start (index_guard_drop.c notes them here), and
 *	  one dropped with its base table, whose index goes too.
 *
 *	  Which dropped tables were partitions of what: by sql_drop their
 *	  pg_inherits rows are deleted, but this transaction still reads them
 *	  with SnapshotAny, deleted by itself in the same command as the
 *	  table's pg_class row (heap_drop_with_catalog() runs no
 *	  CommandCounterIncrement() in between), which tells them from a row
 *	  an earlier DETACH in the same transaction deleted.  Only statements
 *	  that can drop a table by a dependency pay for it: DROP ... CASCADE,
 *	  DROP EXTENSION and DROP OWNED.
 *
 *	- A column of a base, index or counter table (or of a partition of
 *	  one) dropped by a dependency, DROP TYPE or DROP DOMAIN ... CASCADE of
 *	  its type (any statement but ALTER TABLE and ALTER TYPE, whose end
 *	  checks the tables they alter): the index definitions are checked as
 *	  at the end of ALTER TABLE (index_guard_end.c), so dropping a column
 *	  an index uses is refused, naming the index, as ALTER TABLE ... DROP
 *	  COLUMN is.  Run after the sql_drop trigger has unregistered the
 *	  indexes the statement dropped (a sparse index whose predicate reads
 *	  the column goes with it, index_predicate.c), which then need
 *	  nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "nodes/parsenodes.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#include "compat.h"
#include "index_guard_int.h"
#include "registry.h"

/* ----------------------------------------------------------------------
 * Partitions whose rows a DROP's start took out (drop_member())
 * ----------------------------------------------------------------------
 */

typedef struct Taken
{
	Oid			relid;
	SubTransactionId subxact;
} Taken;

static List *taken = NIL;
static bool taken_registered = false;
static MemoryContextCallback taken_callback;

/* TopTransactionContext goes: so does the list in it. */
static void
forget_taken(void *arg)
{
	taken = NIL;
	taken_registered = false;
}

void
guard_cascade_note_taken(Oid relid)
{
	MemoryContext old;
	Taken	   *t;

	if (!taken_registered)
	{
		taken_callback.func = forget_taken;
		taken_callback.arg = NULL;
		MemoryContextRegisterResetCallback(TopTransactionContext, &taken_callback);
		taken_registered = true;
	}
	old = MemoryContextSwitchTo(TopTransactionContext);
	t = palloc(sizeof(Taken));
	t->relid = relid;
	t->subxact = GetCurrentSubTransactionId();
	taken = lappend(taken, t);
	MemoryContextSwitchTo(old);
}

/*
 * Did this statement's start take relid's rows out?  The notes last the
 * transaction (a DDL statement run meanwhile by another event trigger has
 * its own sql_drop first): one noted by an earlier statement names a table
 * that statement dropped, and one noted by a statement that then failed
 * went with its subtransaction (the next statement runs in another).
 */
static bool
was_taken(Oid relid)
{
	SubTransactionId subxact = GetCurrentSubTransactionId();
	ListCell   *lc;

	foreach(lc, taken)
	{
		Taken	   *t = (Taken *) lfirst(lc);

		if (t->relid == relid && t->subxact == subxact)
			return true;
	}
	return false;
}

/* ----------------------------------------------------------------------
 * Catalog rows this transaction deleted
 * ----------------------------------------------------------------------
 */

/*
 * Was tuple tup (read with SnapshotAny) live before this transaction
 * deleted it?  Then *cmax is the command that deleted it.
 */
static bool
deleted_here(HeapTuple tup, CommandId *cmax)
{
	HeapTupleHeader h = tup->t_data;
	TransactionId xmin = HeapTupleHeaderGetXmin(h);

	if ((h->t_infomask & HEAP_XMAX_INVALID) || HEAP_XMAX_IS_LOCKED_ONLY(h->t_infomask) ||
		!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetUpdateXid(h)))
		return false;
	if (!TransactionIdIsCurrentTransactionId(xmin) && !TransactionIdDidCommit(xmin))
		return false;
	*cmax = HeapTupleHeaderGetCmax(h);
	return true;
}

/*
 * The parent that dropped table relid was a partition of when this
 * statement dropped it, or InvalidOid: the pg_inherits row deleted by the
 * command that deleted its pg_class row (the last one to delete or update
 * that row).
 */
static Oid
dropped_parent(Oid relid)
{
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	CommandId	cid;
	CommandId	dropcid = InvalidCommandId;
	Oid			parent = InvalidOid;

	rel = table_open(RelationRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_class_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, ClassOidIndexId, true, SnapshotAny, 1, &key);
	while ((tup = systable_getnext(scan)) != NULL)
		if (deleted_here(tup, &cid) && (dropcid == InvalidCommandId || cid > dropcid))
			dropcid = cid;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (dropcid == InvalidCommandId)
		return InvalidOid;

	rel = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InheritsRelidSeqnoIndexId, true, SnapshotAny, 1, &key);
	while ((tup = systable_getnext(scan)) != NULL)
		if (deleted_here(tup, &cid) && cid == dropcid)
			parent = ((Form_pg_inherits) GETSTRUCT(tup))->inhparent;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return parent;
}

/* ----------------------------------------------------------------------
 * sql_drop
 * ----------------------------------------------------------------------
 */

/* Can the statement drop a table by a dependency? */
static bool
may_cascade(Node *stmt)
{
	if (IsA(stmt, DropOwnedStmt))
		return true;
	if (!IsA(stmt, DropStmt))
		return false;
	return ((DropStmt *) stmt)->behavior == DROP_CASCADE ||
		((DropStmt *) stmt)->removeType == OBJECT_EXTENSION;
}

/*
 * The objects pg_event_trigger_dropped_objects() lists for the relation
 * catalog, in the caller's memory: the tables (columns false) or the
 * columns (true, the distinct tables that lost one), with the identities
 * of the tables in *names.
 */
static List *
dropped_relations(bool columns, List **names)
{
	MemoryContext caller = CurrentMemoryContext;
	List	   *relids = NIL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(columns ?
					"SELECT DISTINCT d.objid, ''::pg_catalog.text FROM pg_catalog.pg_event_trigger_dropped_objects() d "
					"WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
					"AND d.objsubid OPERATOR(pg_catalog.<>) 0" :
					"SELECT d.objid, d.object_identity FROM pg_catalog.pg_event_trigger_dropped_objects() d "
					"WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
					"AND d.objsubid OPERATOR(pg_catalog.=) 0 "
					"AND d.object_type OPERATOR(pg_catalog.=) ANY ('{table,\"foreign table\"}')",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the dropped objects");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			relid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
														   SPI_tuptable->tupdesc, 1, &isnull));
		char	   *name = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		MemoryContext old = MemoryContextSwitchTo(caller);

		relids = lappend_oid(relids, relid);
		if (names != NULL)
			*names = lappend(*names, pstrdup(name ? name : ""));
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return relids;
}

/*
 * A partition (name) of an index or counter table, parent or above, that
 * survives, dropped by a dependency: the index loses those rows.  Refused
 * too, as DROP TABLE of such a partition is (index_guard_drop.c): DROP
 * SERVER ... CASCADE of a shard's server must not do silently what that
 * refuses.
 */
static void
refuse_index_member(Oid relid, const char *name, Oid parent)
{
	Oid			base = registry_base_of_index(parent);

	if (!OidIsValid(base) || !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(base)))
		return;
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 errmsg("cannot drop partition %s of the inverted index of table \"%s\" through a dependency",
					name, get_rel_name(base)),
			 errdetail("The partition holds rows of the index of table \"%s\", which would lose them.",
					   get_rel_name(base)),
			 errhint("Drop the index with drop_inverted_index() first, or keep what the partition depends on.")));
}

/*
 * A partition of a surviving indexed table dropped by a dependency, with
 * its rows still in the index: refused.
 */
void
guard_cascade_check_members(EventTriggerData *ev)
{
	List	   *names = NIL;
	List	   *relids;
	ListCell   *lc;
	ListCell   *n;

	if (!may_cascade(ev->parsetree))
		return;
	relids = dropped_relations(false, &names);
	forboth(lc, relids, n, names)
	{
		Oid			relid = lfirst_oid(lc);
		Oid			parent;
		Oid			base;

		/* (only the uppermost dropped one: its parent survives) */
		parent = dropped_parent(relid);
		if (!OidIsValid(parent) || !SearchSysCacheExists1(RELOID, ObjectIdGetDatum(parent)))
			continue;
		base = guard_base_of(parent);
		if (!OidIsValid(base))
		{
			refuse_index_member(relid, (char *) lfirst(n), parent);
			continue;
		}
		if (was_taken(relid))
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 errmsg("cannot drop partition %s of table \"%s\" through a dependency",
						(char *) lfirst(n), get_rel_name(base)),
				 errdetail("Table \"%s\" has an inverted index, which holds the partition's rows; dropped by a cascade (of its server, type, schema, extension or another object it depends on), they could not be taken out of the index.",
						   get_rel_name(base)),
				 errhint("Drop the partition with DROP TABLE, or detach it with ALTER TABLE ... DETACH PARTITION, first.")));
	}
}

/*
 * Columns dropped by a dependency: the index definitions of every table
 * that lost one are checked as ALTER TABLE's are.  (ALTER TABLE and ALTER
 * TYPE drop columns only of the tables they alter, which their end checks:
 * index_guard_end.c.)
 */
void
guard_cascade_recheck_columns(EventTriggerData *ev)
{
	ListCell   *lc;

	if (IsA(ev->parsetree, AlterTableStmt))
		return;
	foreach(lc, dropped_relations(true, NULL))
		if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(lfirst_oid(lc))))
			guard_recheck(lfirst_oid(lc));
}
