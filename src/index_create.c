/*-------------------------------------------------------------------------
 *
 * index_create.c
 *	  create_inverted_index(): what to build, the index and counter tables,
 *	  the registration, and the build in the caller's transaction.
 *
 * create_inverted_index(tbl, ...):
 *	1. checks the arguments and the caller (index_create_plan()): the caller must
 *	   own the base table, and with existing => true the index table too,
 *	   which must have the base table's owner; catalogs, views, temporary
 *	   tables, partitions and inheritance are refused (index_admin.c);
 *	2. locks the base table and its partitions against writers (SHARE ROW
 *	   EXCLUSIVE: readers go on);
 *	3. creates the index table (as the caller, in the base table's schema,
 *	   then owned by the base table's owner) without its primary key, and
 *	   the degree counter table when asked (index_create_tables());
 *	4. registers the index (registry_write.c) and installs the triggers;
 *	5. backfills: reads the base table as its owner and writes the index
 *	   rows (index_rule.c) with the bulk writer (index_write.c), then adds
 *	   the primary key, which builds its btree by sorting, as CREATE TABLE
 *	   AS followed by ADD PRIMARY KEY would;
 *	6. analyzes the index table.
 * Everything runs in the caller's transaction: an error leaves nothing.
 *
 * CALL create_inverted_index(tbl, concurrently => true, ...) is the
 * procedure of the same name: steps 1 and 3 take no lock that writers
 * wait for, and the rest runs in transactions of its own (index_build.c).
 * Its concurrently => false does what the function does.
 *
 * Progress is reported as CREATE INDEX reports it (pg_stat_progress_*),
 * so pg_stat_progress_create_index and inverted_index_progress show it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "commands/comment.h"
#include "commands/progress.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parse_relation.h"
#include "pgstat.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/backend_progress.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/ruleutils.h"
#include "utils/syscache.h"

#include "adjlist.h"
#include "base_key.h"
#include "catalog.h"
#include "detach_pending.h"
#include "index_admin.h"
#include "index_persistence.h"
#include "index_predicate.h"
#include "index_write.h"
#include "registry.h"
#include "table_options.h"
#include "write_shard.h"

PG_FUNCTION_INFO_V1(adjlist_create_inverted_index);
PG_FUNCTION_INFO_V1(adjlist_create_inverted_index_proc);

/* ----------------------------------------------------------------------
 * The arguments
 * ----------------------------------------------------------------------
 */

/*
 * Argument n of the function's list: the procedure has concurrently after
 * the table, so its later arguments are skip further on.
 */
#define ARGNO(n) ((n) == 0 ? 0 : (n) + skip)

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

/* The scalar arguments, checked on their own. */
static void
plan_options(FunctionCallInfo fcinfo, int skip, CreatePlan *p)
{
	char	   *mode;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table must not be null")));
	p->base = PG_GETARG_OID(0);
	p->index_name = PG_ARGISNULL(ARGNO(4)) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(ARGNO(4)));
	p->partitions = int_arg(fcinfo, ARGNO(5), "partitions");
	p->counters = int_arg(fcinfo, ARGNO(6), "counters");
	p->existing = PG_ARGISNULL(ARGNO(8)) ? false : PG_GETARG_BOOL(ARGNO(8));
	if (PG_ARGISNULL(ARGNO(9)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("mode must not be null")));
	mode = text_to_cstring(PG_GETARG_TEXT_PP(ARGNO(9)));
	p->write_shards = int_arg(fcinfo, ARGNO(10), "write_shards");
	p->predicate = PG_ARGISNULL(ARGNO(11)) ? NULL : text_to_cstring(PG_GETARG_TEXT_PP(ARGNO(11)));

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
	if (p->existing && p->concurrently)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("existing => true cannot be given with concurrently => true")));
	if (IsolationUsesXactSnapshot() && !p->concurrently)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TRANSACTION_STATE),
				 errmsg("an inverted index can be created only in a READ COMMITTED transaction"),
				 errdetail("The backfill reads the table after locking it, which a transaction snapshot taken earlier would not see."),
				 errhint("Run it in its own transaction, or after SET TRANSACTION ISOLATION LEVEL READ COMMITTED.")));
}

