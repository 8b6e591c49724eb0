/*-------------------------------------------------------------------------
 *
 * index_admin.c
 *	  The DDL side of inverted indexes: the triggers a registered table
 *	  gets, the index rows of partitions that come and go, and
 *	  drop_inverted_index().
 *
 * create_inverted_index() is in index_create.c (in one transaction) and
 * index_build.c (concurrently); the checks and helpers they share with
 * this file are declared in index_admin.h.
 *
 * All DDL is generated here, once, from the catalogs, with every name
 * quoted and qualified; nothing is written twice in SQL or PL/pgSQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/progress.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"
#include "utils/tuplesort.h"
#include "utils/typcache.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_admin.h"
#include "index_rule.h"
#include "index_write.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_drop_inverted_index);

/* ----------------------------------------------------------------------
 * Small helpers
 * ----------------------------------------------------------------------
 */

void
admin_exec(const char *sql, int expected)
{
	/* adjlist's own statements: the guards of index tables let them through */
	index_execute_sql(sql, false, expected);
}

void
admin_require_owner(Oid relid)
{
	if (!adjlist_rel_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
}

/* The type of a live column of relid, or an error naming it. */
Oid
admin_column_type(Oid relid, const char *col)
{
	AttrNumber	a = get_attnum(relid, col);

	if (a <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						col, get_rel_name(relid))));
	return get_atttype(relid, a);
}

bool
admin_name_in(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

char **
admin_names_of_array(ArrayType *arr, int *n)
{
	Datum	   *elems;
	bool	   *nulls;
	char	  **names;

	deconstruct_array(arr, NAMEOID, NAMEDATALEN, false, TYPALIGN_CHAR, &elems, &nulls, n);
	names = palloc(sizeof(char *) * Max(*n, 1));
	for (int i = 0; i < *n; i++)
	{
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("column names must not be null")));
		names[i] = pstrdup(NameStr(*DatumGetName(elems[i])));
	}
	return names;
}

void
check_indexable_table(Oid relid, const char *role)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class c;
	char	   *name;

	if (!HeapTupleIsValid(tp))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	c = (Form_pg_class) GETSTRUCT(tp);
	name = pstrdup(NameStr(c->relname));
	if (c->relkind != RELKIND_RELATION && c->relkind != RELKIND_PARTITIONED_TABLE &&
		c->relkind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", name),
				 errdetail("The %s of an inverted index must be a table.", role)));
	if (relid < FirstNormalObjectId || IsCatalogNamespace(c->relnamespace) ||
		IsToastNamespace(c->relnamespace) ||
		strcmp(get_namespace_name(c->relnamespace), "information_schema") == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("\"%s\" is a system table", name),
				 errdetail("System tables cannot take part in an inverted index.")));
	if (c->relpersistence == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is a temporary table", name),
				 errdetail("Temporary tables cannot take part in an inverted index.")));
	if (c->relispartition)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is a partition", name),
				 errhint("Create the inverted index on the partitioned table.")));
	if (c->relkind != RELKIND_PARTITIONED_TABLE &&
		(has_subclass(relid) || has_superclass(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" takes part in table inheritance", name),
				 errdetail("Inverted indexes support declarative partitioning, not inheritance.")));
	ReleaseSysCache(tp);
	if (OidIsValid(registry_base_of_index(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is an inverted index or counter table", name),
				 errdetail("An index or counter table cannot be the %s of another inverted index.", role)));
}

/* The primary key columns of relid, in order; NULL if it has none. */
char **
admin_primary_key_columns(Oid relid, int *n, bool *deferrable, bool *deferred)
{
	Relation	rel = table_open(relid, AccessShareLock);
	Oid			pk = adjlist_primary_key_index(rel);
	char	  **cols = NULL;

	*n = 0;
	*deferrable = *deferred = false;
	if (OidIsValid(pk))
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(pk));
		Form_pg_index idx;
		Oid			con;

		if (!HeapTupleIsValid(tp))
			elog(ERROR, "cache lookup failed for index %u", pk);
		idx = (Form_pg_index) GETSTRUCT(tp);
		*n = idx->indnkeyatts;
		cols = palloc(sizeof(char *) * *n);
		for (int i = 0; i < *n; i++)
			cols[i] = get_attname(relid, idx->indkey.values[i], false);
		ReleaseSysCache(tp);
		con = get_index_constraint(pk);
		if (OidIsValid(con))
		{
			HeapTuple	ct = SearchSysCache1(CONSTROID, ObjectIdGetDatum(con));

			if (HeapTupleIsValid(ct))
			{
				*deferrable = ((Form_pg_constraint) GETSTRUCT(ct))->condeferrable;
				*deferred = ((Form_pg_constraint) GETSTRUCT(ct))->condeferred;
				ReleaseSysCache(ct);
			}
		}
	}
	table_close(rel, NoLock);
	return cols;
}

