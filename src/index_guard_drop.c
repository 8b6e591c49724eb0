/*-------------------------------------------------------------------------
 *
 * index_guard_drop.c
 *	  DROP of what takes part in an inverted index (index_guard.c's header
 *	  says what a DBA may do).
 *
 * At ddl_command_start (called by index_guard.c once the role is known to
 * be allowed to run the statement): DROP TABLE of a partition, DROP SCHEMA
 * ... CASCADE and DROP OWNED BY that drop partitions of a surviving indexed
 * table take those partitions' rows out of the index while they can still
 * be read; index_guard_end.c checks at the end that the statement dropped
 * the tables that were prepared (ddl_collected.c remembers them).
 *
 * At sql_drop: a dropped base table takes its index and counter tables
 * with it; a dropped index table is unregistered and its base table's
 * triggers re-made for the indexes it has left; a dropped key constraint
 * or index that a base key needs is refused (base_key.c).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_namespace.h"
#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "base_key.h"
#include "catalog.h"
#include "compat.h"
#include "ddl_collected.h"
#include "index_admin.h"
#include "index_guard_int.h"
#include "index_sync_leaving.h"
#include "index_write.h"
#include "registry.h"
#include "table_options.h"

PG_FUNCTION_INFO_V1(adjlist_on_sql_drop);

/* ----------------------------------------------------------------------
 * ddl_command_start
 * ----------------------------------------------------------------------
 */

/*
 * A partition relid of base that a DROP is about to drop: its rows (and
 * those of its own partitions) leave the index while they can still be
 * read (index_member_rows(), as the base table's owner, whoever owns the
 * partition).
 */
static void
drop_member(Oid base, Oid relid)
{
	ListCell   *a;

	/* lock as DROP will: the parents, then the partition */
	foreach(a, get_partition_ancestors(relid))
		LockRelationOid(lfirst_oid(a), AccessExclusiveLock);
	LockRelationOid(relid, AccessExclusiveLock);
	index_member_rows(base, relid, false);
	sync_leaving_mark(base, relid, false);
	guard_cascade_note_taken(relid);
}

/*
 * DROP TABLE of a partition: its rows leave the index before it goes.
 * Only for a role that may drop it, the owner of the partition or of its
 * schema (or a superuser), as DROP TABLE checks before it locks anything
 * (RangeVarCallbackForDropRelation()): any other is refused by DROP TABLE
 * itself, at once, and must not first queue an ACCESS EXCLUSIVE lock on
 * the table and its parents, which would stall every reader of the table
 * behind a statement that is bound to fail.
 */
/*
 * DROP TABLE of a partition of an index or counter table (its storage,
 * as a shard of the sharded recipe): the index would lose its rows.
 * Refused, unless the statement drops the index table or the base table
 * too (named among objects).
 */
static void
refuse_index_storage_drop(Oid relid, List *objects)
{
	Oid			base;
	List	   *ancestors;
	ListCell   *lc;

	if (!get_rel_relispartition(relid) || !OidIsValid(base = registry_base_of_index(relid)))
		return;
	ancestors = lappend_oid(get_partition_ancestors(relid), base);
	foreach(lc, objects)
	{
		Oid			named = guard_rangevar_oid(makeRangeVarFromNameList((List *) lfirst(lc)));

		if (list_member_oid(ancestors, named))
			return;
	}
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 errmsg("cannot drop partition \"%s\" of the inverted index of table \"%s\"",
					get_rel_name(relid), get_rel_name(base)),
			 errdetail("The partition holds rows of the index, which would lose them."),
			 errhint("Drop the index with drop_inverted_index() first.")));
}

