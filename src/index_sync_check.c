/*-------------------------------------------------------------------------
 *
 * index_sync_check.c
 *	  Which triggers may keep an inverted index, and who may write one.
 *
 * adjlist_sync_trigger() (index_sync.c) first asks here whether the
 * trigger that called it is one adjlist installed, in the form it
 * installs it, or the one a table's owner may add for logical
 * replication, and whether the table still has a registered index.
 *
 * The index and counter tables are derived data.  adjlist_index_guard()
 * (BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE FOR EACH STATEMENT on
 * each of them and their partitions, at the end of this file) refuses any write that adjlist does
 * not make itself (index_write.c says which), so that no statement, COPY
 * or data-only restore can put them out of step with their table.  It is a
 * statement trigger: adjlist's own row writes through the executor fire
 * no statement triggers and pay nothing for it.
 *
 * Logical replication.  The triggers are ENABLE ORIGIN: an apply worker
 * (session_replication_role = replica) does not fire them, so a subscriber
 * that receives the index tables too does not write them twice.  A
 * subscriber that receives only the base table and keeps its own index
 * needs a row trigger, since apply workers fire no statement triggers: the
 * table's owner adds adjlist_sync_replica (AFTER INSERT OR UPDATE OR DELETE
 * FOR EACH ROW, ENABLE REPLICA) and enables the TRUNCATE triggers ALWAYS;
 * sync_check_trigger() accepts that trigger only in that form.
 *
 * A trigger that finds no registered index for its table, or an index
 * table of it that is not registered, refuses the write (55000,
 * sync_refuse_unregistered()): the triggers and the index table came back
 * from a dump without the registry's row, which pg_dump -t and -n leave
 * out (the extension's configuration comes with the whole database only),
 * and the index would silently miss every later write.
 * Two exceptions.  adjlist's own statements, which may run between a
 * registration and its triggers.  And a session restoring a dump (one with
 * the settings every pg_dump script and pg_restore make, below): the
 * triggers came back from a schema-only restore and the registry's rows
 * come with the data, maybe after this table's; the trigger does nothing,
 * and when the registry's row arrives the index is rebuilt from the table
 * (index_restore.c).  The guard lets such an index table be written too.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_description.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "ddl_collected.h"
#include "index_admin.h"
#include "index_sync_check.h"
#include "index_write.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_index_guard);

/*
 * The name of one of adjlist's INSERT/UPDATE/DELETE triggers in td that is
 * enabled ALWAYS, or NULL.
 */
static const char *
fires_always_in(TriggerDesc *td)
{
	for (int i = 0; td != NULL && i < td->numtriggers; i++)
	{
		const Trigger *t = &td->triggers[i];

		if (t->tgenabled == TRIGGER_FIRES_ALWAYS &&
			(strcmp(t->tgname, "adjlist_sync") == 0 ||
			 strcmp(t->tgname, "adjlist_sync_ins") == 0 ||
			 strcmp(t->tgname, "adjlist_sync_upd") == 0 ||
			 strcmp(t->tgname, "adjlist_sync_del") == 0))
			return t->tgname;
	}
	return NULL;
}

/*
 * The name of one of adjlist's INSERT/UPDATE/DELETE triggers on rel or on
 * one of its partition ancestors (a statement on the parent fires the
 * parent's statement triggers and the partition's row triggers) that is
 * enabled ALWAYS, or NULL; *where is the table it is on.  Such a trigger fires in a
 * session_replication_role = replica session too, where
 * adjlist_sync_replica would apply the same change a second time.
 */
static const char *
sync_fires_always(Relation rel, Oid *where)
{
	const char *name = fires_always_in(rel->trigdesc);
	List	   *ancestors;
	ListCell   *lc;

	*where = RelationGetRelid(rel);
	if (name != NULL || !rel->rd_rel->relispartition)
		return name;
	ancestors = get_partition_ancestors(RelationGetRelid(rel));
	foreach(lc, ancestors)
	{
		Relation	a = table_open(lfirst_oid(lc), AccessShareLock);

		name = fires_always_in(a->trigdesc);
		if (name != NULL)
		{
			name = pstrdup(name);
			*where = RelationGetRelid(a);
		}
		table_close(a, AccessShareLock);
		if (name != NULL)
			break;
	}
	list_free(ancestors);
	return name;
}