/* "a, b, c" of quoted names. */
char *
admin_name_list(char **names, int n)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(names[i]));
	return buf.data;
}

/* ----------------------------------------------------------------------
 * Triggers
 * ----------------------------------------------------------------------
 */


/*
 * Triggers are installed declaratively: for every table in scope, the
 * triggers it should have are compared with those it has (adjlist's names
 * only, not the clones PostgreSQL makes of a parent's row triggers), by
 * type, transition tables and function; only the differences are dropped
 * and created.  So adding a second index to a table touches no trigger of
 * the table (DROP TRIGGER would take ACCESS EXCLUSIVE and stop its
 * readers), and the triggers of 0.1 and 0.2 (same names, other forms) are
 * replaced by ALTER EXTENSION UPDATE.
 */
typedef struct TriggerSpec
{
	const char *name;
	int16		tgtype;			/* TRIGGER_TYPE_* bits */
	const char *events;			/* "AFTER INSERT", ... for CREATE TRIGGER */
	const char *oldtable;		/* transition table names, or NULL */
	const char *newtable;
	const char *func;
} TriggerSpec;

#define MAX_SPECS 8

/* Every name adjlist ever gave a trigger, 0.1 on. */
static const char *const trigger_names =
"'{adjlist_sync,adjlist_sync_insert,adjlist_sync_truncate,adjlist_sync_ins,"
"adjlist_sync_upd,adjlist_sync_del,adjlist_sync_before_trunc,adjlist_sync_trunc,"
"adjlist_sync_route,adjlist_index_guard,adjlist_api_guard}'";

static void
add_spec(TriggerSpec *specs, int *n, const char *name, int16 tgtype, const char *events,
		 const char *oldtable, const char *newtable, const char *func)
{
	Assert(*n < MAX_SPECS);
	specs[*n].name = name;
	specs[*n].tgtype = tgtype;
	specs[*n].events = events;
	specs[*n].oldtable = oldtable;
	specs[*n].newtable = newtable;
	specs[*n].func = func;
	(*n)++;
}

