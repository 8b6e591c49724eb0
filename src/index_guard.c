/*-------------------------------------------------------------------------
 *
 * index_guard.c
 *	  Event triggers that keep inverted indexes exact through DDL.
 *
 * What a DBA does to a live table, and what follows:
 *
 *	- CREATE TABLE ... PARTITION OF a base table (at any depth), or
 *	  ATTACH PARTITION: the new partition gets the sync triggers, and the
 *	  rows it brings are indexed.  A table that is itself a base, index or
 *	  counter table cannot become a partition of another.
 *	- DETACH PARTITION: the detached table's rows leave the index (read at
 *	  the start, while it is still a partition, after locking as DETACH
 *	  will) and it loses the triggers.  DETACH ... CONCURRENTLY runs in two
 *	  transactions between which the index could not be exact: refused,
 *	  before it starts.
 *	- DROP TABLE of a partition: its rows leave the index first (the
 *	  partition and its parent are locked as DROP would lock them, once
 *	  the role is known to be allowed to drop it).
 *	- DROP TABLE of a base table: its index and counter tables go with it.
 *	  DROP TABLE of an index table: the index is unregistered and the base
 *	  table's triggers re-made for the indexes it has left.  Nothing blocks
 *	  a drop that the dropping role is allowed to do.
 *	- ALTER TABLE base OWNER TO r: the index and counter tables follow.
 *	  So they do ALTER TABLE base SET LOGGED / UNLOGGED; the same on one of
 *	  them alone, or an unlogged partition of a partitioned base table, is
 *	  refused (index_persistence.c).
 *	- Any other ALTER TABLE or column RENAME of a base, index or counter
 *	  table, or CREATE UNIQUE INDEX on one: allowed, unless it breaks an
 *	  index definition (a used column dropped, renamed or retyped, an index
 *	  table given another owner, or a primary key or unique index that
 *	  could make two index rows conflict); that is refused with the message
 *	  of registry.c's check, which names the index.
 *	- ALTER COLUMN ... TYPE of a column an index uses (a key or projected
 *	  column, a column of the predicate or of the base table's key, or one
 *	  that a generated column among those reads) is refused before it
 *	  starts, even to the same type: it rewrites the column's values, with
 *	  USING or a new type modifier or collation, and no row trigger fires,
 *	  so the index would keep the old ones.  Only naming the column's own
 *	  type, type modifier and collation without USING, which changes
 *	  nothing, is allowed.  The same goes for ... SET EXPRESSION of such a
 *	  generated column (PostgreSQL 17 on).
 *	- ALTER TYPE ... CASCADE of the type of a typed table (CREATE TABLE ...
 *	  OF) alters the table's columns as ALTER TABLE would, and is checked as
 *	  ALTER TABLE is: a retype at the start, and the index definitions of
 *	  every typed table at the end (a used attribute dropped or renamed).
 *	  The typed tables of an index or counter table's type refuse it all.
 *	- ALTER ... RENAME or SET SCHEMA of anything (a schema, a function, an
 *	  operator, a type...): the text of each sparse index's predicate is
 *	  deparsed again from its bound form, so that the registry (and
 *	  pg_dump) names what the index calls under its new name.  Dropping
 *	  what a predicate calls is refused by pg_depend (index_predicate.c).
 *	- Table inheritance (INHERITS, ALTER TABLE ... INHERIT) involving any of
 *	  these tables: refused; indexes support declarative partitioning.
 *	- adjlist's triggers on these tables (the sync triggers of a base table
 *	  and its partitions, the guard of an index or counter table and its
 *	  partitions): DISABLE TRIGGER (by name, USER or ALL), ENABLE REPLICA
 *	  TRIGGER (which stops it firing in ordinary sessions), DROP TRIGGER,
 *	  ALTER TRIGGER ... RENAME and ... DEPENDS ON EXTENSION are refused,
 *	  for every role: writes made behind a disabled trigger would never
 *	  reach the index.  ENABLE [ALWAYS] TRIGGER stays allowed, and so does
 *	  anything done to adjlist_sync_replica, the row trigger a table's owner
 *	  adds on a logical replication subscriber (index_sync_check.c), which is the
 *	  owner's.  ENABLE [ALWAYS] TRIGGER adjlist_sync_before_trunc (or ALL
 *	  or USER) of a partitioned table, without ONLY, reaches the same
 *	  trigger of its partitions, as core's reaches the clones of a row
 *	  trigger, and a new partition's takes its parent's state
 *	  (index_admin.c): a subscriber replays TRUNCATE of one partition.
 *	  One exception: DISABLE TRIGGER ALL by a superuser, which is
 *	  how pg_dump and pg_restore --data-only --disable-triggers load a
 *	  table's rows as dumped; a superuser bypasses the triggers with
 *	  session_replication_role = replica anyway, and verify_inverted_index()
 *	  and rebuild_inverted_index() find and mend what either leaves.
 *
 *	- DROP INDEX (also CONCURRENTLY, checked before it starts), ALTER TABLE
 *	  ... DROP CONSTRAINT or a cascade that leaves a base table without a
 *	  primary key or unique index on an index's base key, or replaces it by
 *	  a deferrable one while the index table's key is immediate: refused
 *	  (base_key.c), naming the index.
 *	- A statement whose names, looked up here, find other objects than
 *	  those it then acts on (another ddl_command_start event trigger moved
 *	  search_path meanwhile) is refused at its end when either takes part
 *	  in an index (index_guard_names.c); a row written into a partition
 *	  between the start of its DETACH or DROP and the end is refused
 *	  (index_sync_leaving.c).
 *
 * The event trigger functions run as the role doing the DDL, which must be
 * allowed to do it; only the registry is written as its owner (registry_write.c).
 *
 * Three files: this one holds the ddl_command_start trigger (the guards
 * and refusals above, taken before a command changes anything);
 * index_guard_drop.c what DROP does (a partition's rows leave the index at
 * the start; the sql_drop trigger unregisters and re-makes at the end);
 * index_guard_end.c the ddl_command_end trigger, which follows ATTACH,
 * DETACH, CREATE ... PARTITION OF, OWNER TO and rechecks the definitions.
 * What they share is in index_guard_int.h.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/index.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_attrdef.h"
#include "catalog/pg_class.h"
#include "catalog/pg_depend.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parse_type.h"
#include "storage/lmgr.h"
#include "tcop/deparse_utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "base_key.h"
#include "catalog.h"
#include "compat.h"
#include "ddl_collected.h"
#include "index_admin.h"
#include "index_guard_int.h"
#include "index_sync_check.h"
#include "index_sync_leaving.h"
#include "index_persistence.h"
#include "index_predicate.h"
#include "index_write.h"
#include "registry.h"
#include "table_options.h"

PG_FUNCTION_INFO_V1(adjlist_on_ddl_start);

EventTriggerData *
guard_event_data(FunctionCallInfo fcinfo, const char *fname)
{
	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function %s can only be called as an event trigger", fname)));
	return (EventTriggerData *) fcinfo->context;
}

/* Is adjlist installed in this database? (event triggers outlive nothing) */
bool
guard_extension_ready(void)
{
	return OidIsValid(get_extension_oid("adjlist", true));
}