/* Does rel have a trigger of that name? */
bool
rel_has_trigger(Relation rel, const char *name)
{
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td != NULL && i < td->numtriggers; i++)
		if (strcmp(td->triggers[i].tgname, name) == 0)
			return true;
	return false;
}

static bool
transition_names(const Trigger *t, const char *oldname, const char *newname)
{
	return ((t->tgoldtable == NULL) == (oldname == NULL)) &&
		((t->tgnewtable == NULL) == (newname == NULL)) &&
		(oldname == NULL || strcmp(t->tgoldtable, oldname) == 0) &&
		(newname == NULL || strcmp(t->tgnewtable, newname) == 0);
}

/*
 * What keeps trigger t (named adjlist_sync_replica) from being the one the
 * README sets up, AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW with
 * nothing else, as the end of a sentence; NULL if nothing.  Each other form
 * misses changes (an event left out, UPDATE OF a column list, a WHEN
 * condition, a statement trigger, which an apply worker never fires) or
 * applies them at another time (BEFORE, before the row is there; a
 * deferred constraint trigger).  Only that form fires on every change that
 * the statement triggers do not see, when it is made.
 */
static const char *
replica_trigger_fault(const Trigger *t)
{
	int16		type = t->tgtype;

	if (!TRIGGER_FOR_ROW(type))
		return "is a statement trigger";
	if (TRIGGER_FOR_BEFORE(type) || TRIGGER_FOR_INSTEAD(type))
		return "fires before the change";
	if (!TRIGGER_FOR_INSERT(type))
		return "does not fire on INSERT";
	if (!TRIGGER_FOR_UPDATE(type))
		return "does not fire on UPDATE";
	if (!TRIGGER_FOR_DELETE(type))
		return "does not fire on DELETE";
	if (t->tgnattr > 0)
		return "fires only on an UPDATE OF some columns";
	if (t->tgqual != NULL)
		return "has a WHEN condition";
	if (t->tgoldtable != NULL || t->tgnewtable != NULL)
		return "has a REFERENCING clause";
	if (OidIsValid(t->tgconstraint))
		return "is a constraint trigger";
	if (t->tgnargs > 0)
		return "has arguments";
	return NULL;
}

/*
 * The table that trigger t of rel was cloned from (PostgreSQL clones a
 * partitioned table's row triggers to its partitions, which cannot drop
 * them), where it is to be dropped and made again; rel if t is no clone.
 */
static Oid
replica_trigger_home(Relation rel, const Trigger *t)
{
	Oid			home = RelationGetRelid(rel);
	List	   *ancestors;
	ListCell   *lc;

	if (!t->tgisclone || !rel->rd_rel->relispartition)
		return home;
	ancestors = get_partition_ancestors(home);
	foreach(lc, ancestors)
	{
		Relation	a = table_open(lfirst_oid(lc), AccessShareLock);
		TriggerDesc *td = a->trigdesc;
		bool		clone = true;

		for (int i = 0; td != NULL && i < td->numtriggers; i++)
			if (strcmp(td->triggers[i].tgname, t->tgname) == 0)
			{
				home = RelationGetRelid(a);
				clone = td->triggers[i].tgisclone;
			}
		table_close(a, NoLock);
		if (!clone)
			break;
	}
	list_free(ancestors);
	return home;
}

/*
 * adjlist_sync_replica t on rel is not in the README's form: refused, with
 * the statements that make it so (made: by the CREATE TRIGGER that the
 * error undoes).
 */