static bool
same_name(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * DROP TRIGGER name ON relid.  adjlist's own trigger (ours: its function is
 * adjlist's) is taken off a member of a base table, when it is detached or
 * the base table's last index goes, as the member's owner if the role doing
 * it is not: core lets the base table's owner detach a partition that
 * another role owns, or drop a trigger cloned to its partitions, and drops
 * the triggers of the partitions without asking their owners; adjlist's
 * triggers, one per member, go the same way.  Any other trigger is dropped
 * as the caller, who must own the table.
 */
static void
drop_trigger(Oid relid, const char *qrel, const char *name, bool ours)
{
	AdjlistRoleSwitch role;
	bool		as_owner = ours && !adjlist_rel_ownercheck(relid, GetUserId());

	if (as_owner)
		adjlist_become(adjlist_rel_owner(relid), &role);
	admin_exec(psprintf("DROP TRIGGER %s ON %s", quote_identifier(name), qrel),
			   SPI_OK_UTILITY);
	if (as_owner)
		adjlist_unbecome(&role);
}

/*
 * Give relid exactly the adjlist triggers in want[]; with apply false, only
 * say whether that would change anything.
 */
static bool
sync_triggers(Oid relid, const TriggerSpec *want, int nwant, bool apply)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	char	   *qrel = adjlist_qualified_name(relid);
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	bool		have[MAX_SPECS] = {false};
	bool		changed = false;
	SPITupleTable *tt;
	uint64		n;

	args[0] = ObjectIdGetDatum(relid);
	/* a fresh snapshot: what a concurrent, now committed DDL did counts */
	if (SPI_execute_with_args(psprintf("SELECT t.tgname::pg_catalog.text, t.tgtype, "
									   "pg_catalog.array_length(t.tgattr::pg_catalog.int2[], 1) OPERATOR(pg_catalog.>) 0, "
									   "t.tgoldtable::pg_catalog.text, t.tgnewtable::pg_catalog.text, "
									   "p.proname::pg_catalog.text, p.pronamespace "
									   "FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p "
									   "ON p.oid OPERATOR(pg_catalog.=) t.tgfoid "
									   "WHERE t.tgrelid OPERATOR(pg_catalog.=) $1 "
									   "AND t.tgparentid OPERATOR(pg_catalog.=) 0 "
									   "AND t.tgname::pg_catalog.text OPERATOR(pg_catalog.=) "
									   "ANY (%s::pg_catalog.text[])", trigger_names),
							  1, argtypes, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "trigger lookup failed");
	tt = SPI_tuptable;
	n = SPI_processed;
	for (uint64 i = 0; i < n; i++)
	{
		HeapTuple	tup = tt->vals[i];
		char	   *name = SPI_getvalue(tup, tt->tupdesc, 1);
		bool		isnull;
		int16		tgtype = DatumGetInt16(SPI_getbinval(tup, tt->tupdesc, 2, &isnull));
		bool		has_columns;
		char	   *oldt = SPI_getvalue(tup, tt->tupdesc, 4);
		char	   *newt = SPI_getvalue(tup, tt->tupdesc, 5);
		char	   *func = SPI_getvalue(tup, tt->tupdesc, 6);
		Oid			funcns = DatumGetObjectId(SPI_getbinval(tup, tt->tupdesc, 7, &isnull));
		bool		keep = false;

		/*
		 * UPDATE OF columns: a form of 0.1.  (An int2vector always has one
		 * dimension: an empty one has length 0, not null.)
		 */
		has_columns = DatumGetBool(SPI_getbinval(tup, tt->tupdesc, 3, &isnull)) && !isnull;
		for (int w = 0; w < nwant && !keep; w++)
			if (strcmp(want[w].name, name) == 0 && want[w].tgtype == tgtype &&
				!has_columns && same_name(want[w].oldtable, oldt) &&
				same_name(want[w].newtable, newt) && strcmp(want[w].func, func) == 0 &&
				funcns == cat->namespace)
				keep = have[w] = true;
		if (!keep)
		{
			changed = true;
			if (apply)
				drop_trigger(relid, qrel, name, funcns == cat->namespace);
		}
	}
	SPI_freetuptable(tt);
	for (int w = 0; w < nwant; w++)
	{
		char	   *referencing = "";

		if (have[w])
			continue;
		changed = true;
		if (!apply)
			continue;
		if (want[w].oldtable || want[w].newtable)
			referencing = psprintf("REFERENCING%s%s%s%s",
								   want[w].oldtable ? " OLD TABLE AS " : "",
								   want[w].oldtable ? want[w].oldtable : "",
								   want[w].newtable ? " NEW TABLE AS " : "",
								   want[w].newtable ? want[w].newtable : "");
		admin_exec(psprintf("CREATE TRIGGER %s %s ON %s %s FOR EACH %s EXECUTE FUNCTION %s.%s()",
						  want[w].name, want[w].events, qrel, referencing,
						  TRIGGER_FOR_ROW(want[w].tgtype) ? "ROW" : "STATEMENT",
						  cat->nspname, want[w].func),
				 SPI_OK_UTILITY);
	}
	return changed;
}

/*
 * adjlist_sync_replica, the row trigger a table's owner adds on a logical
 * replication subscriber (index_sync.c), is the owner's, so adjlist never
 * creates it; it goes with the table's last index, as adjlist's own
 * triggers do, so that adjlist_uninstall() leaves nothing that depends on
 * the extension.  Its clones on partitions go with it.
 */
static void
drop_replica_trigger(Oid relid)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			argtypes[2] = {OIDOID, OIDOID};
	Datum		args[2];

	args[0] = ObjectIdGetDatum(relid);
	args[1] = ObjectIdGetDatum(cat->namespace);
	if (SPI_execute_with_args("SELECT 1 FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p "
							  "ON p.oid OPERATOR(pg_catalog.=) t.tgfoid "
							  "WHERE t.tgrelid OPERATOR(pg_catalog.=) $1 "
							  "AND t.tgparentid OPERATOR(pg_catalog.=) 0 "
							  "AND t.tgname OPERATOR(pg_catalog.=) 'adjlist_sync_replica' "
							  "AND p.proname OPERATOR(pg_catalog.=) 'adjlist_sync_trigger' "
							  "AND p.pronamespace OPERATOR(pg_catalog.=) $2",
							  2, argtypes, args, NULL, false, 0) != SPI_OK_SELECT)
		elog(ERROR, "trigger lookup failed");
	if (SPI_processed > 0)
		admin_exec(psprintf("DROP TRIGGER adjlist_sync_replica ON %s",
							adjlist_qualified_name(relid)),
				   SPI_OK_UTILITY);
}

/* The table and its partitions at any depth, the table first. */
List *
admin_members_of(Oid relid)
{
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
		return find_all_inheritors(relid, NoLock, NULL);
	return list_make1_oid(relid);
}