/* The base table, checked and locked. */
static void
plan_base(CreatePlan *p, char *partition_key, char *sort_key)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	ListCell   *lc;

	admin_require_owner(p->base);
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

	/*
	 * Writers wait from here on, and the backfill sees all they committed;
	 * a concurrent build only keeps DDL and other builds away.
	 */
	foreach(lc, admin_members_of(p->base))
		LockRelationOid(lfirst_oid(lc),
						p->concurrently ? ShareUpdateExclusiveLock : ShareRowExclusiveLock);
	/* (locked: no partition becomes unlogged meanwhile) */
	persistence_check_base(p->base);
	detach_pending_refuse(p->base, psprintf("create an inverted index of table \"%s\"", p->base_name));

	if (admin_column_type(p->base, partition_key) != cat->keytype ||
		admin_column_type(p->base, sort_key) != cat->keytype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the partition and sort keys of an inverted index must be adjkey columns"),
				 errdetail("Column \"%s\" is %s and column \"%s\" is %s.",
						   partition_key, format_type_be(admin_column_type(p->base, partition_key)),
						   sort_key, format_type_be(admin_column_type(p->base, sort_key)))));
	if (strcmp(partition_key, sort_key) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the partition key and the sort key must be different columns")));
}

/* The base table's key: its primary key, or what we are told. */
static void
plan_base_key(FunctionCallInfo fcinfo, int skip, CreatePlan *p)
{
	char	  **pkcols = admin_primary_key_columns(p->base, &p->nbasekey, &p->pk_deferrable,
												   &p->pk_deferred);

	if (!PG_ARGISNULL(ARGNO(7)))
	{
		p->base_key = admin_names_of_array(PG_GETARG_ARRAYTYPE_P(ARGNO(7)), &p->nbasekey);
		if (p->nbasekey == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("base_key must name at least one column")));
		for (int i = 0; i < p->nbasekey; i++)
			(void) admin_column_type(p->base, p->base_key[i]);
	}
	else if (pkcols != NULL)
		p->base_key = pkcols;
	else
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("table \"%s\" has no primary key", p->base_name),
				 errhint("An inverted index maps each row by its primary key, for example PRIMARY KEY (pk, sk); a table that cannot have one (foreign partitions) names its key with base_key => '{pk,sk}'.")));
	/* unique (base_key.c), and the index table's key as deferrable as it */
	base_key_require(p->base, p->base_key, p->nbasekey, &p->pk_deferrable, &p->pk_deferred);
}

/* The index table's columns: the key, then what is projected. */
static void
plan_columns(CreatePlan *p, char *partition_key, char *sort_key, char **include, int ninclude)
{
	/* the index key: partition key, sort key, the rest of the base key */
	p->cols = palloc(sizeof(char *) * (MaxTupleAttributeNumber));
	p->cols[p->ncols++] = partition_key;
	p->cols[p->ncols++] = sort_key;
	for (int i = 0; i < p->nbasekey; i++)
		if (!admin_name_in(p->cols, p->ncols, p->base_key[i]))
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

			if (!att->attisdropped && !admin_name_in(p->cols, p->ncols, NameStr(att->attname)))
				p->cols[p->ncols++] = pstrdup(NameStr(att->attname));
		}
		table_close(rel, NoLock);
	}
	else
		for (int i = 0; i < ninclude; i++)
		{
			(void) admin_column_type(p->base, include[i]);
			if (!admin_name_in(p->cols, p->ncols, include[i]))
				p->cols[p->ncols++] = include[i];
		}
	{
		/* the expiry, which reads through the index check */
		TableOptions *o = table_options(p->base);

		if (o->ttl != NULL && !admin_name_in(p->cols, p->ncols, o->ttl))
			p->cols[p->ncols++] = o->ttl;
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

/*
 * Virtual generated columns (PostgreSQL 18) store no value: a row's value
 * is computed where a query reads the column, and the triggers that keep
 * an index see null in their transition tables (a stored tuple has none
 * either).  So an index uses none, in any role: key, base key, projected,
 * expiry or in its predicate.  include => '{*}' is resolved here, once,
 * and refused rather than silently thinned.  No DDL brings one in later:
 * PostgreSQL turns no column virtual, a partition's generated columns are
 * of its parent's kind, and '{*}' is not read again.
 */
static void
refuse_virtual(CreatePlan *p, const char *col, const char *role, const char *hint)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("column \"%s\" of table \"%s\" is a virtual generated column",
					col, p->base_name),
			 errdetail("An inverted index cannot use it %s: PostgreSQL stores no value for it, and the triggers that keep the index read rows as they are stored.",
					   role),
			 errhint("Make the column STORED, or %s.", hint)));
}

