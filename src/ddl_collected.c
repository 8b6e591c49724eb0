/*-------------------------------------------------------------------------
 *
 * ddl_collected.c
 *	  The relations a DDL command changed, as PostgreSQL collected them.
 *
 * What adjlist does at ddl_command_end (and sql_drop) must act on exactly
 * the relations the command changed (index_guard_end.c).  Looking the
 * statement's names up again when it ends is not the same: the command's
 * own code (a CHECK constraint's function, a column default, a trigger)
 * may have moved search_path meanwhile, with set_config(..., true), and
 * the same name would then find another role's table.  PostgreSQL records
 * each command it runs with the OIDs of what it changed, and
 * pg_event_trigger_ddl_commands() returns the commands of the statement
 * whose event is firing: DDL that the command's functions run is a
 * statement of its own, collected and reported apart, so the two never
 * mix.
 *
 * The SQL columns give one object per command, but ALTER TABLE's
 * subcommands (the partition that ATTACH or DETACH took, the parent that
 * INHERIT named) are only in the collected command itself, which the
 * function's "command" column points to (tcop/deparse_utility.h; contrib's
 * test_ddl_deparse reads it the same way).  It lives in the event trigger
 * state until the event trigger function returns.
 *
 * Before PostgreSQL 17 ALTER TABLE ... ATTACH and DETACH PARTITION collect
 * no address, so the partition is found otherwise.  ATTACH: a partition of
 * the table now, of the name the command gave, whose pg_inherits row this
 * command wrote (core looks the name up after the partition bound's
 * expressions have run, which may have moved search_path: the name alone
 * is not enough, nor what ddl_command_start found).  This command's: the
 * row's cmin is at least the command counter at its ddl_command_start
 * (every earlier statement's writes have lower ones, and the counter
 * never goes back, not even when a subtransaction aborts), and no ATTACH
 * that ended meanwhile took it (one run by this command's code, such as
 * another event trigger's, which has its own start and end).  The same
 * name may be another schema's partition attached earlier in the
 * transaction, whose rows are in the index already.  DETACH: the partition
 * that ddl_command_start found (index_guard.c removes its rows there,
 * while it is still a partition), carried to the end of the same command
 * in the same subtransaction (and not one that an enclosing command's start
 * remembered: since its own start): DETACH runs no code of the user's before it
 * opens the partition, so core finds the same one; DDL that another
 * command's code runs is a command of its own, with its own start and end,
 * which ALTER TABLE's own DDL cannot interleave on the same table (core
 * refuses to alter a table that a running statement of the session uses).
 * But the start trigger of the user's that fires after adjlist's may move
 * search_path, and core then detaches another table than the one adjlist
 * found: what ddl_command_start remembered for the command and its end did
 * not take (ddl_detach_left()), or a partition of an indexed table that
 * ddl_command_start did not prepare, makes the end refuse the command.
 * What a failed command leaves belongs to a subtransaction that is gone,
 * and goes with the transaction's memory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_policy.h"
#include "catalog/pg_rewrite.h"
#include "catalog/pg_trigger.h"
#include "executor/spi.h"
#include "tcop/deparse_utility.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "ddl_collected.h"

/* Column relattr of the row objid of catalog classid (an OID), if any. */
static Oid
catalog_row_oid(Oid classid, AttrNumber relattr, Oid objid)
{
	Relation	catalog = table_open(classid, AccessShareLock);
	HeapTuple	tup = get_catalog_object_by_oid(catalog, get_object_attnum_oid(classid), objid);
	Oid			result = InvalidOid;

	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		d = heap_getattr(tup, relattr, RelationGetDescr(catalog), &isnull);

		if (!isnull)
			result = DatumGetObjectId(d);
	}
	table_close(catalog, AccessShareLock);
	return result;
}

/*
 * The relation that address is (a table, a column of one, an index), or
 * that it belongs to (a trigger, a table constraint, a policy, a rule):
 * what ALTER ... RENAME and CREATE TRIGGER report.
 */
static Oid
address_relation(const ObjectAddress *address)
{
	switch (address->classId)
	{
		case RelationRelationId:
			return address->objectId;
		case ConstraintRelationId:
			return catalog_row_oid(ConstraintRelationId, Anum_pg_constraint_conrelid,
								   address->objectId);
		case TriggerRelationId:
			return catalog_row_oid(TriggerRelationId, Anum_pg_trigger_tgrelid,
								   address->objectId);
		case PolicyRelationId:
			return catalog_row_oid(PolicyRelationId, Anum_pg_policy_polrelid,
								   address->objectId);
		case RewriteRelationId:
			return catalog_row_oid(RewriteRelationId, Anum_pg_rewrite_ev_class,
								   address->objectId);
		default:
			return InvalidOid;
	}
}