void
remove_triggers(Oid relid)
{
	List	   *members = admin_members_of(relid);
	ListCell   *lc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	foreach(lc, members)
		(void) sync_triggers(lfirst_oid(lc), NULL, 0, true);
	SPI_finish();
}

/* The guard of an index or counter table, on it and on its partitions. */
void
admin_install_guard(Oid relid)
{
	List	   *members = admin_members_of(relid);
	ListCell   *lc;

	foreach(lc, members)
	{
		Oid			m = lfirst_oid(lc);
		TriggerSpec spec[MAX_SPECS];
		int			n = 0;
		int16		type = TRIGGER_TYPE_BEFORE | TRIGGER_TYPE_INSERT |
			TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE;

		/* foreign tables cannot have TRUNCATE triggers */
		if (get_rel_relkind(m) == RELKIND_FOREIGN_TABLE)
			add_spec(spec, &n, "adjlist_index_guard", type,
					 "BEFORE INSERT OR UPDATE OR DELETE", NULL, NULL, "adjlist_index_guard");
		else
			add_spec(spec, &n, "adjlist_index_guard", type | TRIGGER_TYPE_TRUNCATE,
					 "BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE", NULL, NULL,
					 "adjlist_index_guard");
		(void) sync_triggers(m, spec, n, true);
	}
}

static void
remove_guard(Oid relid)
{
	List	   *members = admin_members_of(relid);
	ListCell   *lc;

	foreach(lc, members)
		(void) sync_triggers(lfirst_oid(lc), NULL, 0, true);
}

/*
 * Is the citus extension installed in this database?  Asked by every write
 * through the API: pg_extension has no syscache, and scanning it each time
 * costs a few percent of a put_edge, so first the catalog table Citus
 * creates (a syscache lookup); only where it exists, the extension itself.
 */
bool
admin_citus_installed(void)
{
	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return false;
	return OidIsValid(get_extension_oid("citus", true));
}

/* ----------------------------------------------------------------------
 * The enable state of the partitions' TRUNCATE triggers
 * ----------------------------------------------------------------------
 */

/*
 * A partition's adjlist_sync_before_trunc is adjlist's own trigger, not a
 * clone of its parent's (core clones row triggers only), so what core
 * does for a clone does not reach it: ALTER TABLE parent ENABLE ALWAYS
 * TRIGGER recurses to the clones on the partitions, and a new partition
 * gets its clones in their parent's state.  A logical replication
 * subscriber that keeps its own index (README) enables the TRUNCATE
 * triggers of the base table ALWAYS; an apply worker, in replica mode,
 * replays TRUNCATE of one partition as a TRUNCATE of that partition, which
 * fires that partition's trigger only, so the partitions need the same
 * state.  adjlist does for its triggers what core does for clones: ALTER
 * TABLE (without ONLY) of a partitioned base table or partition that
 * enables this trigger by name, or all or the user triggers, gives its
 * state to the partitions below (admin_follow_trunc_state(), called by
 * index_guard.c), and a partition that gets the trigger (created,
 * attached) takes its parent's.  As core's recursion, it changes the
 * partitions' triggers whoever owns them, once the role doing it is known
 * to own the table it enables them on, as ALTER TABLE required.
 *
 * Only ORIGIN and ALWAYS travel (DISABLE and REPLICA of adjlist's triggers
 * are refused, but for a superuser's DISABLE TRIGGER ALL, pg_dump's, which
 * names each table itself).  Enabled ALWAYS, the trigger changes nothing
 * in an ordinary session, where ORIGIN fires too; in replica mode it
 * removes the partition's index rows as it does anywhere, and nothing else
 * removes them there: adjlist_sync_replica is a row trigger, which
 * TRUNCATE does not fire.
 */
static const char *const trunc_trigger = "adjlist_sync_before_trunc";

/* The tgenabled of relid's adjlist_sync_before_trunc (adjlist's), or 0. */
static char
trunc_trigger_state(Oid relid)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Relation	tgrel = table_open(TriggerRelationId, AccessShareLock);
	ScanKeyData key[2];
	SysScanDesc scan;
	HeapTuple	tup;
	char		state = 0;

	ScanKeyInit(&key[0], Anum_pg_trigger_tgrelid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(relid));
	ScanKeyInit(&key[1], Anum_pg_trigger_tgname, BTEqualStrategyNumber, F_NAMEEQ,
				CStringGetDatum(trunc_trigger));
	scan = systable_beginscan(tgrel, TriggerRelidNameIndexId, true, NULL, 2, key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_trigger t = (Form_pg_trigger) GETSTRUCT(tup);
		char	   *func = get_func_name(t->tgfoid);

		if (!OidIsValid(t->tgparentid) && get_func_namespace(t->tgfoid) == cat->namespace &&
			func != NULL && strcmp(func, "adjlist_sync_trigger") == 0)
			state = t->tgenabled;
	}
	systable_endscan(scan);
	table_close(tgrel, AccessShareLock);
	return state;
}