/* (at ddl_command_start only, where the command is about to look it up too) */
Oid
guard_rangevar_oid(RangeVar *rv)
{
	return rv ? RangeVarGetRelid(rv, NoLock, true) : InvalidOid;
}

/* The registered base table of relid (itself or an ancestor), if any. */
Oid
guard_base_of(Oid relid)
{
	return OidIsValid(relid) ? registry_base_of(relid) : InvalidOid;
}

/*
 * Table child would inherit from parent, and one of them takes part in an
 * inverted index: the message names the one that does.
 */
void
guard_refuse_inheritance(Oid child, Oid parent)
{
	if (registry_involves(child))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" takes part in an inverted index and cannot inherit from \"%s\"",
						get_rel_name(child), get_rel_name(parent)),
				 errdetail("Inverted indexes support declarative partitioning, not table inheritance.")));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("table \"%s\" cannot inherit from \"%s\", which takes part in an inverted index",
					get_rel_name(child), get_rel_name(parent)),
			 errdetail("Inverted indexes support declarative partitioning, not table inheritance.")));
}

void
guard_refuse_new_member(Oid relid, Oid parent)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("table \"%s\" takes part in an inverted index and cannot become a partition of \"%s\"",
					get_rel_name(relid), get_rel_name(parent)),
			 errhint("Drop its inverted indexes first.")));
}

/* ----------------------------------------------------------------------
 * ddl_command_start
 * ----------------------------------------------------------------------
 */

/*
 * What a user may ALTER on an index or counter table (or a partition of
 * one): its storage, statistics, triggers, row security, owner (checked at
 * the end), a primary key or unique constraint (pg_restore adds the index
 * table's primary key after its rows), NOT OF (which leaves the columns as
 * they are, and out of reach of ALTER TYPE), never its columns, other
 * constraints or partitions, which adjlist's writers and readers depend on.
 */