static void
refuse_replica_form(Relation rel, const Trigger *t, const char *fault, bool made)
{
	const char *home = adjlist_qualified_name(replica_trigger_home(rel, t));
	char	   *create = psprintf("CREATE TRIGGER %s AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION %s.adjlist_sync_trigger(); ALTER TABLE %s ENABLE REPLICA TRIGGER %s",
								  t->tgname, home, adjlist_catalog()->nspname, home, t->tgname);

	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("trigger \"%s\" on table \"%s\" is not in the form adjlist supports",
					t->tgname, RelationGetRelationName(rel)),
			 errdetail("The trigger %s. It must be AFTER INSERT OR UPDATE OR DELETE FOR EACH ROW, with no column list, WHEN condition, REFERENCING clause, arguments or constraint, or some changes would not reach the inverted indexes in step.",
					   fault),
			 made ? errhint("Create it so: %s.", create) :
			 errhint("Make it again: DROP TRIGGER %s ON %s; %s.", t->tgname, home, create)));
}

/*
 * CREATE TRIGGER adjlist_sync_replica on relid, which takes part in an
 * inverted index (the DDL's end, index_guard.c): a form that would miss
 * changes is refused at once, not only when it fires, since it never fires
 * on the changes it misses.  (One made before the index is refused when it
 * fires.)
 */
void
sync_check_replica_trigger(Oid relid)
{
	Relation	rel = table_open(relid, AccessShareLock);
	TriggerDesc *td = rel->trigdesc;

	for (int i = 0; td != NULL && i < td->numtriggers; i++)
	{
		const Trigger *t = &td->triggers[i];
		const char *fault;
		char	   *func;

		if (strcmp(t->tgname, "adjlist_sync_replica") != 0 ||
			get_func_namespace(t->tgfoid) != adjlist_catalog()->namespace ||
			(func = get_func_name(t->tgfoid)) == NULL ||
			strcmp(func, "adjlist_sync_trigger") != 0)
			continue;
		if ((fault = replica_trigger_fault(t)) != NULL)
			refuse_replica_form(rel, t, fault, true);
	}
	table_close(rel, NoLock);
}

/*
 * adjlist_sync_replica, the row trigger the owner of a subscriber's table
 * adds (see the header): refused unless it is in the README's form, enabled
 * REPLICA, and alone in firing in replica mode.
 */
static void
check_replica_trigger(TriggerData *td)
{
	const Trigger *t = td->tg_trigger;
	const char *rel = RelationGetRelationName(td->tg_relation);
	const char *fault = replica_trigger_fault(t);
	const char *other;
	Oid			where;

	if (fault != NULL)
		refuse_replica_form(td->tg_relation, t, fault, false);
	if (t->tgenabled != TRIGGER_FIRES_ON_REPLICA)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on table \"%s\" must fire in replica mode only",
						t->tgname, rel),
				 errdetail("adjlist's own triggers follow the changes made outside replica mode; this trigger would apply them a second time."),
				 errhint("ALTER TABLE %s ENABLE REPLICA TRIGGER %s.",
						 adjlist_qualified_name(RelationGetRelid(td->tg_relation)), t->tgname)));
	if ((other = sync_fires_always(td->tg_relation, &where)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on table \"%s\" and trigger \"%s\" on table \"%s\" both fire in replica mode",
						t->tgname, rel, other, get_rel_name(where)),
				 errdetail("Both would apply the same change to the inverted indexes."),
				 errhint("ALTER TABLE %s ENABLE TRIGGER %s: in replica mode, %s applies the changes.",
						 adjlist_qualified_name(where), other, t->tgname)));
}

