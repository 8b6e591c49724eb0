/*-------------------------------------------------------------------------
 *
 * index_admin.c
 *	  create_inverted_index() and drop_inverted_index(), the triggers they
 *	  install, and the index rows of partitions that come and go.
 *
 * create_inverted_index(tbl, ...):
 *	1. checks the arguments and the caller: the caller must own the base
 *	   table, and with existing => true the index table too, which must
 *	   have the base table's owner; catalogs, views, temporary tables,
 *	   partitions and inheritance are refused (index_admin.h);
 *	2. locks the base table and its partitions against writers (SHARE ROW
 *	   EXCLUSIVE: readers go on);
 *	3. creates the index table (as the caller, in the base table's schema,
 *	   then owned by the base table's owner) without its primary key, and
 *	   the degree counter table when asked;
 *	4. registers the index (registry.c) and installs the triggers;
 *	5. backfills: reads the base table as its owner and writes the index
 *	   rows (index_rule.c) with the bulk writer (index_write.c), then adds
 *	   the primary key, which builds its btree by sorting, as CREATE TABLE
 *	   AS followed by ADD PRIMARY KEY would;
 *	6. analyzes the index table.
 * Everything runs in the caller's transaction: an error leaves nothing.
 *
 * All DDL is generated here, once, from the catalogs, with every name
 * quoted and qualified; nothing is written twice in SQL or PL/pgSQL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/catalog.h"
#include "catalog/index.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_index.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "parser/parse_relation.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_admin.h"
#include "index_rule.h"
#include "index_write.h"
#include "registry.h"

PG_FUNCTION_INFO_V1(adjlist_create_inverted_index);
PG_FUNCTION_INFO_V1(adjlist_drop_inverted_index);

/* ----------------------------------------------------------------------
 * Small helpers
 * ----------------------------------------------------------------------
 */

static void
spi_exec(const char *sql, int expected)
{
	/* adjlist's own statements: the guards of index tables let them through */
	index_execute_sql(sql, false, expected);
}

static void
require_owner(Oid relid)
{
	if (!adjlist_rel_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
}

/* The type of a live column of relid, or an error naming it. */
static Oid
column_type_or_error(Oid relid, const char *col)
{
	AttrNumber	a = get_attnum(relid, col);

	if (a <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						col, get_rel_name(relid))));
	return get_atttype(relid, a);
}