static bool
harmless_on_derived(AlterTableCmd *cmd)
{
	switch (cmd->subtype)
	{
		case AT_AddConstraint:
			{
				Constraint *c = castNode(Constraint, cmd->def);

				return c->contype == CONSTR_PRIMARY || c->contype == CONSTR_UNIQUE;
			}
		case AT_AddIndex:
		case AT_AddIndexConstraint:
		case AT_SetStatistics:
		case AT_SetOptions:
		case AT_ResetOptions:
		case AT_SetStorage:
		case AT_SetCompression:
		case AT_ClusterOn:
		case AT_DropCluster:
		case AT_SetLogged:
		case AT_SetUnLogged:
		case AT_SetRelOptions:
		case AT_ResetRelOptions:
		case AT_ReplaceRelOptions:
		case AT_SetTableSpace:
		case AT_ChangeOwner:
		case AT_EnableTrig:
		case AT_EnableAlwaysTrig:
		case AT_EnableReplicaTrig:
		case AT_DisableTrig:
		case AT_EnableTrigAll:
		case AT_DisableTrigAll:
		case AT_EnableTrigUser:
		case AT_DisableTrigUser:
		case AT_ReplicaIdentity:
		case AT_EnableRowSecurity:
		case AT_DisableRowSecurity:
		case AT_ForceRowSecurity:
		case AT_NoForceRowSecurity:
		case AT_DropOf:
			return true;
		default:
			return false;
	}
}

static void
refuse_derived(Oid relid, Oid base)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot alter the columns, constraints or partitions of \"%s\"",
					get_rel_name(relid)),
			 errdetail("It belongs to an inverted index of table \"%s\", which adjlist keeps.",
					   get_rel_name(base)),
			 errhint("Drop the index with drop_inverted_index() and create it again as needed.")));
}

/* ----------------------------------------------------------------------
 * Column types: ALTER COLUMN ... TYPE and ... SET EXPRESSION
 * ----------------------------------------------------------------------
 */

static bool
name_in(List *names, const char *name)
{
	ListCell   *lc;

	foreach(lc, names)
		if (strcmp((const char *) lfirst(lc), name) == 0)
			return true;
	return false;
}

/*
 * The columns of relid (by name) that its generated column attnum reads,
 * from the dependencies of its generation expression; NIL if attnum is not
 * a generated column.
 */
static List *
generation_inputs(Oid relid, AttrNumber attnum)
{
	Oid			defoid;
	Relation	deprel;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *names = NIL;

	if (attnum <= 0 || get_attgenerated(relid, attnum) == '\0' ||
		!OidIsValid(defoid = GetAttrDefaultOid(relid, attnum)))
		return NIL;
	deprel = table_open(DependRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_depend_classid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(AttrDefaultRelationId));
	ScanKeyInit(&key[1], Anum_pg_depend_objid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(defoid));
	scan = systable_beginscan(deprel, DependDependerIndexId, true, NULL, 2, key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_depend d = (Form_pg_depend) GETSTRUCT(tup);
		char	   *name;

		if (d->refclassid == RelationRelationId && d->refobjid == relid &&
			d->refobjsubid > 0 &&
			(name = get_attname(relid, (AttrNumber) d->refobjsubid, true)) != NULL)
			names = lappend(names, name);
	}
	systable_endscan(scan);
	table_close(deprel, AccessShareLock);
	return names;
}

/*
 * Does index ix of table base use column col: as a key or projected
 * column, a column of the base table's key or of the predicate, or a
 * column that a generated column among those reads?
 */
static bool
index_uses_column(Oid base, const IndexDef *ix, const char *col)
{
	List	   *used = NIL;
	ListCell   *lc;

	for (int i = 0; i < ix->ncols; i++)
		used = lappend(used, ix->colnames[i]);
	for (int i = 0; i < ix->nbasekey; i++)
		used = lappend(used, ix->base_key[i]);
	if (ix->predicate != NULL)
		used = list_concat(used, index_predicate_columns(ix->predicate));
	if (name_in(used, col))
		return true;
	foreach(lc, used)
		if (name_in(generation_inputs(base, get_attnum(base, (const char *) lfirst(lc))), col))
			return true;
	return false;
}

/* The name of the first inverted index of base that uses column col, or NULL. */
static char *
index_using_column(Oid base, const char *col)
{
	TableIndexes *ti = registry_lookup_unchecked(base);

	for (int i = 0; i < ti->nindexes; i++)
		if (index_uses_column(base, &ti->indexes[i], col))
			return get_rel_name(ti->indexes[i].indexrel);
	return NULL;
}

/*
 * An ALTER COLUMN ... TYPE that changes nothing: the column's own type,
 * type modifier and collation (a new type's default collation when COLLATE
 * is left out, as ALTER TABLE takes it), without USING.  PostgreSQL then
 * keeps every value as it is.  A type that does not exist is left for
 * ALTER TABLE to report.
 */