static void
plan_stored_columns(CreatePlan *p, bool star)
{
	TableOptions *o = table_options(p->base);
	char	   *col;

	for (int i = 0; i < p->ncols; i++)
	{
		bool		expiry = i >= p->nkeys && o->ttl != NULL && strcmp(o->ttl, p->cols[i]) == 0;

		if (ADJLIST_ATTGENERATED_VIRTUAL(get_attgenerated(p->base, get_attnum(p->base, p->cols[i]))))
			refuse_virtual(p, p->cols[i],
						   i == 0 ? "as its partition key" :
						   i == 1 ? "as its sort key" :
						   i < p->nkeys ? "in the key of the base table" :
						   expiry ? "as the expiry column" : "as a projected column",
						   i < p->nkeys ? "key the index by other columns" :
						   expiry ? "turn time to live off with set_ttl() first" :
						   star ? "name the projected columns in include instead of '{*}'" :
						   "leave it out of include");
	}
	if (p->predicate_expr != NULL &&
		(col = index_predicate_virtual_column(p->base, p->predicate_expr)) != NULL)
		refuse_virtual(p, col, "in its predicate", "write its generation expression in the predicate instead");
}

/*
 * What a concurrent build needs: a table it can read in ranges of blocks
 * (no foreign partitions), on this server (not distributed by Citus), whose
 * primary key makes index keys unique (so that a backfilled row and a
 * trigger's row of one key never race) and is not deferrable (ON CONFLICT
 * needs an immediate key).
 */
static void
plan_concurrent(CreatePlan *p)
{
	ListCell   *lc;
	char	  **pkcols;
	int			npk;
	bool		deferrable;
	bool		deferred;

	if (adjlist_is_citus_table(p->base))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" is distributed by Citus: its index cannot be built concurrently",
						p->base_name),
				 errhint("Create the index before distributing the table, or without concurrently.")));
	foreach(lc, admin_members_of(p->base))
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("table \"%s\" has foreign partitions: its index cannot be built concurrently",
							p->base_name)));
	pkcols = admin_primary_key_columns(p->base, &npk, &deferrable, &deferred);
	if (pkcols == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("table \"%s\" has no primary key: its index cannot be built concurrently",
						p->base_name)));
	if (deferrable)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("the primary key of table \"%s\" is deferrable: its index cannot be built concurrently",
						p->base_name)));
	for (int i = 0; i < npk; i++)
		if (!admin_name_in(p->cols, p->nkeys, pkcols[i]))
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("column \"%s\" of the primary key of \"%s\" is not in the key of the index: it cannot be built concurrently",
							pkcols[i], p->base_name)));
}

void
index_create_plan(FunctionCallInfo fcinfo, int skip, CreatePlan *p)
{
	char	   *partition_key;
	char	   *sort_key;
	char	  **include;
	int			ninclude;
	bool		concurrently = p->concurrently;

	memset(p, 0, sizeof(*p));
	p->concurrently = concurrently;
	partition_key = name_arg(fcinfo, ARGNO(1), "partition_key");
	sort_key = name_arg(fcinfo, ARGNO(2), "sort_key");
	if (PG_ARGISNULL(ARGNO(3)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("include must not be null")));
	include = admin_names_of_array(PG_GETARG_ARRAYTYPE_P(ARGNO(3)), &ninclude);
	plan_options(fcinfo, skip, p);
	plan_base(p, partition_key, sort_key);
	plan_base_key(fcinfo, skip, p);
	plan_columns(p, partition_key, sort_key, include, ninclude);
	if (p->predicate != NULL)
		p->predicate_expr = index_predicate_bind(p->base, p->predicate, &p->predicate);
	plan_stored_columns(p, ninclude == 1 && strcmp(include[0], "*") == 0);
	if (p->concurrently)
		plan_concurrent(p);
}

/* ----------------------------------------------------------------------
 * The tables
 * ----------------------------------------------------------------------
 */

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