/*
 * Enable relid's adjlist_sync_before_trunc for state (ORIGIN or ALWAYS).
 * As core's recursion to clones does, by the catalog (locked as ALTER
 * TABLE locks), with no check of who owns relid: the role that created the
 * partition or enabled its parent's trigger was checked for that.
 */
static void
set_trunc_trigger_state(Oid relid, char state)
{
	char		cur = trunc_trigger_state(relid);
	Relation	rel;

	if (cur == 0 || cur == state ||
		(state != TRIGGER_FIRES_ON_ORIGIN && state != TRIGGER_FIRES_ALWAYS))
		return;
	rel = table_open(relid, ShareRowExclusiveLock);
	adjlist_enable_trigger(rel, trunc_trigger, state);
	table_close(rel, NoLock);
	CommandCounterIncrement();
}

/*
 * Partition m has had its triggers installed; its BEFORE TRUNCATE trigger
 * was in state was before (0: it had none).  An existing one keeps its
 * state (made again, it gets it back); a new one takes its parent's.
 */
static void
follow_parent_trunc_state(Oid m, char was)
{
	CommandCounterIncrement();
	if (was == 0 && get_rel_relispartition(m))
		was = trunc_trigger_state(get_partition_parent(m, false));
	set_trunc_trigger_state(m, was);
}

void
admin_follow_trunc_state(Oid relid)
{
	char		state;
	List	   *members;
	ListCell   *lc;

	if (get_rel_relkind(relid) != RELKIND_PARTITIONED_TABLE)
		return;
	/*
	 * Only for the role that may ALTER TABLE relid ... ENABLE TRIGGER, as
	 * the command that calls this required: the partitions then follow
	 * whoever owns them, as core's recursion to a trigger's clones does.
	 */
	admin_require_owner(relid);
	CommandCounterIncrement();
	state = trunc_trigger_state(relid);
	if (state != TRIGGER_FIRES_ON_ORIGIN && state != TRIGGER_FIRES_ALWAYS)
		return;
	/* locked as ALTER TABLE's own recursion would lock them */
	members = find_all_inheritors(relid, ShareRowExclusiveLock, NULL);
	foreach(lc, members)
		if (lfirst_oid(lc) != relid)
			set_trunc_trigger_state(lfirst_oid(lc), state);
}

/*
 * The sync triggers member m of base table baserel should have, into spec;
 * how many.  row_mode: the table or a partition is foreign, and no
 * transition table can be collected from it.
 */
static int
member_specs(Oid m, Oid baserel, bool row_mode, TriggerSpec *spec)
{
	bool		foreign = get_rel_relkind(m) == RELKIND_FOREIGN_TABLE;
	int			n = 0;

	if (row_mode && m == baserel)
		add_spec(spec, &n, "adjlist_sync", TRIGGER_TYPE_ROW | TRIGGER_TYPE_INSERT |
				 TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE,
				 "AFTER INSERT OR UPDATE OR DELETE", NULL, NULL, "adjlist_sync_trigger");
	if (!row_mode)
	{
		add_spec(spec, &n, "adjlist_sync_ins", TRIGGER_TYPE_INSERT, "AFTER INSERT",
				 NULL, "adjlist_new", "adjlist_sync_trigger");
		add_spec(spec, &n, "adjlist_sync_upd", TRIGGER_TYPE_UPDATE, "AFTER UPDATE",
				 "adjlist_old", "adjlist_new", "adjlist_sync_trigger");
		add_spec(spec, &n, "adjlist_sync_del", TRIGGER_TYPE_DELETE, "AFTER DELETE",
				 "adjlist_old", NULL, "adjlist_sync_trigger");

		/*
		 * MERGE into a partitioned table (compat.h): a BEFORE INSERT row
		 * trigger that does nothing, cloned to every partition.
		 */
		if (ADJLIST_MERGE_NEEDS_ROUTE_TRIGGER && m == baserel &&
			get_rel_relkind(m) == RELKIND_PARTITIONED_TABLE)
			add_spec(spec, &n, "adjlist_sync_route",
					 TRIGGER_TYPE_ROW | TRIGGER_TYPE_BEFORE | TRIGGER_TYPE_INSERT,
					 "BEFORE INSERT", NULL, NULL, "adjlist_sync_trigger");
	}
	/* foreign tables cannot have TRUNCATE triggers */
	if (!foreign)
		add_spec(spec, &n, "adjlist_sync_before_trunc",
				 TRIGGER_TYPE_BEFORE | TRIGGER_TYPE_TRUNCATE, "BEFORE TRUNCATE",
				 NULL, NULL, "adjlist_sync_trigger");
	if (!foreign && m == baserel)
		add_spec(spec, &n, "adjlist_sync_trunc", TRIGGER_TYPE_TRUNCATE, "AFTER TRUNCATE",
				 NULL, NULL, "adjlist_sync_trigger");
	return n;
}