static bool
column_type_unchanged(Oid relid, AlterTableCmd *cmd, bool *unknown)
{
	ColumnDef  *def = castNode(ColumnDef, cmd->def);
	AttrNumber	attnum = get_attnum(relid, cmd->name);
	Oid			oldtype;
	Oid			oldcoll;
	int32		oldtypmod;
	Oid			newtype;
	int32		newtypmod;
	Type		t;

	*unknown = false;
	if (def->raw_default != NULL || attnum <= 0)
		return false;
	t = LookupTypeName(NULL, def->typeName, &newtypmod, true);
	if (t == NULL)
	{
		*unknown = true;
		return false;
	}
	newtype = typeTypeId(t);
	ReleaseSysCache(t);
	get_atttypetypmodcoll(relid, attnum, &oldtype, &oldtypmod, &oldcoll);
	return newtype == oldtype && newtypmod == oldtypmod &&
		GetColumnDefCollation(NULL, def, newtype) == oldcoll;
}

/*
 * ALTER COLUMN ... TYPE (unless it changes nothing) or ... SET EXPRESSION
 * of a column that an index of base uses, on relid (base, a partition of
 * it, or a typed table altered by ALTER TYPE ... CASCADE): the column's
 * values would be rewritten without a row trigger, so it is refused.
 */
static void
check_column_cmd(Oid relid, Oid base, AlterTableCmd *cmd)
{
	bool		retype = cmd->subtype == AT_AlterColumnType;
	bool		unknown;
	char	   *idx;

	if ((!retype && !ADJLIST_AT_SET_EXPRESSION(cmd->subtype)) || cmd->name == NULL ||
		(idx = index_using_column(base, cmd->name)) == NULL)
		return;
	if (retype && (column_type_unchanged(relid, cmd, &unknown) || unknown))
		return;
	if (retype)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot alter the type of column \"%s\" of table \"%s\", which inverted index \"%s\" uses",
						cmd->name, get_rel_name(relid), idx),
				 errdetail("A new type, type modifier, collation or USING expression rewrites the column's values without firing a row trigger, so the index would keep the old ones; only the column's own type, modifier and collation without USING, which change nothing, are allowed."),
				 errhint("Drop the index with drop_inverted_index(), alter the column, and create the index again.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("cannot change the generation expression of column \"%s\" of table \"%s\", which inverted index \"%s\" uses",
					cmd->name, get_rel_name(relid), idx),
			 errdetail("ALTER COLUMN ... SET EXPRESSION rewrites the column's values without firing a row trigger, so the index would keep the old ones."),
			 errhint("Drop the index with drop_inverted_index(), alter the column, and create the index again.")));
}

/*
 * The typed tables of composite type relid (CREATE TABLE ... OF, or ALTER
 * TABLE ... OF), which ALTER TYPE ... CASCADE alters; NIL if relid is not
 * a composite type.  (pg_class has no index on reloftype: ALTER TYPE scans
 * it too.)
 */
List *
guard_typed_tables(Oid relid)
{
	Oid			typid;
	Relation	classrel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *tables = NIL;

	if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_COMPOSITE_TYPE ||
		!OidIsValid(typid = get_rel_type_id(relid)))
		return NIL;
	classrel = table_open(RelationRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_class_reloftype, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(typid));
	scan = systable_beginscan(classrel, InvalidOid, false, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
		tables = lappend_oid(tables, ((Form_pg_class) GETSTRUCT(tup))->oid);
	systable_endscan(scan);
	table_close(classrel, AccessShareLock);
	return tables;
}

/* Does ALTER TABLE or ALTER TYPE rewrite a column's values (or may it)? */
static bool
rewrites_column(List *cmds)
{
	ListCell   *lc;

	foreach(lc, cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_AlterColumnType || ADJLIST_AT_SET_EXPRESSION(cmd->subtype))
			return true;
	}
	return false;
}

/*
 * ALTER TYPE ... CASCADE (ADD, DROP, ALTER ATTRIBUTE) of composite type
 * relid: on a typed table that is an index or counter table (or a
 * partition of one), refused; on a base table, checked as ALTER TABLE's
 * retype is.  Without CASCADE, ALTER TYPE refuses a type with typed tables
 * itself; a typed table the role does not own, likewise.  The type and
 * then each table are locked first, as ALTER TYPE will lock them, so that
 * an index created meanwhile is seen.
 */