/*
 * A column of an index table (or of one of its partitions) that the index
 * uses must be plain: adjlist writes copies of the base row's values, and
 * PostgreSQL would put a generation expression's in their place, which no
 * rebuild could mend, or refuse the nulls a base row may have (an identity
 * column is NOT NULL).  The index table's columns cannot change afterwards
 * (index_guard.c).
 */
static void
adopt_plain_columns(CreatePlan *p, Oid idx)
{
	ListCell   *lc;

	foreach(lc, admin_members_of(idx))
	{
		Oid			rel = lfirst_oid(lc);

		for (int i = 0; i < p->ncols; i++)
		{
			HeapTuple	tp = SearchSysCacheAttName(rel, p->cols[i]);
			bool		generated;
			bool		identity;

			if (!HeapTupleIsValid(tp))
				continue;
			generated = ((Form_pg_attribute) GETSTRUCT(tp))->attgenerated != '\0';
			identity = ((Form_pg_attribute) GETSTRUCT(tp))->attidentity != '\0';
			ReleaseSysCache(tp);
			if (generated || identity)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
						 generated ?
						 errmsg("column \"%s\" of table \"%s\" is a generated column",
								p->cols[i], get_rel_name(rel)) :
						 errmsg("column \"%s\" of table \"%s\" is an identity column",
								p->cols[i], get_rel_name(rel)),
						 errdetail("adjlist writes copies of the base table's values into an index table: PostgreSQL would compute a generated column's values itself, and an identity column refuses nulls."),
						 errhint("Make it a plain column of the index table.")));
		}
	}
}

/* Step 3 for existing => true: check the table the caller made. */
static Oid
adopt_index_table(CreatePlan *p)
{
	Oid			idx = get_relname_relid(p->index_name, get_rel_namespace(p->base));
	char	   *msg;
	char	   *detail;

	if (!OidIsValid(idx))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s.%s\" does not exist", p->base_ns, p->index_name),
				 errhint("With existing => true, create the index table in the schema of the base table first.")));
	if (idx == p->base)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("a table cannot be its own inverted index")));
	admin_require_owner(idx);
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
	adopt_plain_columns(p, idx);
	persistence_check_adopted(p->base, idx);
	/* (after the lock: no unique index can come meanwhile) */
	if ((msg = registry_key_problem(idx, p->cols, p->nkeys, &detail)) != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TABLE_DEFINITION),
				 errmsg("%s", msg),
				 errdetail("%s", detail),
				 errhint("Give the index table the primary key (%s) or none, and no exclusion constraint or unique index that leaves out one of those columns.",
						 admin_name_list(p->cols, p->nkeys))));
	index_execute_sql(psprintf("DELETE FROM %s", adjlist_qualified_name(idx)), false, SPI_OK_DELETE);
	return idx;
}

/*
 * The primary key of the index table: its key columns, deferrable when the
 * base table's key is (then both may hold a key twice until commit), and
 * then always initially deferred, whatever the base's is.  SET CONSTRAINTS
 * naming the base table's key defers that key alone: an index key checked
 * at the end of each statement would then raise a unique violation for a
 * duplicate that the base table holds until commit.  Checked at commit it
 * loses nothing: the index holds the base table's rows as a multiset, so it
 * holds a key twice only while the base does, and the base's own check,
 * immediate or deferred, comes no later than the index's.
 */
static char *
primary_key_sql(CreatePlan *p)
{
	return psprintf("PRIMARY KEY (%s)%s", admin_name_list(p->cols, p->nkeys),
					p->pk_deferrable ? " DEFERRABLE INITIALLY DEFERRED" : "");
}

/*
 * Step 3: the new index table and its partitions; its primary key comes
 * after the backfill, unless withkey (a concurrent build, whose writers
 * need it from the start).  Unlogged when the base table is (the tables
 * that hold rows: a partitioned table holds none; index_persistence.c).
 */