static bool
name_in(char **names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

static char **
names_of_array(ArrayType *arr, int *n)
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
static char **
primary_key_columns(Oid relid, int *n, bool *deferrable, bool *deferred)
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
static char *
name_list(char **names, int n)
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

/* Give relid exactly the adjlist triggers in want[]. */
static void
sync_triggers(Oid relid, const TriggerSpec *want, int nwant)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	char	   *qrel = adjlist_qualified_name(relid);
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	bool		have[MAX_SPECS] = {false};
	SPITupleTable *tt;
	uint64		n;

	args[0] = ObjectIdGetDatum(relid);
	/* a fresh snapshot: what a concurrent, now committed DDL did counts */
	if (SPI_execute_with_args(psprintf("SELECT t.tgname::pg_catalog.text, t.tgtype, "
									   "pg_catalog.array_length(t.tgattr::pg_catalog.int2[], 1), "
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

		(void) SPI_getbinval(tup, tt->tupdesc, 3, &has_columns);
		has_columns = !has_columns;		/* UPDATE OF columns: a form of 0.1 */
		for (int w = 0; w < nwant && !keep; w++)
			if (strcmp(want[w].name, name) == 0 && want[w].tgtype == tgtype &&
				!has_columns && same_name(want[w].oldtable, oldt) &&
				same_name(want[w].newtable, newt) && strcmp(want[w].func, func) == 0 &&
				funcns == cat->namespace)
				keep = have[w] = true;
		if (!keep)
			spi_exec(psprintf("DROP TRIGGER %s ON %s", quote_identifier(name), qrel),
					 SPI_OK_UTILITY);
	}
	SPI_freetuptable(tt);
	for (int w = 0; w < nwant; w++)
	{
		char	   *referencing = "";

		if (have[w])
			continue;
		if (want[w].oldtable || want[w].newtable)
			referencing = psprintf("REFERENCING%s%s%s%s",
								   want[w].oldtable ? " OLD TABLE AS " : "",
								   want[w].oldtable ? want[w].oldtable : "",
								   want[w].newtable ? " NEW TABLE AS " : "",
								   want[w].newtable ? want[w].newtable : "");
		spi_exec(psprintf("CREATE TRIGGER %s %s ON %s %s FOR EACH %s EXECUTE FUNCTION %s.%s()",
						  want[w].name, want[w].events, qrel, referencing,
						  TRIGGER_FOR_ROW(want[w].tgtype) ? "ROW" : "STATEMENT",
						  cat->nspname, want[w].func),
				 SPI_OK_UTILITY);
	}
}

/* The table and its partitions at any depth, the table first. */
static List *
members_of(Oid relid)
{
	if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
		return find_all_inheritors(relid, NoLock, NULL);
	return list_make1_oid(relid);
}

void
remove_triggers(Oid relid)
{
	List	   *members = members_of(relid);
	ListCell   *lc;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	foreach(lc, members)
		sync_triggers(lfirst_oid(lc), NULL, 0);
	SPI_finish();
}

/* The guard of an index or counter table, on it and on its partitions. */
static void
install_guard(Oid relid)
{
	List	   *members = members_of(relid);
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
		sync_triggers(m, spec, n);
	}
}

static void
remove_guard(Oid relid)
{
	List	   *members = members_of(relid);
	ListCell   *lc;

	foreach(lc, members)
		sync_triggers(lfirst_oid(lc), NULL, 0);
}

/* Is the citus extension installed in this database? */
static bool
citus_installed(void)
{
	return OidIsValid(get_extension_oid("citus", true));
}

/*
 * The triggers of a registered table: on the base table and each of its
 * partitions, the sync triggers (index_sync.c), for every index whatever
 * its mode; on each index and counter table, the guard.  None where they
 * cannot run: a table Citus distributes, and a table whose indexes are all
 * in API mode in a database with Citus, which refuses to distribute a table
 * with triggers (such indexes are for the write API, as on Citus).
 */
void
install_triggers(Oid baserel)
{
	TableIndexes *ti = registry_lookup_unchecked(baserel);
	List	   *members;
	ListCell   *lc;
	bool		row_mode = false;
	bool		wanted = ti->nindexes > 0 && !adjlist_is_citus_table(baserel);

	if (wanted && citus_installed())
	{
		bool		all_api = true;

		for (int i = 0; i < ti->nindexes; i++)
			if (ti->indexes[i].mode != INDEX_MODE_API)
				all_api = false;
		wanted = !all_api;
	}
	members = members_of(baserel);
	foreach(lc, members)
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			row_mode = true;	/* no transition tables from foreign tables */

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	foreach(lc, members)
	{
		Oid			m = lfirst_oid(lc);
		bool		foreign = get_rel_relkind(m) == RELKIND_FOREIGN_TABLE;
		TriggerSpec spec[MAX_SPECS];
		int			n = 0;

		if (wanted && row_mode && m == baserel)
			add_spec(spec, &n, "adjlist_sync", TRIGGER_TYPE_ROW | TRIGGER_TYPE_INSERT |
					 TRIGGER_TYPE_UPDATE | TRIGGER_TYPE_DELETE,
					 "AFTER INSERT OR UPDATE OR DELETE", NULL, NULL, "adjlist_sync_trigger");
		if (wanted && !row_mode)
		{
			add_spec(spec, &n, "adjlist_sync_ins", TRIGGER_TYPE_INSERT, "AFTER INSERT",
					 NULL, "adjlist_new", "adjlist_sync_trigger");
			add_spec(spec, &n, "adjlist_sync_upd", TRIGGER_TYPE_UPDATE, "AFTER UPDATE",
					 "adjlist_old", "adjlist_new", "adjlist_sync_trigger");
			add_spec(spec, &n, "adjlist_sync_del", TRIGGER_TYPE_DELETE, "AFTER DELETE",
					 "adjlist_old", NULL, "adjlist_sync_trigger");
#if PG_VERSION_NUM >= 160000

			/*
			 * MERGE into a partitioned table: PostgreSQL from 16 on puts the
			 * last row the statement inserted into a partition into the
			 * UPDATE's NEW transition table in place of the updated row,
			 * unless the partition has a BEFORE INSERT row trigger, which
			 * this is (it does nothing; cloned to every partition).
			 */
			if (m == baserel && get_rel_relkind(m) == RELKIND_PARTITIONED_TABLE)
				add_spec(spec, &n, "adjlist_sync_route",
						 TRIGGER_TYPE_ROW | TRIGGER_TYPE_BEFORE | TRIGGER_TYPE_INSERT,
						 "BEFORE INSERT", NULL, NULL, "adjlist_sync_trigger");
#endif
		}
		/* foreign tables cannot have TRUNCATE triggers */
		if (wanted && !foreign)
			add_spec(spec, &n, "adjlist_sync_before_trunc",
					 TRIGGER_TYPE_BEFORE | TRIGGER_TYPE_TRUNCATE, "BEFORE TRUNCATE",
					 NULL, NULL, "adjlist_sync_trigger");
		if (wanted && !foreign && m == baserel)
			add_spec(spec, &n, "adjlist_sync_trunc", TRIGGER_TYPE_TRUNCATE, "AFTER TRUNCATE",
					 NULL, NULL, "adjlist_sync_trigger");
		sync_triggers(m, spec, n);
	}
	for (int i = 0; i < ti->nindexes; i++)
	{
		if (!wanted)
		{
			remove_guard(ti->indexes[i].indexrel);
			if (OidIsValid(ti->indexes[i].counterrel))
				remove_guard(ti->indexes[i].counterrel);
			continue;
		}
		install_guard(ti->indexes[i].indexrel);
		if (OidIsValid(ti->indexes[i].counterrel))
			install_guard(ti->indexes[i].counterrel);
	}
	SPI_finish();
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
	Datum	   *row;
	bool	   *rownull;
} FillArg;

static void
fill_row(void *arg, Datum *base, bool *basenull)
{
	FillArg    *f = (FillArg *) arg;
	Datum		logical;

	if (!index_row(f->ix, base, basenull, f->row, f->rownull, &logical))
		return;
	if (f->add)
		index_writer_put(f->writer, f->row, f->rownull);
	else
		(void) index_writer_remove(f->writer, f->row, f->rownull);
	if (f->counts)
		counts_add(f->counts, logical, f->row[1], f->add ? 1 : -1);
}

/*
 * Write the index rows of every row of source (the base table, or one of
 * its partitions) into ix, or remove them.  The caller acts as the owner
 * and is connected to SPI.
 */
static void
fill_index(const IndexDef *ix, Oid source, bool add, WriteMode mode)
{
	FillArg		f;

	f.ix = ix;
	f.add = add;
	f.writer = index_writer_begin(ix->indexrel, ix->colnames, ix->ncols, ix->nkeys,
								  mode, true);
	f.counts = OidIsValid(ix->counterrel) ? counts_create(ix) : NULL;
	f.row = palloc(sizeof(Datum) * ix->ncols);
	f.rownull = palloc(sizeof(bool) * ix->ncols);
	base_scan(source, ix, true, fill_row, &f);
	index_writer_end(f.writer);
	if (f.counts)
	{
		counts_flush(f.counts);
		counts_destroy(f.counts);
	}
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
	for (int i = 0; i < ti->nindexes; i++)
		fill_index(&ti->indexes[i], member, add, WRITE_UPSERT);
	adjlist_unbecome(&role);
	SPI_finish();
}

/* ----------------------------------------------------------------------
 * create_inverted_index
 * ----------------------------------------------------------------------
 */

typedef struct CreatePlan
{
	Oid			base;
	char	   *base_ns;		/* unquoted */
	char	   *base_name;
	Oid			base_owner;
	char	  **cols;			/* key columns, then projections */
	int			ncols;
	int			nkeys;
	char	  **base_key;
	int			nbasekey;
	bool		pk_deferrable;
	bool		pk_deferred;
	char	   *index_name;
	bool		existing;
	int			partitions;
	int			counters;
	IndexMode	mode;
	int			write_shards;
} CreatePlan;

static int
int_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
	return PG_GETARG_INT32(n);
}