void
guard_start_drop(DropStmt *stmt)
{
	ListCell   *lc;

	if (stmt->removeType != OBJECT_TABLE && stmt->removeType != OBJECT_FOREIGN_TABLE)
		return;
	foreach(lc, stmt->objects)
	{
		RangeVar   *rv = makeRangeVarFromNameList((List *) lfirst(lc));
		Oid			relid = guard_rangevar_oid(rv);
		Oid			base;

		if (!OidIsValid(relid) ||
			(!adjlist_rel_ownercheck(relid, GetUserId()) &&
			 !adjlist_namespace_ownercheck(get_rel_namespace(relid), GetUserId())))
			continue;
		refuse_index_storage_drop(relid, stmt->objects);
		base = guard_base_of(relid);
		if (!OidIsValid(base) || base == relid)
			continue;
		drop_member(base, relid);
		/* (it must be gone at the end: adjlist_on_ddl_end()) */
		ddl_remember_drop(relid);
	}
}

/* The owner of schema nsp (InvalidOid if it is gone). */
static Oid
namespace_owner(Oid nsp)
{
	HeapTuple	tup = SearchSysCache1(NAMESPACEOID, ObjectIdGetDatum(nsp));
	Oid			owner = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		owner = ((Form_pg_namespace) GETSTRUCT(tup))->nspowner;
		ReleaseSysCache(tup);
	}
	return owner;
}

/*
 * Is relation relid among those DROP SCHEMA ... CASCADE of the schemas
 * nsps, or DROP OWNED BY the roles, drops itself (not by a dependency)?
 * DROP OWNED drops the relations the roles own and the schemas they own
 * (with what is in them, or it fails).
 */
static bool
cascade_drops(Oid relid, List *nsps, List *roles)
{
	Oid			nsp = get_rel_namespace(relid);
	ListCell   *lc;

	if (list_member_oid(nsps, nsp))
		return true;
	/*
	 * DROP OWNED drops what each role owns itself (pg_shdepend), not what
	 * a role it is a member of owns: by the owner's OID, not by
	 * has-the-privileges-of (which also makes a superuser own everything).
	 */
	foreach(lc, roles)
		if (adjlist_rel_owner(relid) == lfirst_oid(lc) ||
			namespace_owner(nsp) == lfirst_oid(lc))
			return true;
	return false;
}

/*
 * DROP SCHEMA ... CASCADE of the schemas nsps, or DROP OWNED BY the roles,
 * that drops partitions (at any depth) of an indexed base table and not the
 * table itself: their rows leave the index before they go, as for DROP
 * TABLE (drop_member()).  A partition goes with its parent, so the one to
 * remove is the uppermost of the dropped ones under the base table, whose
 * rows are those of all its own partitions.  One whose base table is
 * dropped as well needs nothing: the index goes with the table.  (Only
 * what the statement drops by name is followed, not what a dependency
 * cascades to, such as a table of a type in the schema.)  The caller has
 * checked that the role may run the statement: it is not to lock anything
 * before a statement that is bound to fail.  A statement that then fails
 * takes the index's change with it.
 */
static void
start_drop_cascade(List *nsps, List *roles)
{
	Relation	rel;
	TableScanDesc scan;
	HeapTuple	tup;
	List	   *tops = NIL;
	List	   *bases = NIL;
	ListCell   *lc;
	ListCell   *b;

	rel = table_open(RelationRelationId, AccessShareLock);
	scan = table_beginscan_catalog(rel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Form_pg_class c = (Form_pg_class) GETSTRUCT(tup);
		Oid			relid = c->oid;
		Oid			base;
		Oid			top = InvalidOid;

		if (!c->relispartition)
			continue;
		base = guard_base_of(relid);
		if (!OidIsValid(base) || base == relid || cascade_drops(base, nsps, roles))
			continue;
		/* the uppermost dropped one from relid up to (not) the base table */
		if (cascade_drops(relid, nsps, roles))
			top = relid;
		foreach(lc, get_partition_ancestors(relid))
		{
			if (lfirst_oid(lc) == base)
				break;
			if (cascade_drops(lfirst_oid(lc), nsps, roles))
				top = lfirst_oid(lc);
		}
		if (OidIsValid(top) && !list_member_oid(tops, top))
		{
			tops = lappend_oid(tops, top);
			bases = lappend_oid(bases, base);
		}
	}
	table_endscan(scan);
	table_close(rel, AccessShareLock);
	forboth(lc, tops, b, bases)
		drop_member(lfirst_oid(b), lfirst_oid(lc));
}