static DdlCommand *
make_command(CollectedCommand *cc)
{
	DdlCommand *c = palloc0(sizeof(DdlCommand));

	c->stmt = cc->parsetree;
	if (cc->type == SCT_AlterTable && cc->d.alterTable.classId == RelationRelationId)
	{
		c->relid = cc->d.alterTable.objectId;
		c->subcmds = cc->d.alterTable.subcmds;
	}
	else if (cc->type == SCT_Simple)
		c->relid = address_relation(&cc->d.simple.address);
	return c;
}

List *
ddl_collected_commands(void)
{
	List	   *collected = NIL;
	List	   *result = NIL;
	ListCell   *lc;
	MemoryContext caller = CurrentMemoryContext;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT c.command FROM pg_catalog.pg_event_trigger_ddl_commands() c",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the collected commands");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		/* (in the caller's memory: SPI_finish() frees SPI's) */
		MemoryContext old = MemoryContextSwitchTo(caller);

		if (!isnull)
			collected = lappend(collected, DatumGetPointer(d));
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	foreach(lc, collected)
	{
		DdlCommand *c = make_command((CollectedCommand *) lfirst(lc));

		if (OidIsValid(c->relid) && c->stmt != NULL)
			result = lappend(result, c);
	}
	return result;
}

/*
 * What the commands of this transaction carry from their start to their
 * end, and what ATTACH PARTITION has already taken, in
 * TopTransactionContext: it goes with the transaction's memory.
 */
typedef struct Starting
{
	Node	   *stmt;			/* the statement (only compared) */
	SubTransactionId subxact;
	CommandId	since;			/* the command counter at its start */
} Starting;

typedef struct Attached
{
	Oid			parent;
	Oid			child;
	CommandId	cmin;			/* of its pg_inherits row */
} Attached;

static List *starting = NIL;
static List *attached = NIL;

/* A DETACH that ddl_command_start saw. */
typedef struct Detaching
{
	Oid			relid;
	Oid			part;
	SubTransactionId subxact;
	CommandId	cid;			/* the command counter then */
} Detaching;

static List *detaching = NIL;

/* A partition that DROP TABLE's ddl_command_start took out of its index. */
typedef struct Dropping
{
	Oid			relid;
	SubTransactionId subxact;
	CommandId	cid;
} Dropping;

static List *dropping = NIL;
static bool carry_registered = false;
static MemoryContextCallback carry_callback;

/* TopTransactionContext goes: so do the lists in it. */
static void
forget_carried(void *arg)
{
	starting = NIL;
	attached = NIL;
	detaching = NIL;
	dropping = NIL;
	carry_registered = false;
}

static MemoryContext
carry_context(void)
{
	if (!carry_registered)
	{
		carry_callback.func = forget_carried;
		carry_callback.arg = NULL;
		MemoryContextRegisterResetCallback(TopTransactionContext, &carry_callback);
		carry_registered = true;
	}
	return MemoryContextSwitchTo(TopTransactionContext);
}

void
ddl_remember_start(Node *stmt)
{
	MemoryContext old = carry_context();
	Starting   *a = palloc(sizeof(Starting));

	a->stmt = stmt;
	a->subxact = GetCurrentSubTransactionId();
	a->since = GetCurrentCommandId(false);
	starting = lappend(starting, a);
	MemoryContextSwitchTo(old);
}

CommandId
ddl_command_started(Node *stmt)
{
	SubTransactionId subxact = GetCurrentSubTransactionId();

	for (int i = list_length(starting) - 1; i >= 0; i--)
	{
		Starting   *a = (Starting *) list_nth(starting, i);
		CommandId	since = a->since;

		if (a->stmt != stmt || a->subxact != subxact)
			continue;
		starting = list_delete_nth_cell(starting, i);
		return since;
	}
	return InvalidCommandId;
}

static bool
already_attached(Oid parent, Oid child, CommandId cmin)
{
	ListCell   *lc;

	foreach(lc, attached)
	{
		Attached   *a = (Attached *) lfirst(lc);

		if (a->parent == parent && a->child == child && a->cmin == cmin)
			return true;
	}
	return false;
}