/*
 * Is this one of the triggers adjlist installs (install_triggers(), or
 * those of 0.1 and 0.2 before the update), in the form it installs it, or
 * the one a table's owner may add for logical replication?  Another
 * trigger a user attached to adjlist_sync_trigger() would apply a change
 * twice, or read the wrong transition table: refused.
 *
 * adjlist_sync_replica is that one: AFTER INSERT OR UPDATE OR DELETE FOR
 * EACH ROW, enabled REPLICA, created by the owner of a subscriber's table.
 * A logical replication apply worker runs with session_replication_role =
 * replica and fires row triggers only, never statement triggers (and the
 * statement triggers are ENABLE ORIGIN anyway), so it is the only way the
 * subscriber's own index can follow replicated rows.  Enabled REPLICA, it
 * fires exactly where adjlist's statement triggers do not; in any other
 * form (check_replica_trigger()) it would miss changes or apply one twice:
 * refused, with the fix in the hint.
 */
void
sync_check_trigger(TriggerData *td)
{
	const Trigger *t = td->tg_trigger;
	TriggerEvent ev = td->tg_event;
	const char *name = t->tgname;
	bool		row = TRIGGER_FIRED_FOR_ROW(ev);
	bool		ok;

	if (strcmp(name, "adjlist_sync") == 0)
		ok = row && TRIGGER_FIRED_AFTER(ev) &&
			(adjlist_catalog()->legacy || !rel_has_trigger(td->tg_relation, "adjlist_sync_ins"));
	else if (strcmp(name, "adjlist_sync_ins") == 0 || strcmp(name, "adjlist_sync_insert") == 0)
		ok = !row && TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_INSERT(ev) &&
			transition_names(t, NULL, "adjlist_new");
	else if (strcmp(name, "adjlist_sync_upd") == 0)
		ok = !row && TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_UPDATE(ev) &&
			transition_names(t, "adjlist_old", "adjlist_new");
	else if (strcmp(name, "adjlist_sync_del") == 0)
		ok = !row && TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_DELETE(ev) &&
			transition_names(t, "adjlist_old", NULL);
	else if (strcmp(name, "adjlist_sync_before_trunc") == 0)
		ok = TRIGGER_FIRED_BEFORE(ev) && TRIGGER_FIRED_BY_TRUNCATE(ev);
	else if (strcmp(name, "adjlist_sync_trunc") == 0 || strcmp(name, "adjlist_sync_truncate") == 0)
		ok = TRIGGER_FIRED_AFTER(ev) && TRIGGER_FIRED_BY_TRUNCATE(ev);
	else if (strcmp(name, "adjlist_sync_route") == 0)
		ok = row && TRIGGER_FIRED_BEFORE(ev) && TRIGGER_FIRED_BY_INSERT(ev);
	else if (strcmp(name, "adjlist_sync_replica") == 0)
	{
		check_replica_trigger(td);
		ok = true;
	}
	else
		ok = false;
	if (!ok)
		adjlist_citus_shard_check(RelationGetRelid(td->tg_relation));
	if (!ok)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" on table \"%s\" is not one adjlist installed",
						name, RelationGetRelationName(td->tg_relation)),
				 errdetail("adjlist_sync_trigger() keeps inverted indexes only from the triggers create_inverted_index() installs."),
				 errhint("Drop the trigger.")));
}

/*
 * Is this session running a dump's script (psql) or pg_restore?  Every one
 * of them starts with SET check_function_bodies = false and an empty
 * search_path, which an application hardly ever has both of.
 */
bool
restoring_dump(void)
{
	return !check_function_bodies &&
		namespace_search_path != NULL && namespace_search_path[0] == '\0';
}

/*
 * Bases whose commented index tables were all found registered (below),
 * since the last relcache invalidation of any table: a table created or
 * altered anywhere (a restored index table, its triggers, a registration,
 * which invalidates its base) has them looked up again.  A plain COMMENT
 * sends no invalidation; pg_dump restores an index table's triggers after
 * its comment, and those do.
 */
static List *complete_bases = NIL;
static uint64 complete_generation = 0;

void
sync_check_relcache_invalidate(Oid relid)
{
	complete_generation++;
	list_free(complete_bases);
	complete_bases = NIL;
}