static Oid
create_index_table(CreatePlan *p, bool withkey)
{
	char	   *qidx = quote_qualified_identifier(p->base_ns, p->index_name);
	const char *owner = quote_identifier(GetUserNameFromId(p->base_owner, false));
	bool		change_owner = p->base_owner != GetUserId();
	bool		unlogged = index_persistence(p->base) == RELPERSISTENCE_UNLOGGED;
	Oid			idx;

	if (OidIsValid(get_relname_relid(p->index_name, get_rel_namespace(p->base))))
		ereport(ERROR,
				(errcode(ERRCODE_DUPLICATE_TABLE),
				 errmsg("relation \"%s\" already exists", p->index_name),
				 errhint("Pass index_name to choose another name, or drop_inverted_index() the old one.")));
	admin_exec(psprintf("CREATE %sTABLE %s (%s%s%s)%s",
						unlogged && p->partitions == 0 ? "UNLOGGED " : "",
						qidx, column_definitions(p),
						withkey ? ", " : "", withkey ? primary_key_sql(p) : "",
					  p->partitions > 0 ?
					  psprintf(" PARTITION BY HASH (%s)", quote_identifier(p->cols[0])) : ""),
			 SPI_OK_UTILITY);
	for (int i = 0; i < p->partitions; i++)
	{
		char	   *qpart = quote_qualified_identifier(p->base_ns,
													   psprintf("%s_%d", p->index_name, i));

		admin_exec(psprintf("CREATE %sTABLE %s PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)",
						  unlogged ? "UNLOGGED " : "", qpart, qidx, p->partitions, i),
				   SPI_OK_UTILITY);
		if (change_owner)
			admin_exec(psprintf("ALTER TABLE %s OWNER TO %s", qpart, owner), SPI_OK_UTILITY);
	}
	if (change_owner)
		admin_exec(psprintf("ALTER TABLE %s OWNER TO %s", qidx, owner), SPI_OK_UTILITY);
	admin_exec(psprintf("COMMENT ON TABLE %s IS %s", qidx,
					  quote_literal_cstr(index_comment_text(p->base, p->cols[0], p->cols[1]))),
			 SPI_OK_UTILITY);
	CommandCounterIncrement();
	idx = get_relname_relid(p->index_name, get_rel_namespace(p->base));
	if (!OidIsValid(idx))
		elog(ERROR, "index table \"%s\" was not created", p->index_name);
	return idx;
}

/*
 * The comment of an index table, which names its base table: pg_dump -t
 * and -n keep it where they leave the registry's row out, and a trigger
 * finds by it the index tables of a base that are not registered
 * (index_sync_check.c).  So it follows renames of the base and of its
 * schema (index_comments_refresh()).
 */
#define INDEX_COMMENT "adjlist inverted index of "
#define COUNTER_COMMENT "adjlist degree counters of "

/* What every comment of an index table of base begins with. */
char *
index_comment_prefix(Oid base)
{
	return psprintf(INDEX_COMMENT "%s (", adjlist_qualified_name(base));
}

char *
index_comment_text(Oid base, const char *pkcol, const char *skcol)
{
	return psprintf(INDEX_COMMENT "%s (partition key %s, sort key %s)",
					adjlist_qualified_name(base), pkcol, skcol);
}

/* Set a table's comment to text if adjlist wrote it (its prefix) and it differs. */
static void
refresh_comment(Oid relid, const char *prefix, const char *text)
{
	char	   *old = GetComment(relid, RelationRelationId, 0);

	if (old != NULL && strncmp(old, prefix, strlen(prefix)) == 0 && strcmp(old, text) != 0)
		CreateComments(relid, RelationRelationId, 0, text);
}

/*
 * After DDL that renames or moves a table or a schema (index_guard.c): the
 * comments adjlist gave index and counter tables name their base table and
 * index table anew.  A comment someone else wrote is left alone.  Only
 * catalogs are read and written: no table is locked.
 */
void
index_comments_refresh(void)
{
	Oid		   *indexes;
	Oid		   *bases;
	Oid		   *counters;
	int			n = registry_all(&indexes, &bases, &counters);

	for (int i = 0; i < n; i++)
	{
		IndexDef   *ix = registry_index(indexes[i], false);
		char	   *idxname;

		if (ix == NULL || get_rel_name(ix->baserel) == NULL ||
			(idxname = get_rel_name(ix->indexrel)) == NULL)
			continue;
		refresh_comment(ix->indexrel, INDEX_COMMENT,
						index_comment_text(ix->baserel, ix->colnames[0], ix->colnames[1]));
		if (OidIsValid(ix->counterrel) && get_rel_name(ix->counterrel) != NULL)
			refresh_comment(ix->counterrel, COUNTER_COMMENT,
							psprintf(COUNTER_COMMENT "%s", adjlist_qualified_name(ix->indexrel)));
	}
	CommandCounterIncrement();
}

