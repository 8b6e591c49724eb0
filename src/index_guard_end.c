/*-------------------------------------------------------------------------
 *
 * index_guard_end.c
 *	  The ddl_command_end event trigger: what a DDL statement did to a table
 *	  taking part in an inverted index is followed (a new or attached
 *	  partition gets the triggers and its rows indexed, a detached one loses
 *	  them, an owner change reaches the index and counter tables) or refused
 *	  (inheritance, a broken index definition).  index_guard.c's header says
 *	  what a DBA may do; this is the second half of it.
 *
 * Every follow-up acts on the relations the command changed, by the OIDs
 * PostgreSQL collected for it (ddl_collected.c), never its names looked up
 * again: the command's own code may have moved search_path by then, and a
 * name would find another role's table.
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
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "commands/event_trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/deparse_utility.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "compat.h"
#include "ddl_collected.h"
#include "detach_pending.h"
#include "index_admin.h"
#include "index_guard_int.h"
#include "index_sync_check.h"
#include "index_persistence.h"
#include "index_predicate.h"
#include "index_restore.h"
#include "index_write.h"
#include "registry.h"
#include "table_options.h"

PG_FUNCTION_INFO_V1(adjlist_on_ddl_end);

/* ----------------------------------------------------------------------
 * ddl_command_end
 * ----------------------------------------------------------------------
 */

/*
 * The tables relid inherits from (CREATE TABLE ... INHERITS), from
 * pg_inherits: what the command did, not what its names find now.
 */
static List *
inheritance_parents(Oid relid)
{
	Relation	inhrel = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *parents = NIL;

	ScanKeyInit(&key, Anum_pg_inherits_inhrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(inhrel, InheritsRelidSeqnoIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
		parents = lappend_oid(parents, ((Form_pg_inherits) GETSTRUCT(tup))->inhparent);
	systable_endscan(scan);
	table_close(inhrel, AccessShareLock);
	return parents;
}

/* CREATE [FOREIGN] TABLE relid ... PARTITION OF or INHERITS */
static void
end_create_table(Oid relid, CreateStmt *stmt)
{
	ListCell   *lc;

	if (stmt->inhRelations == NIL)
		return;
	if (stmt->partbound == NULL)
	{
		foreach(lc, inheritance_parents(relid))
			if (registry_involves(lfirst_oid(lc)))
				guard_refuse_inheritance(relid, lfirst_oid(lc));
		return;
	}
	if (!get_rel_relispartition(relid))
		return;
	{
		Oid			base = guard_base_of(get_partition_parent(relid, false));

		if (!OidIsValid(base))
			return;
		persistence_check_member(base, relid);
		install_triggers(base);
		/* a foreign table can bring rows with it */
		if (get_rel_relkind(relid) == RELKIND_FOREIGN_TABLE)
			index_member_rows(base, relid, true);
	}
}

/* ALTER TABLE base OWNER TO r: the index and counter tables follow. */
static void
follow_owner(Oid base)
{
	TableIndexes *ti = registry_lookup_unchecked(base);
	const char *owner;

	if (ti->nindexes == 0 || ti->baserel != base)
		return;
	owner = quote_identifier(GetUserNameFromId(adjlist_rel_owner(base), false));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (int i = 0; i < ti->nindexes; i++)
	{
		List	   *rels = list_make1_oid(ti->indexes[i].indexrel);
		ListCell   *lc;

		if (get_rel_relkind(ti->indexes[i].indexrel) == RELKIND_PARTITIONED_TABLE)
			rels = find_all_inheritors(ti->indexes[i].indexrel, NoLock, NULL);
		if (OidIsValid(ti->indexes[i].counterrel))
			rels = lappend_oid(rels, ti->indexes[i].counterrel);
		foreach(lc, rels)
		{
			if (adjlist_rel_owner(lfirst_oid(lc)) == adjlist_rel_owner(base))
				continue;
			/* as adjlist's own statement: not rechecked until all have moved */
			index_execute_sql(psprintf("ALTER TABLE %s OWNER TO %s",
									   adjlist_qualified_name(lfirst_oid(lc)), owner),
							  false, SPI_OK_UTILITY);
		}
	}
	SPI_finish();
}

/*
 * Check every index that relid (a base, index or counter table, or a
 * partition of one) takes part in; an error refuses the DDL.  adjlist's own
 * DDL is checked by the statement that runs it, once it is all done.
 */
static void
recheck(Oid relid)
{
	Oid			base = guard_base_of(relid);

	if (index_writes_allowed())
		return;
	if (!OidIsValid(base))
		base = registry_base_of_index(relid);
	if (OidIsValid(base))
	{
		registry_invalidate(base);
		CommandCounterIncrement();
		registry_check_ddl(base);
	}
}

/* recheck(), for the sql_drop trigger (index_guard_cascade.c) */
void
guard_recheck(Oid relid)
{
	recheck(relid);
}

/*
 * ALTER TYPE ... CASCADE of composite type relid (or ... RENAME ATTRIBUTE)
 * has altered its typed tables: check every index they take part in.
 */
static void
end_alter_type(Oid relid)
{
	ListCell   *lc;

	foreach(lc, guard_typed_tables(relid))
	{
		recheck(lfirst_oid(lc));
		table_options_check(lfirst_oid(lc));
	}
}

/*
 * The command's names found other tables at its end than at its start,
 * where adjlist prepared the ones they found then (search_path moved in
 * between, by another ddl_command_start event trigger): refused, which
 * undoes what the start did.
 */
void
refuse_moved_names(const char *command)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s acted on another table than the one its name found when it started",
					command),
			 errdetail("search_path changed while the command ran (a ddl_command_start event trigger?), and a table taking part in an inverted index would not be kept exact."),
			 errhint("Qualify the table names with their schema, or keep search_path unchanged in event triggers.")));
}