List *
ddl_attached_partitions(Oid relid, const RangeVar *name, CommandId since)
{
	Oid			nsp = InvalidOid;
	Relation	inhrel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	List	   *parts = NIL;

	/* (a schema named explicitly means the same whatever search_path is) */
	if (name->schemaname != NULL &&
		!OidIsValid(nsp = LookupExplicitNamespace(name->schemaname, true)))
		return NIL;
	inhrel = table_open(InheritsRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_inherits_inhparent, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	scan = systable_beginscan(inhrel, InheritsParentIndexId, true, NULL, 1, &key);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Oid			child = ((Form_pg_inherits) GETSTRUCT(tup))->inhrelid;
		char	   *relname;
		CommandId	cmin;
		MemoryContext old;
		Attached   *a;

		if (!TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup->t_data)))
			continue;
		/* written by this command, and not by a command it ran */
		cmin = HeapTupleHeaderGetCmin(tup->t_data);
		if ((since != InvalidCommandId && cmin < since) ||
			already_attached(relid, child, cmin))
			continue;
		relname = get_rel_name(child);
		if (relname == NULL || strcmp(relname, name->relname) != 0 ||
			(OidIsValid(nsp) && get_rel_namespace(child) != nsp))
			continue;
		parts = lappend_oid(parts, child);
		old = carry_context();
		a = palloc(sizeof(Attached));
		a->parent = relid;
		a->child = child;
		a->cmin = cmin;
		attached = lappend(attached, a);
		MemoryContextSwitchTo(old);
	}
	systable_endscan(scan);
	table_close(inhrel, AccessShareLock);
	return parts;
}

void
ddl_remember_detach(Oid relid, Oid part)
{
	MemoryContext old = carry_context();
	Detaching  *d = palloc(sizeof(Detaching));

	d->relid = relid;
	d->part = part;
	d->subxact = GetCurrentSubTransactionId();
	d->cid = GetCurrentCommandId(false);
	detaching = lappend(detaching, d);
	MemoryContextSwitchTo(old);
}

Oid
ddl_detached_partition(Oid relid, CommandId since)
{
	SubTransactionId subxact = GetCurrentSubTransactionId();

	/* the latest of this table in this subtransaction: its own start's */
	for (int i = list_length(detaching) - 1; i >= 0; i--)
	{
		Detaching  *d = (Detaching *) list_nth(detaching, i);
		Oid			part = d->part;

		if (d->relid != relid || d->subxact != subxact ||
			(since != InvalidCommandId && d->cid < since))
			continue;
		detaching = list_delete_nth_cell(detaching, i);
		return part;
	}
	return InvalidOid;
}

bool
ddl_detaching(Oid part)
{
	ListCell   *lc;

	foreach(lc, detaching)
		if (((Detaching *) lfirst(lc))->part == part)
			return true;
	return false;
}

bool
ddl_detach_left(CommandId since)
{
	SubTransactionId subxact = GetCurrentSubTransactionId();
	ListCell   *lc;

	if (since == InvalidCommandId)
		return false;
	foreach(lc, detaching)
	{
		Detaching  *d = (Detaching *) lfirst(lc);

		if (d->subxact == subxact && d->cid >= since)
			return true;
	}
	return false;
}

void
ddl_remember_drop(Oid relid)
{
	MemoryContext old = carry_context();
	Dropping   *d = palloc(sizeof(Dropping));

	d->relid = relid;
	d->subxact = GetCurrentSubTransactionId();
	d->cid = GetCurrentCommandId(false);
	dropping = lappend(dropping, d);
	MemoryContextSwitchTo(old);
}

Oid
ddl_drop_left(CommandId since)
{
	SubTransactionId subxact = GetCurrentSubTransactionId();
	Oid			left = InvalidOid;

	if (since == InvalidCommandId)
		return InvalidOid;
	/* this command's (its own start's and later), taken off the list */
	for (int i = list_length(dropping) - 1; i >= 0; i--)
	{
		Dropping   *d = (Dropping *) list_nth(dropping, i);

		if (d->subxact != subxact || d->cid < since)
			continue;
		if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(d->relid)))
			left = d->relid;
		dropping = list_delete_nth_cell(dropping, i);
	}
	return left;
}

List *
ddl_dropped_oids(const char *query)
{
	MemoryContext caller = CurrentMemoryContext;
	List	   *oids = NIL;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(query, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "could not read the dropped objects");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		d = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		/* (in the caller's memory: SPI_finish() frees SPI's) */
		MemoryContext old = MemoryContextSwitchTo(caller);

		if (!isnull)
			oids = lappend_oid(oids, DatumGetObjectId(d));
		MemoryContextSwitchTo(old);
	}
	SPI_finish();
	return oids;
}