/*
 * The index every counter table has: readers sum a group's rows.  And,
 * a counter table having no primary key, its replica identity: the whole
 * row, so that compact_counters() may delete rows of a table a publication
 * publishes (logical replication, README "Streams").
 */
char *
counters_index_sql(const char *qcnt)
{
	return psprintf("CREATE INDEX ON %s (node, edge, direction); "
					"ALTER TABLE %s REPLICA IDENTITY FULL", qcnt, qcnt);
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
				 errmsg("relation \"%s\" already exists", name),
				 errhint("A counter table is made from the index: drop the old one (one restored without its registration, say) first.")));
	admin_exec(psprintf("CREATE %sTABLE %s (node %s.adjkey NOT NULL, edge pg_catalog.text NOT NULL, "
					  "direction pg_catalog.\"char\" NOT NULL "
					  "CHECK (direction OPERATOR(pg_catalog.=) ANY ('{o,i}'::pg_catalog.\"char\"[])), "
					  "n pg_catalog.int8 NOT NULL)",
					  index_persistence(p->base) == RELPERSISTENCE_UNLOGGED ? "UNLOGGED " : "",
					  qcnt, adjlist_catalog()->nspname),
			 SPI_OK_UTILITY);
	admin_exec(counters_index_sql(qcnt), SPI_OK_UTILITY);
	if (p->base_owner != GetUserId())
		admin_exec(psprintf("ALTER TABLE %s OWNER TO %s", qcnt,
						  quote_identifier(GetUserNameFromId(p->base_owner, false))),
				 SPI_OK_UTILITY);
	admin_exec(psprintf("COMMENT ON TABLE %s IS %s", qcnt,
					  quote_literal_cstr(psprintf(COUNTER_COMMENT "%s",
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

	if (!adjlist_is_citus_table(base) || !admin_citus_installed())
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
		admin_exec(psprintf("SELECT pg_catalog.create_distributed_table(%s, %s, colocate_with => 'none')",
						  quote_literal_cstr(adjlist_qualified_name(idx)),
						  quote_literal_cstr(ix->colnames[0])),
				 SPI_OK_SELECT);
		if (OidIsValid(cnt))
			admin_exec(psprintf("SELECT pg_catalog.create_distributed_table(%s, 'node', colocate_with => 'none')",
							  quote_literal_cstr(adjlist_qualified_name(cnt))),
					 SPI_OK_SELECT);
	}
	else if (repmodel == 't')
	{
		admin_exec(psprintf("SELECT pg_catalog.create_reference_table(%s)",
						  quote_literal_cstr(adjlist_qualified_name(idx))),
				 SPI_OK_SELECT);
		if (OidIsValid(cnt))
			admin_exec(psprintf("SELECT pg_catalog.create_reference_table(%s)",
							  quote_literal_cstr(adjlist_qualified_name(cnt))),
					 SPI_OK_SELECT);
	}
}

Oid
index_create_tables(CreatePlan *p, bool withkey, bool ready, Oid *cnt)
{
	RegistryRow row;
	Oid			idx;

	idx = p->existing ? adopt_index_table(p) : create_index_table(p, withkey);
	*cnt = p->counters > 0 ? create_counter_table(p) : InvalidOid;

	memset(&row, 0, sizeof(row));
	row.indexrel = idx;
	row.baserel = p->base;
	row.ncols = p->ncols;
	row.colnames = p->cols;
	row.nkeys = p->nkeys;
	row.counterrel = *cnt;
	row.nbasekey = p->nbasekey;
	row.base_key = p->base_key;
	row.mode = p->mode;
	row.write_shards = p->write_shards;
	row.ready = ready;
	row.predicate = p->predicate;
	row.predicate_expr = p->predicate_expr;
	registry_insert(&row);
	/* bound: what the predicate calls cannot be dropped from under it */
	if (p->predicate_expr != NULL)
		index_predicate_depend(idx, *cnt, p->predicate_expr);
	CommandCounterIncrement();
	return idx;
}

/* ----------------------------------------------------------------------
 * The build in one transaction
 * ----------------------------------------------------------------------
 */

void
index_create_progress(Oid base, Oid idx, bool concurrently)
{
	const int	cols[] = {PROGRESS_CREATEIDX_COMMAND, PROGRESS_CREATEIDX_INDEX_OID,
	PROGRESS_CREATEIDX_SUBPHASE};
	int64		vals[3];

	pgstat_progress_start_command(PROGRESS_COMMAND_CREATE_INDEX, base);
	vals[0] = concurrently ? PROGRESS_CREATEIDX_COMMAND_CREATE_CONCURRENTLY :
		PROGRESS_CREATEIDX_COMMAND_CREATE;
	vals[1] = idx;
	vals[2] = PROGRESS_ADJLIST_MARK;
	pgstat_progress_update_multi_param(3, cols, vals);
}

/* The planner's estimate of the rows of a table and its partitions. */
static int64
estimated_rows(Oid base)
{
	ListCell   *lc;
	int64		n = 0;

	foreach(lc, admin_members_of(base))
	{
		HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(tp))
			continue;
		if (((Form_pg_class) GETSTRUCT(tp))->reltuples > 0)
			n += (int64) ((Form_pg_class) GETSTRUCT(tp))->reltuples;
		ReleaseSysCache(tp);
	}
	return n;
}

/* Step 5: backfill as the owner; the new table gets its primary key. */
static void
backfill(CreatePlan *p, Oid idx)
{
	IndexDef   *ix = registry_index(idx, true);
	AdjlistRoleSwitch role;

	if (ix == NULL)
		elog(ERROR, "inverted index \"%s\" is not registered", p->index_name);
	index_create_progress(p->base, idx, false);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_PHASE, PROGRESS_CREATEIDX_PHASE_BUILD);
	pgstat_progress_update_param(PROGRESS_CREATEIDX_TUPLES_TOTAL,
								 estimated_rows(p->base));
	adjlist_become(p->base_owner, &role);
	admin_fill_index(ix, p->base, true, p->existing ? WRITE_UPSERT : WRITE_APPEND, true);
	adjlist_unbecome(&role);
	pgstat_progress_end_command();
	/* (ADD PRIMARY KEY and ANALYZE report as themselves) */
	if (!p->existing)
		admin_exec(psprintf("ALTER TABLE %s ADD %s", adjlist_qualified_name(idx),
							primary_key_sql(p)),
				   SPI_OK_UTILITY);
	admin_exec(psprintf("ANALYZE %s", adjlist_qualified_name(idx)), SPI_OK_UTILITY);
}