/*
 * The first unregistered index table of base that is found: the comment
 * that create_inverted_index() gives an index table names its base table
 * (index_create.c), and pg_dump -t and -n keep it.  A table registered as
 * an index of any table does not count (a base renamed and its name
 * reused).  pg_description is read with the catalog snapshot, as the
 * registry is: an index dropped since a REPEATABLE READ transaction's
 * snapshot was taken is gone.  An answer of none is cached
 * (complete_bases).
 */
/*
 * Could relid be an index table of base: a table in base's schema, owned
 * by base's owner, as create_inverted_index() makes it and a dump restores
 * it?  Anyone may write any comment on a table of their own: one of
 * another role's, or elsewhere, must not make writes to base refused.
 */
static bool
is_index_table_of(Oid relid, Oid base)
{
	HeapTuple	t1 = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	HeapTuple	t2;
	bool		same = false;

	if (!HeapTupleIsValid(t1))
		return false;			/* (dropped since the comment was read) */
	t2 = SearchSysCache1(RELOID, ObjectIdGetDatum(base));
	if (HeapTupleIsValid(t2))
	{
		Form_pg_class c1 = (Form_pg_class) GETSTRUCT(t1);
		Form_pg_class c2 = (Form_pg_class) GETSTRUCT(t2);

		same = c1->relowner == c2->relowner && c1->relnamespace == c2->relnamespace &&
			(c1->relkind == RELKIND_RELATION || c1->relkind == RELKIND_PARTITIONED_TABLE);
		ReleaseSysCache(t2);
	}
	ReleaseSysCache(t1);
	return same;
}

static Oid
unregistered_index_of(Oid base)
{
	char	   *prefix;
	size_t		len;
	Relation	rel;
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			found = InvalidOid;
	uint64		generation = complete_generation;

	if (list_member_oid(complete_bases, base))
		return InvalidOid;
	prefix = index_comment_prefix(base);
	len = strlen(prefix);
	rel = table_open(DescriptionRelationId, AccessShareLock);
	ScanKeyInit(&key[0], Anum_pg_description_classoid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(RelationRelationId));
	ScanKeyInit(&key[1], Anum_pg_description_objsubid, BTEqualStrategyNumber,
				F_INT4EQ, Int32GetDatum(0));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 2, key);
	while (!OidIsValid(found) && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_description d = (Form_pg_description) GETSTRUCT(tup);
		bool		isnull;
		Datum		v = heap_getattr(tup, Anum_pg_description_description,
									 RelationGetDescr(rel), &isnull);
		text	   *desc;

		if (isnull)
			continue;
		/* (most comments are short and stored inline: no copy) */
		desc = DatumGetTextPP(v);
		if (VARSIZE_ANY_EXHDR(desc) >= len && memcmp(VARDATA_ANY(desc), prefix, len) == 0 &&
			is_index_table_of(d->objoid, base) &&
			!OidIsValid(registry_base_of_index(d->objoid)))
			found = d->objoid;
		if ((Pointer) desc != DatumGetPointer(v))
			pfree(desc);
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(found) && generation == complete_generation)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		complete_bases = lappend_oid(complete_bases, base);
		MemoryContextSwitchTo(old);
	}
	return found;
}

/*
 * A write to a table with adjlist's sync triggers and no registered index,
 * or with an index table of its own that is not registered (see the
 * header): refused, unless adjlist itself or a restore writes.  An index
 * table is found by its comment: pg_dump -t of a table and two of its
 * indexes, then only one registered again with existing => true, must not
 * let writes through that the other would silently miss.
 */