static void
start_alter_type(Oid relid, AlterTableStmt *stmt)
{
	ListCell   *lc;
	ListCell   *c;

	if (index_writes_allowed() || get_rel_relkind(relid) != RELKIND_COMPOSITE_TYPE ||
		!adjlist_rel_ownercheck(relid, GetUserId()))
		return;
	LockRelationOid(relid, AccessExclusiveLock);
	foreach(lc, guard_typed_tables(relid))
	{
		Oid			t = lfirst_oid(lc);
		Oid			base;

		if (!adjlist_rel_ownercheck(t, GetUserId()))
			continue;
		LockRelationOid(t, AccessExclusiveLock);
		foreach(c, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, c);

			if (cmd->behavior != DROP_CASCADE)
				continue;
			if (OidIsValid(base = registry_base_of_index(t)))
				refuse_derived(t, base);
			if (OidIsValid(base = guard_base_of(t)))
				check_column_cmd(t, base, cmd);
		}
	}
}

/* ----------------------------------------------------------------------
 * adjlist's triggers: not to be disabled, dropped or renamed
 * ----------------------------------------------------------------------
 */

/*
 * The base table of the inverted indexes that relid takes part in (as a
 * base, index or counter table, or a partition of one at any depth), if
 * relid is owned by the role doing the DDL: a role that does not own it is
 * refused by the DDL itself, and told nothing about it here.  adjlist's own
 * DDL (index_writes_allowed()) is never refused.
 */
static Oid
trigger_guarded(Oid relid)
{
	Oid			base;

	if (!OidIsValid(relid) || index_writes_allowed() ||
		!adjlist_rel_ownercheck(relid, GetUserId()))
		return InvalidOid;
	base = guard_base_of(relid);
	return OidIsValid(base) ? base : registry_base_of_index(relid);
}

/*
 * The name of a trigger of relid that adjlist installed (its function is
 * adjlist_sync_trigger() or adjlist_index_guard()), named name, or any with
 * name NULL; NULL if there is none.  adjlist_sync_replica is the table
 * owner's (index_sync_check.c), not adjlist's: what the owner does to it is the
 * owner's business.
 */
static char *
own_trigger(Oid relid, const char *name)
{
	Oid			nsp = adjlist_catalog()->namespace;
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	char	   *found = NULL;

	ScanKeyInit(&key, Anum_pg_trigger_tgrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(tgrel, TriggerRelidNameIndexId, true, NULL, 1, &key);
	while (found == NULL && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_trigger t = (Form_pg_trigger) GETSTRUCT(tup);
		const char *tgname = NameStr(t->tgname);
		char	   *func;

		if ((name != NULL && strcmp(tgname, name) != 0) ||
			strcmp(tgname, "adjlist_sync_replica") == 0 || get_func_namespace(t->tgfoid) != nsp)
			continue;
		func = get_func_name(t->tgfoid);
		if (func != NULL && (strcmp(func, "adjlist_sync_trigger") == 0 ||
							 strcmp(func, "adjlist_index_guard") == 0))
			found = pstrdup(tgname);
	}
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	return found;
}

/*
 * The inverted indexes relid takes part in, quoted and separated by
 * commas, and how many: of a base table (or a partition of one), all of
 * its indexes; of an index or counter table (or a partition of one), the
 * index it belongs to.
 */
static char *
index_names(Oid relid, Oid base, int *n)
{
	TableIndexes *ti = registry_lookup_unchecked(base);
	List	   *rels = list_make1_oid(relid);
	StringInfoData buf;

	if (guard_base_of(relid) != base && get_rel_relispartition(relid))
		rels = list_concat(rels, get_partition_ancestors(relid));
	initStringInfo(&buf);
	*n = 0;
	for (int i = 0; i < ti->nindexes; i++)
	{
		const IndexDef *ix = &ti->indexes[i];

		if (guard_base_of(relid) != base && !list_member_oid(rels, ix->indexrel) &&
			!(OidIsValid(ix->counterrel) && list_member_oid(rels, ix->counterrel)))
			continue;
		appendStringInfo(&buf, "%s\"%s\"", *n > 0 ? ", " : "", get_rel_name(ix->indexrel));
		(*n)++;
	}
	return buf.data;
}

/*
 * Refuse what msg says (e.g. cannot disable trigger "x" on table "t") done
 * to adjlist's trigger tgname on relid, a member of the indexes of base.
 */
static void
refuse_trigger_change(const char *msg, const char *tgname, Oid relid, Oid base,
					  const char *hint)
{
	int			n;
	char	   *names = index_names(relid, base, &n);

	if (guard_base_of(relid) == base)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg_internal("%s", msg),
				 errdetail_plural("Trigger \"%s\" keeps inverted index %s exact: writes the trigger does not see would never reach the index.",
								  "Trigger \"%s\" keeps inverted indexes %s exact: writes the trigger does not see would never reach them.",
								  n, tgname, names),
				 errhint("%s", hint)));
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg_internal("%s", msg),
			 errdetail("Trigger \"%s\" keeps every write but adjlist's out of inverted index %s, which only the rows of table \"%s\" may change.",
					   tgname, names, get_rel_name(base)),
			 errhint("%s", hint)));
}