static char *
name_arg(FunctionCallInfo fcinfo, int n, const char *name)
{
	if (PG_ARGISNULL(n))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s must not be null", name)));
	return pstrdup(NameStr(*PG_GETARG_NAME(n)));
}

/* Steps 1 and 2: what to build, checked; the base table locked. */
static void
plan_index(FunctionCallInfo fcinfo, CreatePlan *p)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	char	   *partition_key;
	char	   *sort_key;
	char	   *mode;
	char	  **include;
	int			ninclude;
	ListCell   *lc;

	memset(p, 0, sizeof(*p));
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table must not be null")));
	p->base = PG_GETARG_OID(0);
	partition_key = name_arg(fcinfo, 1, "partition_key");
	sort_key = name_arg(fcinfo, 2, "sort_key");
	if (PG_ARGISNULL(3))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("include must not be null")));
	include = names_of_array(PG_GETARG_ARRAYTYPE_P(3), &ninclude);
	p->index_name = PG_ARGISNULL(4) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(4));
	p->partitions = int_arg(fcinfo, 5, "partitions");
	p->counters = int_arg(fcinfo, 6, "counters");
	p->existing = PG_ARGISNULL(8) ? false : PG_GETARG_BOOL(8);
	if (PG_ARGISNULL(9))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mode must not be null")));
	mode = text_to_cstring(PG_GETARG_TEXT_PP(9));
	p->write_shards = int_arg(fcinfo, 10, "write_shards");

	if (strcmp(mode, "trigger") == 0)
		p->mode = INDEX_MODE_TRIGGER;
	else if (strcmp(mode, "api") == 0)
		p->mode = INDEX_MODE_API;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("mode must be \"trigger\" or \"api\", not \"%s\"", mode)));
	if (p->write_shards < 0 || p->write_shards == 1 || p->write_shards > WRITE_SHARDS_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("write_shards must be 0 (none) or between 2 and %d, not %d",
						WRITE_SHARDS_MAX, p->write_shards)));
	if (p->partitions < 0 || p->partitions == 1 || p->partitions > 1024)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partitions must be 0 (a plain table) or between 2 and 1024, not %d",
						p->partitions)));
	if (p->counters < 0 || p->counters > 1024)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("counters must be between 0 (none) and 1024, not %d", p->counters)));
	if (p->existing && p->partitions != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("partitions cannot be given with existing => true")));
	if (IsolationUsesXactSnapshot())
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("an inverted index can be created only in a READ COMMITTED transaction"),
				 errdetail("The backfill reads the table after locking it, which a transaction snapshot taken earlier would not see."),
				 errhint("Run it in its own transaction, or after SET TRANSACTION ISOLATION LEVEL READ COMMITTED.")));

	require_owner(p->base);
	check_indexable_table(p->base, "base table");
	if (p->mode == INDEX_MODE_TRIGGER && adjlist_is_citus_table(p->base))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is distributed by Citus: trigger mode cannot keep its index",
						get_rel_name(p->base)),
				 errhint("Use mode => 'api' and write with put_edge(), delete_edge() and delete_node().")));
	p->base_ns = get_namespace_name(get_rel_namespace(p->base));
	p->base_name = get_rel_name(p->base);
	p->base_owner = adjlist_rel_owner(p->base);

	/* writers wait from here on; the backfill sees all they committed */
	foreach(lc, members_of(p->base))
		LockRelationOid(lfirst_oid(lc), ShareRowExclusiveLock);

	if (column_type_or_error(p->base, partition_key) != cat->keytype ||
		column_type_or_error(p->base, sort_key) != cat->keytype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the partition and sort keys of an inverted index must be adjkey columns"),
				 errdetail("Column \"%s\" is %s and column \"%s\" is %s.",
						   partition_key, format_type_be(column_type_or_error(p->base, partition_key)),
						   sort_key, format_type_be(column_type_or_error(p->base, sort_key)))));
	if (strcmp(partition_key, sort_key) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the partition key and the sort key must be different columns")));

	/* the base table's key: its primary key, or what we are told */
	{
		char	  **pkcols = primary_key_columns(p->base, &p->nbasekey, &p->pk_deferrable,
												 &p->pk_deferred);

		if (!PG_ARGISNULL(7))
		{
			p->base_key = names_of_array(PG_GETARG_ARRAYTYPE_P(7), &p->nbasekey);
			if (p->nbasekey == 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("base_key must name at least one column")));
			for (int i = 0; i < p->nbasekey; i++)
				(void) column_type_or_error(p->base, p->base_key[i]);
		}
		else if (pkcols != NULL)
			p->base_key = pkcols;
		else
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
					 errmsg("table \"%s\" has no primary key", p->base_name),
					 errhint("An inverted index maps each row by its primary key, for example PRIMARY KEY (pk, sk); a table that cannot have one (foreign partitions) names its key with base_key => '{pk,sk}'.")));
	}

	/* the index key: partition key, sort key, the rest of the base key */
	p->cols = palloc(sizeof(char *) * (MaxTupleAttributeNumber));
	p->cols[p->ncols++] = partition_key;
	p->cols[p->ncols++] = sort_key;
	for (int i = 0; i < p->nbasekey; i++)
		if (!name_in(p->cols, p->ncols, p->base_key[i]))
			p->cols[p->ncols++] = p->base_key[i];
	p->nkeys = p->ncols;

	/* projected columns; '*' projects every column (DynamoDB's ALL) */
	if (ninclude == 1 && strcmp(include[0], "*") == 0)
	{
		Relation	rel = table_open(p->base, NoLock);
		TupleDesc	desc = RelationGetDescr(rel);

		for (int i = 0; i < desc->natts; i++)
		{
			Form_pg_attribute att = TupleDescAttr(desc, i);

			if (!att->attisdropped && !name_in(p->cols, p->ncols, NameStr(att->attname)))
				p->cols[p->ncols++] = pstrdup(NameStr(att->attname));
		}
		table_close(rel, NoLock);
	}
	else
		for (int i = 0; i < ninclude; i++)
		{
			(void) column_type_or_error(p->base, include[i]);
			if (!name_in(p->cols, p->ncols, include[i]))
				p->cols[p->ncols++] = include[i];
		}
	if (p->ncols > INDEX_MAX_KEYS * 4)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("an inverted index can have at most %d columns", INDEX_MAX_KEYS * 4)));

	if (p->index_name == NULL)
		p->index_name = psprintf("%s_inverted", p->base_name);
	if (strlen(p->index_name) >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("index table name \"%s\" is too long", p->index_name),
				 errhint("Pass a shorter index_name.")));
	if (p->counters > 0 && strlen(p->index_name) + strlen("_degree") >= NAMEDATALEN)
		ereport(ERROR,
				(errcode(ERRCODE_NAME_TOO_LONG),
				 errmsg("counter table name \"%s_degree\" is too long", p->index_name),
				 errhint("Pass a shorter index_name.")));
}