void
index_create_finish(CreatePlan *p, Oid idx, Oid cnt)
{
	install_triggers(p->base);
	backfill(p, idx);
	if (!p->existing)
		distribute_like_base(p->base, idx, cnt);
}

static Oid
create_now(FunctionCallInfo fcinfo, int skip)
{
	CreatePlan	p;
	Oid			idx;
	Oid			cnt;

	p.concurrently = false;
	index_create_plan(fcinfo, skip, &p);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	idx = index_create_tables(&p, false, true, &cnt);
	index_create_finish(&p, idx, cnt);
	SPI_finish();
	return idx;
}

/* create_inverted_index(tbl, partition_key, ...) RETURNS regclass */
Datum
adjlist_create_inverted_index(PG_FUNCTION_ARGS)
{
	PG_RETURN_OID(create_now(fcinfo, 0));
}

/*
 * PROCEDURE create_inverted_index(tbl, concurrently, partition_key, ...):
 * concurrently, in transactions of its own, which CALL at the top level
 * (outside a transaction block) allows; otherwise as the function.
 */
Datum
adjlist_create_inverted_index_proc(PG_FUNCTION_ARGS)
{
	CallContext *call = (CallContext *) fcinfo->context;
	CreatePlan	p;

	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("concurrently must not be null")));
	if (!PG_GETARG_BOOL(1))
	{
		(void) create_now(fcinfo, 1);
		PG_RETURN_VOID();
	}
	if (call == NULL || !IsA(call, CallContext) || call->atomic)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("create_inverted_index(..., concurrently => true) cannot run inside a transaction block"),
				 errdetail("It commits after each step, as CREATE INDEX CONCURRENTLY does."),
				 errhint("CALL it outside BEGIN ... COMMIT and outside functions.")));
	p.concurrently = true;
	index_create_plan(fcinfo, 1, &p);
	index_build_concurrently(&p);
	PG_RETURN_VOID();
}