/*
 * The triggers of a registered table: on the base table and each of its
 * partitions, the sync triggers (index_sync.c), for every index whatever
 * its mode; on each index and counter table, the guard.  None where they
 * cannot run: a table Citus distributes, and a table whose indexes are all
 * in API mode in a database with Citus, which refuses to distribute a table
 * with triggers (such indexes are for the write API, as on Citus).  A
 * partition's BEFORE TRUNCATE trigger keeps the enable state it had, or,
 * new, takes its parent's (below).
 *
 * With apply false, nothing changes: the result says whether the base
 * table and its partitions lack triggers they should have (or have some
 * they should not).
 */
static bool
base_triggers(Oid baserel, bool apply)
{
	TableIndexes *ti = registry_lookup_unchecked(baserel);
	List	   *members;
	ListCell   *lc;
	bool		changed = false;
	bool		row_mode = false;
	bool		wanted = ti->nindexes > 0 && !adjlist_is_citus_table(baserel);

	if (wanted && admin_citus_installed())
	{
		bool		all_api = true;

		for (int i = 0; i < ti->nindexes; i++)
			if (ti->indexes[i].mode != INDEX_MODE_API)
				all_api = false;
		wanted = !all_api;
	}
	members = admin_members_of(baserel);
	foreach(lc, members)
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			row_mode = true;	/* no transition tables from foreign tables */

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	foreach(lc, members)
	{
		Oid			m = lfirst_oid(lc);
		TriggerSpec spec[MAX_SPECS];
		int			n = wanted ? member_specs(m, baserel, row_mode, spec) : 0;
		char		was = apply ? trunc_trigger_state(m) : 0;

		if (sync_triggers(m, spec, n, apply))
			changed = true;
		if (wanted && apply && m != baserel)
			follow_parent_trunc_state(m, was);
		if (!wanted && apply)
			drop_replica_trigger(m);
	}
	for (int i = 0; apply && i < ti->nindexes; i++)
	{
		if (!wanted)
		{
			remove_guard(ti->indexes[i].indexrel);
			if (OidIsValid(ti->indexes[i].counterrel))
				remove_guard(ti->indexes[i].counterrel);
			continue;
		}
		admin_install_guard(ti->indexes[i].indexrel);
		if (OidIsValid(ti->indexes[i].counterrel))
			admin_install_guard(ti->indexes[i].counterrel);
	}
	SPI_finish();
	return changed;
}

void
install_triggers(Oid baserel)
{
	(void) base_triggers(baserel, true);
}

bool
admin_triggers_in_place(Oid baserel)
{
	return !base_triggers(baserel, false);
}

/* ----------------------------------------------------------------------
 * Writing the rows of a base table (or a member) into its indexes
 * ----------------------------------------------------------------------
 */

typedef struct FillArg
{
	const IndexDef *ix;
	IndexWriter *writer;
	Counts	   *counts;
	bool		add;
	bool		progress;		/* report rows done (a backfill) */
	int64		done;
	Datum	   *row;
	bool	   *rownull;
	Tuplesortstate *sort;		/* rows to write in key order, or NULL */
	TupleTableSlot *slot;		/* of the sort */
	Datum	   *cur;			/* the base row being added, for errors */
	bool	   *curnull;
} FillArg;

/* The context line of an error about a row being added: its key. */
static void
fill_error_context(void *arg)
{
	FillArg    *f = (FillArg *) arg;

	if (f->cur != NULL)
		index_row_errcontext(f->ix, f->cur, f->curnull);
}