/* The column definitions of the new index table, from the base table. */
static char *
column_definitions(CreatePlan *p)
{
	Relation	rel = table_open(p->base, NoLock);
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < p->ncols; i++)
	{
		Form_pg_attribute att = TupleDescAttr(RelationGetDescr(rel),
											  attnameAttNum(rel, p->cols[i], false) - 1);
		Oid			typcoll = get_typcollation(att->atttypid);

		appendStringInfo(&buf, "%s%s %s", i ? ", " : "", quote_identifier(p->cols[i]),
						 format_type_with_typemod(att->atttypid, att->atttypmod));
		if (OidIsValid(att->attcollation) && att->attcollation != typcoll)
			appendStringInfo(&buf, " COLLATE %s", generate_collation_name(att->attcollation));
		if (i < p->nkeys)
			appendStringInfoString(&buf, " NOT NULL");
	}
	table_close(rel, NoLock);
	return buf.data;
}

/* Step 3 for existing => true: check the table the caller made. */
static Oid
adopt_index_table(CreatePlan *p)
{
	Oid			idx = get_relname_relid(p->index_name, get_rel_namespace(p->base));

	if (!OidIsValid(idx))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s.%s\" does not exist", p->base_ns, p->index_name),
				 errhint("With existing => true, create the index table in the schema of the base table first.")));
	if (idx == p->base)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a table cannot be its own inverted index")));
	require_owner(idx);
	check_indexable_table(idx, "index table");
	if (adjlist_rel_owner(idx) != p->base_owner)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("table \"%s\" does not have the owner of table \"%s\"",
						p->index_name, p->base_name),
				 errdetail("An index table must be owned by the owner of its base table.")));
	if (registry_involves(idx) || OidIsValid(registry_base_of(idx)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("table \"%s\" already takes part in an inverted index", p->index_name)));
	for (int i = 0; i < p->ncols; i++)
	{
		AttrNumber	a = get_attnum(idx, p->cols[i]);

		if (a <= 0 || get_atttype(idx, a) != get_atttype(p->base, get_attnum(p->base, p->cols[i])))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("table \"%s\" has no column \"%s\" of the type it has in \"%s\"",
							p->index_name, p->cols[i], p->base_name)));
	}
	LockRelationOid(idx, AccessExclusiveLock);
	index_execute_sql(psprintf("DELETE FROM %s", adjlist_qualified_name(idx)), false, SPI_OK_DELETE);
	return idx;
}