/*
 * ALTER TABLE relid (of base table base, if it is one or a partition of
 * one) ... ATTACH PARTITION, at its end: each table it attached.
 */
static void
end_attach(Oid relid, Oid base, PartitionCmd *pc, CommandId since)
{
	ListCell   *lc;

	foreach(lc, ddl_attached_partitions(relid, pc->name, since))
	{
		Oid			part = lfirst_oid(lc);

		if (registry_involves(part))
			guard_refuse_new_member(part, relid);
		/* (a partition of an index or counter table is its storage) */
		if (OidIsValid(base))
		{
			persistence_check_member(base, part);
			detach_pending_refuse(part, psprintf("attach \"%s\" to \"%s\"", get_rel_name(part), get_rel_name(relid)));
			index_member_rows(base, part, true);
			install_triggers(base);
		}
	}
}

/*
 * ... DETACH PARTITION [FINALIZE], at its end: the partition that its start
 * found and DETACH took, which must have left relid.
 */
static void
end_detach(Oid relid, Oid base, bool finalize, CommandId since)
{
	Oid			part = ddl_detached_partition(relid, since);

	if (!OidIsValid(base))
		return;
	/* (its start found another table, or another partition) */
	if (!OidIsValid(part) ||
		(get_rel_relispartition(part) && get_partition_parent(part, true) == relid))
		refuse_moved_names("ALTER TABLE ... DETACH PARTITION");
	/* (DETACH's rows left at its start: start_detach()) */
	if (finalize)
		index_member_rows(base, part, false);
	remove_triggers(part);
}

/*
 * ATTACH, DETACH and INHERIT of ALTER TABLE relid (of base table base, if
 * it is one or a partition of one): the tables they took, not their names
 * looked up again (ddl_collected.c).
 */