static void
fill_row(void *arg, Datum *base, bool *basenull)
{
	FillArg    *f = (FillArg *) arg;
	Datum		logical;
	bool		indexed;

	/* rows that join the index keep the base table's limits, held or not */
	if (f->add)
	{
		f->cur = base;
		f->curnull = basenull;
		index_row_check_base(f->ix, base, basenull);
	}
	indexed = index_row(f->ix, base, basenull, f->row, f->rownull, &logical);
	f->cur = NULL;
	if (!indexed)
		return;
	if (f->sort != NULL)
	{
		ExecClearTuple(f->slot);
		memcpy(f->slot->tts_values, f->row, sizeof(Datum) * f->ix->ncols);
		memcpy(f->slot->tts_isnull, f->rownull, sizeof(bool) * f->ix->ncols);
		ExecStoreVirtualTuple(f->slot);
		tuplesort_puttupleslot(f->sort, f->slot);
	}
	else if (f->add)
		index_writer_put(f->writer, f->row, f->rownull);
	else
		(void) index_writer_remove(f->writer, f->row, f->rownull);
	if (f->counts)
		counts_add(f->counts, logical, f->row[1], f->add ? 1 : -1);
	if (f->progress && ++f->done % 1024 == 0)
		pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, f->done);
}

/*
 * A sort of ix's rows by its key, in the order of the key's btree (the
 * types' default ordering, the index table's collations), in
 * maintenance_work_mem.
 */
static void
fill_sort_begin(FillArg *f)
{
	const IndexDef *ix = f->ix;
	TupleDesc	desc = CreateTemplateTupleDesc(ix->ncols);
	AttrNumber *atts = palloc(sizeof(AttrNumber) * ix->nkeys);
	Oid		   *ops = palloc(sizeof(Oid) * ix->nkeys);
	Oid		   *colls = palloc(sizeof(Oid) * ix->nkeys);
	bool	   *nullsfirst = palloc0(sizeof(bool) * ix->nkeys);

	for (int i = 0; i < ix->ncols; i++)
		TupleDescInitEntry(desc, i + 1, NULL, ix->coltypes[i], -1, 0);
	for (int i = 0; i < ix->nkeys; i++)
	{
		AttrNumber	a = get_attnum(ix->indexrel, ix->colnames[i]);
		Oid			type;
		int32		typmod;

		atts[i] = i + 1;
		ops[i] = lookup_type_cache(ix->coltypes[i], TYPECACHE_LT_OPR)->lt_opr;
		if (!OidIsValid(ops[i]))
			elog(ERROR, "type %s has no ordering operator", format_type_be(ix->coltypes[i]));
		colls[i] = InvalidOid;
		if (a != InvalidAttrNumber)
			get_atttypetypmodcoll(ix->indexrel, a, &type, &typmod, &colls[i]);
	}
	f->sort = tuplesort_begin_heap(desc, ix->nkeys, atts, ops, colls, nullsfirst,
								   maintenance_work_mem, NULL, TUPLESORT_NONE);
	f->slot = MakeSingleTupleTableSlot(desc, &TTSOpsVirtual);
}

/* Write the sorted rows. */
static void
fill_sort_end(FillArg *f)
{
	TupleTableSlot *out = MakeSingleTupleTableSlot(f->slot->tts_tupleDescriptor,
												   &TTSOpsMinimalTuple);

	tuplesort_performsort(f->sort);
	while (tuplesort_gettupleslot(f->sort, true, false, out, NULL))
	{
		slot_getallattrs(out);
		index_writer_put(f->writer, out->tts_values, out->tts_isnull);
	}
	tuplesort_end(f->sort);
	ExecDropSingleTupleTableSlot(out);
	ExecDropSingleTupleTableSlot(f->slot);
	f->sort = NULL;
}

/*
 * Write the index rows of every row of source (the base table, or one of
 * its partitions) into ix, or remove them.  The caller acts as the owner
 * and is connected to SPI; with progress, it reports rows done to the
 * command in progress (a CREATE INDEX).
 *
 * Appending to a new index table that projects columns (include) writes
 * the rows in key order, sorted as CREATE INDEX sorts, so that its heap is
 * clustered on its key as a DynamoDB index's items are stored by index
 * key: a node's in-edges lie on a few pages, and reading them with their
 * data fetches those pages rather than one page per edge (on a 1M-edge
 * graph, the in-edges of the biggest hub with data in half the time of a
 * second btree's unclustered heap).  The sort costs about as much as the
 * primary key's own (which then finds its rows in order).  An index table
 * of keys alone is read from its primary key only, so the order of its
 * heap does not matter and it is not sorted.  Later writes go where there
 * is room, as in any table; CLUSTER on the primary key restores the order.
 *
 * direct: read source with base_scan_direct(), which needs no privilege of
 * the owner's (the rows of a member that DDL takes in or out).
 */