/* Step 3: the new index table (no primary key yet) and its partitions. */
static Oid
create_index_table(CreatePlan *p)
{
	char	   *qidx = quote_qualified_identifier(p->base_ns, p->index_name);
	const char *owner = quote_identifier(GetUserNameFromId(p->base_owner, false));
	bool		change_owner = p->base_owner != GetUserId();
	Oid			idx;

	if (OidIsValid(get_relname_relid(p->index_name, get_rel_namespace(p->base))))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", p->index_name),
				 errhint("Pass index_name to choose another name, or drop_inverted_index() the old one.")));
	spi_exec(psprintf("CREATE TABLE %s (%s)%s", qidx, column_definitions(p),
					  p->partitions > 0 ?
					  psprintf(" PARTITION BY HASH (%s)", quote_identifier(p->cols[0])) : ""),
			 SPI_OK_UTILITY);
	for (int i = 0; i < p->partitions; i++)
	{
		char	   *qpart = quote_qualified_identifier(p->base_ns,
													   psprintf("%s_%d", p->index_name, i));

		spi_exec(psprintf("CREATE TABLE %s PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)",
						  qpart, qidx, p->partitions, i), SPI_OK_UTILITY);
		if (change_owner)
			spi_exec(psprintf("ALTER TABLE %s OWNER TO %s", qpart, owner), SPI_OK_UTILITY);
	}
	if (change_owner)
		spi_exec(psprintf("ALTER TABLE %s OWNER TO %s", qidx, owner), SPI_OK_UTILITY);
	spi_exec(psprintf("COMMENT ON TABLE %s IS %s", qidx,
					  quote_literal_cstr(psprintf("adjlist inverted index of %s (partition key %s, sort key %s)",
												  adjlist_qualified_name(p->base),
												  p->cols[0], p->cols[1]))),
			 SPI_OK_UTILITY);
	CommandCounterIncrement();
	idx = get_relname_relid(p->index_name, get_rel_namespace(p->base));
	if (!OidIsValid(idx))
		elog(ERROR, "index table \"%s\" was not created", p->index_name);
	return idx;
}