static void
end_alter_relations(Oid relid, Oid base, AlterTableStmt *stmt, List *subcmds,
					CommandId since)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_AttachPartition)
			end_attach(relid, base, (PartitionCmd *) cmd->def, since);
		else if (cmd->subtype == AT_DetachPartition ||
				 cmd->subtype == AT_DetachPartitionFinalize)
			end_detach(relid, base, cmd->subtype == AT_DetachPartitionFinalize, since);
	}
	/* INHERIT: the parent it added, as the command collected it */
	foreach(lc, subcmds)
	{
		CollectedATSubcmd *sub = (CollectedATSubcmd *) lfirst(lc);

		if (IsA(sub->parsetree, AlterTableCmd) &&
			((AlterTableCmd *) sub->parsetree)->subtype == AT_AddInherit &&
			sub->address.classId == RelationRelationId &&
			(registry_involves(relid) || registry_involves(sub->address.objectId)))
			guard_refuse_inheritance(relid, sub->address.objectId);
	}
}

/*
 * ALTER TABLE (or ALTER TYPE) of relid, the relation the command altered
 * (never its name looked up again: ddl_collected.c).
 */
static void
end_alter_table(Oid relid, AlterTableStmt *stmt, List *subcmds, CommandId since)
{
	Oid			base = guard_base_of(relid);
	bool		follow_trunc = false;
	ListCell   *lc;

	if (stmt->objtype == OBJECT_TYPE)
	{
		end_alter_type(relid);
		return;
	}
	end_alter_relations(relid, base, stmt, subcmds, since);
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		switch (cmd->subtype)
		{
			case AT_ChangeOwner:
				if (OidIsValid(base) && base == relid)
					follow_owner(base);
				break;
			case AT_SetLogged:
			case AT_SetUnLogged:
				if (OidIsValid(base) && base == relid)
					persistence_follow(base);
				break;
			case AT_EnableTrig:
			case AT_EnableAlwaysTrig:
			case AT_EnableTrigAll:
			case AT_EnableTrigUser:
				/* without ONLY, as core recurses to clones (index_admin.c) */
				if (OidIsValid(base) && stmt->relation->inh &&
					(cmd->name == NULL || strcmp(cmd->name, "adjlist_sync_before_trunc") == 0))
					follow_trunc = true;
				break;
			default:
				break;
		}
	}
	if (follow_trunc)
		admin_follow_trunc_state(relid);
	recheck(relid);
	table_options_check(relid);

	/*
	 * The registry's triggers enabled again after pg_restore --data-only
	 * --disable-triggers (only its owner can): the predicates of the rows
	 * copied meanwhile are bound now.
	 */
	if (relid == adjlist_catalog()->registry)
		index_predicate_bind_missing(InvalidOid);
}

/*
 * CREATE TRIGGER adjlist_sync_replica on an indexed table: its form is
 * checked (index_sync_check.c); a trigger with transition tables on an
 * index or counter table is refused.  No other trigger on adjlist_sync_trigger() can
 * be renamed to it: ALTER TRIGGER ... RENAME of one is refused at the start.
 * A sync trigger that adjlist did not make (pg_restore's post-data) may
 * complete a restore (index_restore.c).
 */