static void
fill_index(const IndexDef *ix, Oid source, bool add, WriteMode mode, bool progress,
		   bool direct)
{
	FillArg		f;
	ErrorContextCallback errcb;

	f.ix = ix;
	f.add = add;
	f.progress = progress;
	f.done = 0;
	f.sort = NULL;
	f.cur = NULL;
	f.curnull = NULL;
	f.writer = index_writer_begin(ix->indexrel, ix->colnames, ix->ncols, ix->nkeys,
								  mode, true);
	f.counts = OidIsValid(ix->counterrel) ? counts_create(ix) : NULL;
	f.row = palloc(sizeof(Datum) * ix->ncols);
	f.rownull = palloc(sizeof(bool) * ix->ncols);
	if (add && mode == WRITE_APPEND && ix->ncols > ix->nkeys)
		fill_sort_begin(&f);
	errcb.callback = fill_error_context;
	errcb.arg = &f;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	if (direct)
		base_scan_direct(source, ix, true, add && index_skips_rows(ix), fill_row, &f);
	else
		base_scan(source, ix, true, add && index_skips_rows(ix), fill_row, &f);
	error_context_stack = errcb.previous;
	if (f.sort != NULL)
		fill_sort_end(&f);
	index_writer_end(f.writer);
	if (progress)
		pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_DONE, f.done);
	if (f.counts)
	{
		counts_flush(f.counts);
		counts_destroy(f.counts);
	}
}

void
admin_fill_index(const IndexDef *ix, Oid source, bool add, WriteMode mode, bool progress)
{
	fill_index(ix, source, add, mode, progress, false);
}

/* admin_check_rows(): one row */
static void
check_row(void *arg, Datum *base, bool *basenull)
{
	FillArg    *f = (FillArg *) arg;

	f->cur = base;
	f->curnull = basenull;
	index_row_check_base(f->ix, base, basenull);
	f->cur = NULL;
}

void
admin_check_rows(const IndexDef *ix, Oid source)
{
	FillArg		f = {0};
	ErrorContextCallback errcb;

	if (!index_skips_rows(ix))
		return;					/* the fill or backfill checks every row */
	f.ix = ix;
	errcb.callback = fill_error_context;
	errcb.arg = &f;
	errcb.previous = error_context_stack;
	error_context_stack = &errcb;
	base_scan(source, ix, true, true, check_row, &f);
	error_context_stack = errcb.previous;
}

void
index_member_rows(Oid baserel, Oid member, bool add)
{
	TableIndexes *ti = registry_lookup(baserel);
	AdjlistRoleSwitch role;

	if (ti->nindexes == 0)
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(ti->owner, &role);
	/* read in C: whoever may take the member in or out needs nothing more */
	for (int i = 0; i < ti->nindexes; i++)
		fill_index(&ti->indexes[i], member, add, WRITE_UPSERT, false, true);
	adjlist_unbecome(&role);
	SPI_finish();
}

/* ----------------------------------------------------------------------
 * drop_inverted_index
 * ----------------------------------------------------------------------
 */

Datum
adjlist_drop_inverted_index(PG_FUNCTION_ARGS)
{
	drop_index(PG_GETARG_OID(0));
	PG_RETURN_VOID();
}

void
drop_index(Oid idx)
{
	IndexDef   *ix;
	char	   *qidx;
	char	   *qcnt = NULL;

	Oid			base = registry_base_of_index(idx);

	/*
	 * The base table first, then the index, the order every index DDL and
	 * verify take.  One drop at a time (the lock conflicts with itself, not
	 * with readers or writers); a drop that waited for another finds the
	 * index gone.
	 */
	if (OidIsValid(base) && SearchSysCacheExists1(RELOID, ObjectIdGetDatum(base)))
	{
		admin_require_owner(base);	/* before locking it: no queue for others */
		LockRelationOid(base, ShareRowExclusiveLock);
	}
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(idx)))
		LockRelationOid(idx, ShareUpdateExclusiveLock);
	ix = SearchSysCacheExists1(RELOID, ObjectIdGetDatum(idx)) ? registry_index(idx, false) : NULL;
	if (ix == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("\"%s\" is not an inverted index", get_rel_name(idx) ? get_rel_name(idx) : "?")));
	admin_require_owner(ix->baserel);
	LockRelationOid(ix->baserel, ShareRowExclusiveLock);
	qidx = adjlist_qualified_name(idx);
	if (OidIsValid(ix->counterrel) && get_rel_name(ix->counterrel) != NULL)
		qcnt = adjlist_qualified_name(ix->counterrel);
	registry_delete(idx);
	CommandCounterIncrement();
	install_triggers(ix->baserel);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	admin_exec(psprintf("DROP TABLE %s", qidx), SPI_OK_UTILITY);
	if (qcnt != NULL)
		admin_exec(psprintf("DROP TABLE %s", qcnt), SPI_OK_UTILITY);
	SPI_finish();
}