/* The index every counter table has: readers sum a group's rows. */
char *
counters_index_sql(const char *qcnt)
{
	return psprintf("CREATE INDEX ON %s (node, edge, direction)", qcnt);
}

static Oid
create_counter_table(CreatePlan *p)
{
	char	   *name = psprintf("%s_degree", p->index_name);
	char	   *qcnt = quote_qualified_identifier(p->base_ns, name);
	Oid			cnt;

	if (OidIsValid(get_relname_relid(name, get_rel_namespace(p->base))))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", name)));
	spi_exec(psprintf("CREATE TABLE %s (node %s.adjkey NOT NULL, edge pg_catalog.text NOT NULL, "
					  "direction pg_catalog.\"char\" NOT NULL "
					  "CHECK (direction OPERATOR(pg_catalog.=) ANY ('{o,i}'::pg_catalog.\"char\"[])), "
					  "n pg_catalog.int8 NOT NULL)",
					  qcnt, adjlist_catalog()->nspname),
			 SPI_OK_UTILITY);
	spi_exec(counters_index_sql(qcnt), SPI_OK_UTILITY);
	if (p->base_owner != GetUserId())
		spi_exec(psprintf("ALTER TABLE %s OWNER TO %s", qcnt,
						  quote_identifier(GetUserNameFromId(p->base_owner, false))),
				 SPI_OK_UTILITY);
	spi_exec(psprintf("COMMENT ON TABLE %s IS %s", qcnt,
					  quote_literal_cstr(psprintf("adjlist degree counters of %s",
												  quote_qualified_identifier(p->base_ns, p->index_name)))),
			 SPI_OK_UTILITY);
	CommandCounterIncrement();
	cnt = get_relname_relid(name, get_rel_namespace(p->base));
	if (!OidIsValid(cnt))
		elog(ERROR, "counter table \"%s\" was not created", name);
	return cnt;
}