static const char *const bulk_load_hint =
"To load rows without indexing them one by one, drop the index with drop_inverted_index() and create it again after the load.  A superuser may write with session_replication_role = replica, as the README describes, and then run rebuild_inverted_index().";

static const char *const derived_hint =
"adjlist alone writes the tables of an inverted index; rebuild_inverted_index() rewrites one from its base table.";

static const char *const drop_hint =
"Drop the index with drop_inverted_index(), which removes its triggers.";

/* ALTER TABLE ... DISABLE TRIGGER / ENABLE REPLICA TRIGGER of adjlist's. */
static void
check_trigger_cmd(Oid relid, Oid base, AlterTableCmd *cmd)
{
	const char *hint = guard_base_of(relid) == base ? bulk_load_hint : derived_hint;
	char	   *tgname;

	switch (cmd->subtype)
	{
		case AT_DisableTrig:
		case AT_EnableReplicaTrig:
			if ((tgname = own_trigger(relid, cmd->name)) != NULL)
				refuse_trigger_change(psprintf(cmd->subtype == AT_DisableTrig ?
											   "cannot disable trigger \"%s\" on table \"%s\"" :
											   "cannot make trigger \"%s\" on table \"%s\" fire in replica mode only",
											   tgname, get_rel_name(relid)),
									  tgname, relid, base, hint);
			break;
		case AT_DisableTrigAll:
			/* pg_dump's and pg_restore's --disable-triggers (file header) */
			if (superuser())
				break;
			/* FALLTHROUGH */
		case AT_DisableTrigUser:
			if ((tgname = own_trigger(relid, NULL)) != NULL)
				refuse_trigger_change(psprintf(cmd->subtype == AT_DisableTrigAll ?
											   "cannot disable all triggers on table \"%s\"" :
											   "cannot disable the user triggers on table \"%s\"",
											   get_rel_name(relid)),
									  tgname, relid, base, hint);
			break;
		default:
			break;
	}
}

static void
check_trigger_cmds(AlterTableStmt *stmt)
{
	Oid			relid = guard_rangevar_oid(stmt->relation);
	Oid			base = trigger_guarded(relid);
	ListCell   *lc;

	if (!OidIsValid(base))
		return;
	foreach(lc, stmt->cmds)
		check_trigger_cmd(relid, base, lfirst_node(AlterTableCmd, lc));
}

/* DROP TRIGGER of adjlist's */
static void
start_drop_trigger(DropStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->objects)
	{
		List	   *names = (List *) lfirst(lc);
		const char *tgname = strVal(llast(names));
		Oid			relid;
		Oid			base;

		if (list_length(names) < 2)
			continue;
		relid = guard_rangevar_oid(makeRangeVarFromNameList(list_truncate(list_copy(names),
																	list_length(names) - 1)));
		base = trigger_guarded(relid);
		if (OidIsValid(base) && own_trigger(relid, tgname) != NULL)
			refuse_trigger_change(psprintf("cannot drop trigger \"%s\" on table \"%s\"",
										   tgname, get_rel_name(relid)),
								  tgname, relid, base, drop_hint);
	}
}

/*
 * ALTER TRIGGER ... RENAME (adjlist finds its triggers by name) and ...
 * DEPENDS ON EXTENSION (which DROP EXTENSION would then drop) of adjlist's
 */
static void
start_alter_trigger(Node *stmt)
{
	Oid			relid;
	Oid			base;
	const char *tgname;

	if (IsA(stmt, RenameStmt) && ((RenameStmt *) stmt)->renameType == OBJECT_TRIGGER)
	{
		relid = guard_rangevar_oid(((RenameStmt *) stmt)->relation);
		tgname = ((RenameStmt *) stmt)->subname;
	}
	else if (IsA(stmt, AlterObjectDependsStmt) &&
			 ((AlterObjectDependsStmt *) stmt)->objectType == OBJECT_TRIGGER &&
			 !((AlterObjectDependsStmt *) stmt)->remove)
	{
		relid = guard_rangevar_oid(((AlterObjectDependsStmt *) stmt)->relation);
		tgname = strVal(llast(castNode(List, ((AlterObjectDependsStmt *) stmt)->object)));
	}
	else
		return;
	base = trigger_guarded(relid);
	if (OidIsValid(base) && own_trigger(relid, tgname) != NULL)
		refuse_trigger_change(psprintf(IsA(stmt, RenameStmt) ?
									   "cannot rename trigger \"%s\" on table \"%s\"" :
									   "cannot make trigger \"%s\" on table \"%s\" depend on an extension",
									   tgname, get_rel_name(relid)),
							  tgname, relid, base, drop_hint);
}