/* DROP SCHEMA ... CASCADE, by a role that may drop every one of them */
void
guard_start_drop_schema(DropStmt *stmt)
{
	List	   *nsps = NIL;
	ListCell   *lc;

	if (stmt->behavior != DROP_CASCADE)
		return;					/* (RESTRICT fails on a schema with a table) */
	foreach(lc, stmt->objects)
	{
		Oid			nsp = get_namespace_oid(strVal(lfirst(lc)), true);

		if (!OidIsValid(nsp))
			continue;
		if (!adjlist_namespace_ownercheck(nsp, GetUserId()))
			return;
		nsps = lappend_oid(nsps, nsp);
	}
	if (nsps != NIL)
		start_drop_cascade(nsps, NIL);
}

/* DROP OWNED BY, by a role that has the privileges of each of them */
void
guard_start_drop_owned(DropOwnedStmt *stmt)
{
	List	   *roles = NIL;
	ListCell   *lc;

	foreach(lc, stmt->roles)
	{
		Oid			role = get_rolespec_oid(lfirst(lc), true);

		/* (DROP OWNED refuses an unknown role or one whose privileges it lacks) */
		if (!OidIsValid(role) || !has_privs_of_role(GetUserId(), role))
			return;
		roles = lappend_oid(roles, role);
	}
	start_drop_cascade(NIL, roles);
}
/* ----------------------------------------------------------------------
 * sql_drop
 * ----------------------------------------------------------------------
 */

static bool
oid_in(Oid *oids, int n, Oid oid)
{
	for (int i = 0; i < n; i++)
		if (oids[i] == oid)
			return true;
	return false;
}

static void
drop_table_if_exists(Oid relid)
{
	if (get_rel_name(relid) == NULL)
		return;
	if (SPI_execute(psprintf("DROP TABLE IF EXISTS %s", adjlist_qualified_name(relid)),
					false, 0) != SPI_OK_UTILITY)
		elog(ERROR, "could not drop table %u", relid);
}

/*
 * Indexes dropped (ALTER TABLE ... DROP CONSTRAINT, a cascade): the base
 * tables that may have lost them must keep a unique key on their base key
 * (base_key.c).  At sql_drop the whole statement is done, so a key dropped
 * and added in one ALTER TABLE passes.  Which tables: the one ALTER TABLE
 * altered, as collected (ddl_collected.c; it drops only its own
 * constraints and indexes); none for DROP TABLE, whose indexes are the
 * dropped tables' own, nor for DROP INDEX,
 * checked before it started (start_drop_index); for any other statement
 * (a DROP ... CASCADE of a type, an operator class, a role's objects) every
 * base table in the schemas of the dropped indexes (an index is in its
 * table's schema).  So a table whose key was missing before (an index made
 * by an older version) does not make unrelated DDL fail; and of those only
 * the ones this transaction holds in ACCESS EXCLUSIVE mode, as dropping a
 * table's index locks it (base_key_check_schema()), so that it never waits
 * for a lock that another role holds on a table it does not touch.
 */