/*
 * On Citus, the index table of a distributed table is distributed too, by
 * its own partition key, so that a reverse lookup is routed to one shard;
 * the counter table by node.  Of a reference table, they are reference
 * tables.  (Of a table Citus does not distribute, they stay local.)
 */
static void
distribute_like_base(Oid base, Oid idx, Oid cnt)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		args[1];
	char		method;
	char		repmodel;
	const IndexDef *ix;

	if (!adjlist_is_citus_table(base) || !citus_installed())
		return;
	args[0] = ObjectIdGetDatum(base);
	if (SPI_execute_with_args("SELECT partmethod::pg_catalog.text, repmodel::pg_catalog.text "
							  "FROM pg_catalog.pg_dist_partition "
							  "WHERE logicalrelid OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
							  1, argtypes, args, NULL, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		return;
	method = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)[0];
	repmodel = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2)[0];
	ix = registry_index(idx, false);
	if (method == 'h' || method == 'r' || method == 'a')
	{
		spi_exec(psprintf("SELECT pg_catalog.create_distributed_table(%s, %s, colocate_with => 'none')",
						  quote_literal_cstr(adjlist_qualified_name(idx)),
						  quote_literal_cstr(ix->colnames[0])),
				 SPI_OK_SELECT);
		if (OidIsValid(cnt))
			spi_exec(psprintf("SELECT pg_catalog.create_distributed_table(%s, 'node', colocate_with => 'none')",
							  quote_literal_cstr(adjlist_qualified_name(cnt))),
					 SPI_OK_SELECT);
	}
	else if (repmodel == 't')
	{
		spi_exec(psprintf("SELECT pg_catalog.create_reference_table(%s)",
						  quote_literal_cstr(adjlist_qualified_name(idx))),
				 SPI_OK_SELECT);
		if (OidIsValid(cnt))
			spi_exec(psprintf("SELECT pg_catalog.create_reference_table(%s)",
							  quote_literal_cstr(adjlist_qualified_name(cnt))),
					 SPI_OK_SELECT);
	}
}