/*
 * ALTER TABLE ... RENAME COLUMN of an index or counter table, by its owner
 * (anyone else is refused by the command), is refused before it happens,
 * as the rest of ALTER TABLE on such a table is (start_alter_table()): the
 * index is read and written by its column names.
 */
static void
start_rename_column(RenameStmt *stmt)
{
	Oid			relid = guard_rangevar_oid(stmt->relation);
	Oid			base;

	if (OidIsValid(relid) && !index_writes_allowed() &&
		adjlist_rel_ownercheck(relid, GetUserId()) &&
		OidIsValid(base = registry_base_of_index(relid)))
		refuse_derived(relid, base);
}

/*
 * DETACH PARTITION (not CONCURRENTLY) of a partition of relid: its rows
 * leave the index now, read in C while the partition is still in it
 * (base_scan_direct()), which needs no privilege of anyone's.  Locked first as DETACH will lock, the table and
 * then the partition, and only for a role that owns the table: DETACH
 * refuses any other before it locks anything.  A DETACH that then fails
 * takes the index's change with it.
 */
static void
start_detach(Oid relid, PartitionCmd *cmd)
{
	Oid			part = guard_rangevar_oid(cmd->name);
	Oid			base;

	if (!OidIsValid(part) || !adjlist_rel_ownercheck(relid, GetUserId()))
		return;
	LockRelationOid(relid, AccessExclusiveLock);
	LockRelationOid(part, AccessExclusiveLock);
	base = guard_base_of(relid);
	/* (DETACH refuses a table that is not a partition of relid) */
	if (!OidIsValid(base) || part == base || !get_rel_relispartition(part) ||
		linitial_oid(get_partition_ancestors(part)) != relid)
		return;
	index_member_rows(base, part, false);
	sync_leaving_mark(base, part, true);
	/* (and it loses the triggers at the end: end_detach()) */
	ddl_remember_detach(relid, part);
}

static void
start_alter_table(AlterTableStmt *stmt)
{
	Oid			relid = guard_rangevar_oid(stmt->relation);
	Oid			base;
	bool		guarded;
	ListCell   *lc;

	if (!OidIsValid(relid))
		return;
	if (stmt->objtype == OBJECT_TYPE)
	{
		start_alter_type(relid, stmt);
		return;
	}
	/* (a role that does not own the table is refused by ALTER TABLE itself) */
	guarded = !index_writes_allowed() && adjlist_rel_ownercheck(relid, GetUserId());
	/*
	 * (a retype locks the table as ALTER TABLE will, before looking for the
	 * indexes that use the column: one created meanwhile is seen)
	 */
	if (guarded && rewrites_column(stmt->cmds))
		LockRelationOid(relid, AccessExclusiveLock);
	check_trigger_cmds(stmt);
	/* (ALTER FOREIGN TABLE: only its triggers and column types are checked here) */
	if (stmt->objtype == OBJECT_FOREIGN_TABLE)
	{
		if (guarded && OidIsValid(base = guard_base_of(relid)))
			foreach(lc, stmt->cmds)
				check_column_cmd(relid, base, lfirst_node(AlterTableCmd, lc));
		return;
	}
	/* SET LOGGED / UNLOGGED: index_persistence.c */
	if (guarded)
		foreach(lc, stmt->cmds)
		{
			AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

			if (cmd->subtype == AT_SetLogged || cmd->subtype == AT_SetUnLogged)
				persistence_check_alter(relid, cmd->subtype == AT_SetLogged);
		}
	if (guarded && OidIsValid(base = registry_base_of_index(relid)))
	{
		foreach(lc, stmt->cmds)
			if (!harmless_on_derived(lfirst_node(AlterTableCmd, lc)))
				refuse_derived(relid, base);
		return;
	}
	if (!OidIsValid(base = guard_base_of(relid)))
		return;
	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (guarded)
			check_column_cmd(relid, base, cmd);
		if (cmd->subtype == AT_DetachPartition && ((PartitionCmd *) cmd->def)->concurrent)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("cannot detach a partition of \"%s\" concurrently", get_rel_name(relid)),
					 errdetail("Table \"%s\" has an inverted index, which DETACH PARTITION ... CONCURRENTLY could not keep exact between its two transactions.",
							   get_rel_name(guard_base_of(relid))),
					 errhint("Use ALTER TABLE ... DETACH PARTITION without CONCURRENTLY.")));
		if (cmd->subtype == AT_DetachPartition)
			start_detach(relid, (PartitionCmd *) cmd->def);
		/* (FINALIZE: the rows leave at the end, as the triggers do) */
		if (cmd->subtype == AT_DetachPartitionFinalize)
			ddl_remember_detach(relid, guard_rangevar_oid(((PartitionCmd *) cmd->def)->name));
	}
}