static void
check_dropped_keys(EventTriggerData *ev)
{
	List	   *schemas;
	ListCell   *lc;

	if (IsA(ev->parsetree, DropStmt) &&
		(((DropStmt *) ev->parsetree)->removeType == OBJECT_TABLE ||
		 ((DropStmt *) ev->parsetree)->removeType == OBJECT_FOREIGN_TABLE ||
		 ((DropStmt *) ev->parsetree)->removeType == OBJECT_INDEX))
		return;
	if (IsA(ev->parsetree, AlterTableStmt))
	{
		/* (the table it altered, not its name looked up again) */
		foreach(lc, ddl_collected_commands())
			if (IsA(((DdlCommand *) lfirst(lc))->stmt, AlterTableStmt))
				base_key_check_base(((DdlCommand *) lfirst(lc))->relid);
		return;
	}
	schemas = ddl_dropped_oids("SELECT DISTINCT n.oid FROM pg_catalog.pg_event_trigger_dropped_objects() d "
							   "JOIN pg_catalog.pg_namespace n ON n.nspname OPERATOR(pg_catalog.=) d.schema_name "
							   "WHERE d.object_type OPERATOR(pg_catalog.=) 'index'");
	foreach(lc, schemas)
		base_key_check_schema(lfirst_oid(lc));
}

Datum
adjlist_on_sql_drop(PG_FUNCTION_ARGS)
{
	EventTriggerData *ev = guard_event_data(fcinfo, "adjlist_on_sql_drop");
	Oid		   *dropped;
	int			ndropped;
	List	   *bases = NIL;
	ListCell   *lc;
	MemoryContext caller = CurrentMemoryContext;

	if (!guard_extension_ready())
		PG_RETURN_VOID();
	ddl_names_dropped(ev->parsetree);
	guard_cascade_check_members(ev);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT d.objid FROM pg_catalog.pg_event_trigger_dropped_objects() d "
					"WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass "
					"AND d.objsubid OPERATOR(pg_catalog.=) 0", true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the dropped objects");
	ndropped = (int) SPI_processed;
	dropped = palloc(sizeof(Oid) * Max(ndropped, 1));
	for (int i = 0; i < ndropped; i++)
	{
		bool		isnull;

		dropped[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i],
													SPI_tuptable->tupdesc, 1, &isnull));
	}

	for (int i = 0; i < ndropped; i++)
	{
		TableIndexes *ti = registry_lookup_unchecked(dropped[i]);
		IndexDef   *ix;

		table_options_forget(dropped[i]);

		/* a base table: its indexes go with it */
		if (ti->nindexes > 0 && ti->baserel == dropped[i])
		{
			for (int k = 0; k < ti->nindexes; k++)
			{
				registry_delete(ti->indexes[k].indexrel);
				if (!oid_in(dropped, ndropped, ti->indexes[k].indexrel))
					drop_table_if_exists(ti->indexes[k].indexrel);
				if (OidIsValid(ti->indexes[k].counterrel) &&
					!oid_in(dropped, ndropped, ti->indexes[k].counterrel))
					drop_table_if_exists(ti->indexes[k].counterrel);
			}
			continue;
		}
		/* an index table: unregister it; its base keeps the others */
		ix = registry_index(dropped[i], false);
		if (ix == NULL && registry_involves(dropped[i]))
			registry_forget_counters(dropped[i]);	/* a counter table */
		if (ix != NULL)
		{
			registry_delete(ix->indexrel);
			if (OidIsValid(ix->counterrel) && !oid_in(dropped, ndropped, ix->counterrel))
				drop_table_if_exists(ix->counterrel);
			/* (a base gone with the event triggers off has no triggers to make) */
			if (!oid_in(dropped, ndropped, ix->baserel) && get_rel_name(ix->baserel) != NULL)
			{
				/* (in the caller's memory: SPI_finish() frees SPI's) */
				MemoryContext old = MemoryContextSwitchTo(caller);

				bases = list_append_unique_oid(bases, ix->baserel);
				MemoryContextSwitchTo(old);
			}
		}
	}
	SPI_finish();
	CommandCounterIncrement();
	foreach(lc, bases)
		install_triggers(lfirst_oid(lc));
	check_dropped_keys(ev);
	guard_cascade_recheck_columns(ev);
	PG_RETURN_VOID();
}