void
sync_refuse_unregistered(Relation rel)
{
	Oid			relid = RelationGetRelid(rel);
	Oid			base;
	Oid			idx;
	const char *idxname;
	bool		registered;

	if (index_writes_allowed() || restoring_dump())
		return;
	base = registry_base_of(relid);
	registered = OidIsValid(base);
	/*
	 * A partition that a DETACH still running has detached keeps the sync
	 * triggers until the command's end removes them: a write into it
	 * meanwhile (a ddl_command_end event trigger firing before adjlist's)
	 * is into a table that no longer belongs to the index.
	 */
	if (!registered && ddl_detaching(relid))
		return;
	if (!registered)
		base = rel->rd_rel->relispartition ?
			llast_oid(get_partition_ancestors(relid)) : relid;
	idx = unregistered_index_of(base);
	idxname = OidIsValid(idx) ? get_rel_name(idx) : NULL;
	if (idxname == NULL && registered)
		return;					/* (or dropped since it was found) */
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 idxname != NULL ?
			 errmsg("inverted index \"%s\" of table \"%s\" is not registered",
					idxname, get_rel_name(base)) :
			 errmsg("table \"%s\" has adjlist's triggers but no registered inverted index",
					get_rel_name(base)),
			 errdetail("A write to \"%s\" would not reach the index. Its registration is a row of adjlist_inverted_indexes, which pg_dump -t and -n leave out.",
					   RelationGetRelationName(rel)),
			 idxname != NULL && registered ?
			 errhint("Register the index again with create_inverted_index(%s, index_name => %s, existing => true, ...) and the options it was made with, or drop the index table; see \"Dump and restore\" in the README.",
					 quote_literal_cstr(adjlist_qualified_name(base)),
					 quote_literal_cstr(idxname)) :
			 idxname != NULL ?
			 errhint("Register the index again with create_inverted_index(%s, index_name => %s, existing => true, ...) and the options it was made with, or drop the index table and the adjlist_sync_* triggers of \"%s\"; see \"Dump and restore\" in the README.",
					 quote_literal_cstr(adjlist_qualified_name(base)),
					 quote_literal_cstr(idxname), get_rel_name(base)) :
			 errhint("Create the index with create_inverted_index(%s, ...), or drop the adjlist_sync_* triggers of \"%s\"; see \"Dump and restore\" in the README.",
					 quote_literal_cstr(adjlist_qualified_name(base)), get_rel_name(base))));
}

/*
 * BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE FOR EACH STATEMENT on an
 * index or counter table (and each of its partitions): only adjlist writes
 * them.
 */
Datum
adjlist_index_guard(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	Oid			relid;
	Oid			base;
	const char *basename;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function adjlist_index_guard can only be called as a trigger")));
	if (index_writes_allowed())
		return PointerGetDatum(NULL);
	relid = RelationGetRelid(td->tg_relation);
	base = registry_base_of_index(relid);
	if (!OidIsValid(base))
		return PointerGetDatum(NULL);	/* not registered (yet): not an index */
	basename = get_rel_name(base);
	/* (a registration left behind by DDL made with the event triggers off) */
	if (basename == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is registered as an inverted index of a table that no longer exists",
						RelationGetRelationName(td->tg_relation)),
				 errdetail("Its registration in adjlist_inverted_indexes names table OID %u.", base),
				 errhint("Drop the table, which removes the registration too.")));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("table \"%s\" is kept by adjlist from table \"%s\"",
					RelationGetRelationName(td->tg_relation), basename),
			 errdetail("Its rows are derived from the rows of \"%s\"; a direct write would put it out of step.",
					   basename),
			 errhint("Write to table \"%s\"; rebuild_inverted_index() repairs an index. A data-only restore may skip this table: the base table's rows are indexed as they are restored.",
					 basename)));
	return PointerGetDatum(NULL);
}

bool
sync_trigger_keeps_inserts(int16 tgtype, char tgenabled, Oid tgfoid)
{
	char	   *fname;

	if (!TRIGGER_FOR_AFTER(tgtype) || !TRIGGER_FOR_INSERT(tgtype) ||
		tgenabled == TRIGGER_FIRES_ON_REPLICA ||
		get_func_namespace(tgfoid) != adjlist_catalog()->namespace)
		return false;
	fname = get_func_name(tgfoid);
	return fname != NULL && strcmp(fname, "adjlist_sync_trigger") == 0;
}