/* Step 5: backfill as the owner; the new table gets its primary key. */
static void
backfill(CreatePlan *p, Oid idx)
{
	IndexDef   *ix = registry_index(idx, true);
	AdjlistRoleSwitch role;

	if (ix == NULL)
		elog(ERROR, "inverted index \"%s\" is not registered", p->index_name);
	adjlist_become(p->base_owner, &role);
	fill_index(ix, p->base, true, p->existing ? WRITE_UPSERT : WRITE_APPEND);
	adjlist_unbecome(&role);
	if (!p->existing)
		spi_exec(psprintf("ALTER TABLE %s ADD PRIMARY KEY (%s)%s",
						  adjlist_qualified_name(idx), name_list(p->cols, p->nkeys),
						  !p->pk_deferrable ? "" :
						  p->pk_deferred ? " DEFERRABLE INITIALLY DEFERRED" :
						  " DEFERRABLE INITIALLY IMMEDIATE"),
				 SPI_OK_UTILITY);
	spi_exec(psprintf("ANALYZE %s", adjlist_qualified_name(idx)), SPI_OK_UTILITY);
}

Datum
adjlist_create_inverted_index(PG_FUNCTION_ARGS)
{
	CreatePlan	p;
	Oid			idx;
	Oid			cnt = InvalidOid;
	RegistryRow row;

	plan_index(fcinfo, &p);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	idx = p.existing ? adopt_index_table(&p) : create_index_table(&p);
	if (p.counters > 0)
		cnt = create_counter_table(&p);

	memset(&row, 0, sizeof(row));
	row.indexrel = idx;
	row.baserel = p.base;
	row.ncols = p.ncols;
	row.colnames = p.cols;
	row.nkeys = p.nkeys;
	row.counterrel = cnt;
	row.nbasekey = p.nbasekey;
	row.base_key = p.base_key;
	row.mode = p.mode;
	row.write_shards = p.write_shards;
	registry_insert(&row);
	CommandCounterIncrement();
	install_triggers(p.base);
	backfill(&p, idx);
	if (!p.existing)
		distribute_like_base(p.base, idx, cnt);
	SPI_finish();
	PG_RETURN_OID(idx);
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

	/*
	 * One drop at a time (the lock conflicts with itself, not with readers
	 * or writers); a drop that waited for another finds the index gone.
	 */
	if (SearchSysCacheExists1(RELOID, ObjectIdGetDatum(idx)))
		LockRelationOid(idx, ShareUpdateExclusiveLock);
	ix = SearchSysCacheExists1(RELOID, ObjectIdGetDatum(idx)) ? registry_index(idx, false) : NULL;
	if (ix == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("\"%s\" is not an inverted index", get_rel_name(idx) ? get_rel_name(idx) : "?")));
	require_owner(ix->baserel);
	LockRelationOid(ix->baserel, ShareRowExclusiveLock);
	qidx = adjlist_qualified_name(idx);
	if (OidIsValid(ix->counterrel) && get_rel_name(ix->counterrel) != NULL)
		qcnt = adjlist_qualified_name(ix->counterrel);
	registry_delete(idx);
	CommandCounterIncrement();
	install_triggers(ix->baserel);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	spi_exec(psprintf("DROP TABLE %s", qidx), SPI_OK_UTILITY);
	if (qcnt != NULL)
		spi_exec(psprintf("DROP TABLE %s", qcnt), SPI_OK_UTILITY);
	SPI_finish();
}