static void
end_create_trigger(Oid relid, CreateTrigStmt *stmt)
{
	const char *name = stmt->trigname;
	Oid			base;

	if (OidIsValid(relid) && name != NULL && strcmp(name, "adjlist_sync_replica") == 0 &&
		OidIsValid(guard_base_of(relid)))
		sync_check_replica_trigger(relid);

	/* one of the sync triggers, made by pg_restore: the last one completes a restore */
	if (OidIsValid(relid) && name != NULL && strncmp(name, "adjlist_sync", 12) == 0 &&
		strcmp(name, "adjlist_sync_replica") != 0 && !index_writes_allowed())
		index_restore_triggers_made(relid, name);

	/*
	 * A trigger of an index or counter table with transition tables:
	 * adjlist writes those tables row by row, as logical replication's
	 * apply does, so statement triggers do not fire for its writes and
	 * transition tables would not be filled (a row trigger reading one
	 * would fail every write of the base table).
	 */
	if (OidIsValid(relid) && stmt->transitionRels != NIL &&
		OidIsValid(base = registry_base_of_index(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("trigger \"%s\" of table \"%s\" cannot have transition tables",
						name, get_rel_name(relid)),
				 errdetail("Table \"%s\" holds the inverted index of table \"%s\", which adjlist writes row by row: its statement triggers do not fire for those writes, and no transition table is filled.",
						   get_rel_name(relid), get_rel_name(base)),
				 errhint("Use a row trigger without REFERENCING, or a trigger on table \"%s\".",
						 get_rel_name(base))));
}

/*
 * One command of the statement that ended, on relation relid (a table, or
 * the one its trigger, constraint, policy or rule belongs to; the index of
 * CREATE INDEX), as PostgreSQL collected it.
 */
static void
end_command(DdlCommand *c, CommandId since)
{
	Node	   *stmt = c->stmt;

	if (IsA(stmt, CreateForeignTableStmt))
		end_create_table(c->relid, &((CreateForeignTableStmt *) stmt)->base);
	else if (IsA(stmt, CreateStmt))
		end_create_table(c->relid, (CreateStmt *) stmt);
	else if (IsA(stmt, AlterTableStmt))
		end_alter_table(c->relid, (AlterTableStmt *) stmt, c->subcmds, since);
	else if (IsA(stmt, CreateTrigStmt))
		end_create_trigger(c->relid, (CreateTrigStmt *) stmt);
	else if (IsA(stmt, IndexStmt) && ((IndexStmt *) stmt)->unique)
	{
		/* a unique index on an index table could refuse or lose its rows */
		Oid			relid = IndexGetRelation(c->relid, true);

		if (OidIsValid(relid))
			recheck(relid);
	}
	else if (IsA(stmt, RenameStmt) && ((RenameStmt *) stmt)->relation != NULL)
	{
		if (((RenameStmt *) stmt)->renameType == OBJECT_ATTRIBUTE)
			end_alter_type(c->relid);
		else
		{
			recheck(c->relid);
			table_options_check(c->relid);
		}
	}
}

/*
 * The statement has run: what it did is followed, or refused, on the
 * relations its commands changed, by their OIDs as PostgreSQL collected
 * them (ddl_collected.c): its names may find other tables by now.
 */
Datum
adjlist_on_ddl_end(PG_FUNCTION_ARGS)
{
	EventTriggerData *ev = guard_event_data(fcinfo, "adjlist_on_ddl_end");
	Node	   *stmt = ev->parsetree;
	ListCell   *lc;

	if (!guard_extension_ready())
		PG_RETURN_VOID();
	/* (CREATE SCHEMA: its CREATE TABLE, INDEX and TRIGGER are collected) */
	if (IsA(stmt, CreateForeignTableStmt) || IsA(stmt, CreateStmt) ||
		IsA(stmt, AlterTableStmt) || IsA(stmt, CreateTrigStmt) ||
		IsA(stmt, IndexStmt) || IsA(stmt, RenameStmt) || IsA(stmt, CreateSchemaStmt))
	{
		/* ATTACH PARTITION: what this command attached (ddl_collected.c) */
		CommandId	since = IsA(stmt, AlterTableStmt) ? ddl_command_started(stmt)
			: InvalidCommandId;

		foreach(lc, ddl_collected_commands())
			end_command((DdlCommand *) lfirst(lc), since);
		/* DETACH: its start prepared a table that the command did not take */
		if (ddl_detach_left(since))
			refuse_moved_names("ALTER TABLE ... DETACH PARTITION");
	}
	/* DROP TABLE: a partition whose rows its start took out must be gone */
	if (IsA(stmt, DropStmt) && OidIsValid(ddl_drop_left(ddl_command_started(stmt))))
		refuse_moved_names("DROP TABLE");
	/* any other name that found another table at the start (index_guard_names.c) */
	ddl_names_end(stmt);
	/* a renamed or moved object: the predicates' text names it anew */
	if (IsA(stmt, RenameStmt) || IsA(stmt, AlterObjectSchemaStmt))
	{
		index_predicate_refresh();
		index_comments_refresh();
	}
	PG_RETURN_VOID();
}