/*
 * DROP INDEX [CONCURRENTLY] of the primary key or unique index that a base
 * key needs: refused before it starts (base_key.c), the table locked as
 * DROP INDEX will lock it, so that no other drop of such a key passes
 * meanwhile.  (The concurrent form commits before sql_drop would see it.)
 */
static void
start_drop_index(DropStmt *stmt)
{
	List	   *dropping = NIL;
	List	   *bases = NIL;
	ListCell   *lc;

	foreach(lc, stmt->objects)
	{
		Oid			index = guard_rangevar_oid(makeRangeVarFromNameList((List *) lfirst(lc)));
		Oid			table;
		char		kind = get_rel_relkind(index);

		if (kind != RELKIND_INDEX && kind != RELKIND_PARTITIONED_INDEX)
			continue;
		table = IndexGetRelation(index, true);
		if (!OidIsValid(table) || guard_base_of(table) != table)
			continue;
		dropping = lappend_oid(dropping, index);
		bases = list_append_unique_oid(bases, table);
	}
	foreach(lc, bases)
	{
		Oid			base = lfirst_oid(lc);

		/* (a role that does not own it is refused by DROP INDEX itself) */
		if (!adjlist_rel_ownercheck(base, GetUserId()))
			continue;
		LockRelationOid(base, stmt->concurrent ? ShareUpdateExclusiveLock : AccessExclusiveLock);
		base_key_check_drop(base, dropping);
	}
}

Datum
adjlist_on_ddl_start(PG_FUNCTION_ARGS)
{
	EventTriggerData *ev = guard_event_data(fcinfo, "adjlist_on_ddl_start");

	if (!guard_extension_ready())
		PG_RETURN_VOID();
	ddl_names_start(ev->parsetree);
	/* (ATTACH, DETACH PARTITION, DROP TABLE: where it begins, for its end) */
	if (IsA(ev->parsetree, DropStmt) &&
		(((DropStmt *) ev->parsetree)->removeType == OBJECT_TABLE ||
		 ((DropStmt *) ev->parsetree)->removeType == OBJECT_FOREIGN_TABLE))
		ddl_remember_start(ev->parsetree);
	if (IsA(ev->parsetree, AlterTableStmt))
	{
		ListCell   *lc;

		foreach(lc, ((AlterTableStmt *) ev->parsetree)->cmds)
		{
			AlterTableType t = lfirst_node(AlterTableCmd, lc)->subtype;

			if (t == AT_AttachPartition || t == AT_DetachPartition ||
				t == AT_DetachPartitionFinalize)
			{
				ddl_remember_start(ev->parsetree);
				break;
			}
		}
	}
	/* (after pg_upgrade, once: before a rename or drop of what they name) */
	index_predicate_rebind_all();
	guard_refuse_foreign_options(ev->parsetree);
	if (IsA(ev->parsetree, AlterTableStmt))
		start_alter_table((AlterTableStmt *) ev->parsetree);
	else if (IsA(ev->parsetree, DropStmt) &&
			 ((DropStmt *) ev->parsetree)->removeType == OBJECT_TRIGGER)
		start_drop_trigger((DropStmt *) ev->parsetree);
	else if (IsA(ev->parsetree, DropStmt) &&
			 ((DropStmt *) ev->parsetree)->removeType == OBJECT_INDEX)
		start_drop_index((DropStmt *) ev->parsetree);
	else if (IsA(ev->parsetree, DropStmt) &&
			 ((DropStmt *) ev->parsetree)->removeType == OBJECT_SCHEMA)
		guard_start_drop_schema((DropStmt *) ev->parsetree);
	else if (IsA(ev->parsetree, DropStmt))
		guard_start_drop((DropStmt *) ev->parsetree);
	else if (IsA(ev->parsetree, DropOwnedStmt))
		guard_start_drop_owned((DropOwnedStmt *) ev->parsetree);
	else if (IsA(ev->parsetree, RenameStmt) &&
			 ((RenameStmt *) ev->parsetree)->renameType == OBJECT_COLUMN)
		start_rename_column((RenameStmt *) ev->parsetree);
	else
		start_alter_trigger(ev->parsetree);
	PG_RETURN_VOID();
}

