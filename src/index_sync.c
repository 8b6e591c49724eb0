/*-------------------------------------------------------------------------
 *
 * index_sync.c
 *	  The trigger that keeps a table's inverted indexes in sync, and the
 *	  session cache of what it needs to do so.
 *
 * One trigger function serves every inverted index of a table: the
 * registry (adjlist_inverted_indexes) says which indexes a table has, and
 * create_inverted_index() installs two triggers on the base table,
 *
 *	adjlist_sync			AFTER DELETE OR UPDATE OF <columns> FOR EACH ROW
 *	adjlist_sync_insert		AFTER INSERT REFERENCING NEW TABLE FOR EACH STATEMENT
 *	adjlist_sync_truncate	AFTER TRUNCATE FOR EACH STATEMENT
 *
 * Inserts are written in bulk: one INSERT ... SELECT from the statement's
 * transition table per index, instead of one SPI execution per row, which
 * makes COPY and INSERT ... SELECT cost about what a second btree costs.
 * Statement triggers are not cloned to partitions, though, and transition
 * tables cannot be collected from foreign partitions, so on a partitioned
 * table the row trigger fires for INSERT too (adjlist_sync AFTER INSERT OR
 * ...), and the statement form is not installed.
 *
 * so the trigger needs no arguments, and renaming a table or an index
 * changes nothing it depends on.  Row triggers on a partitioned table are
 * cloned to its partitions, so the trigger may fire on a partition: the
 * registry is then searched for the partition's ancestors too, and columns
 * are found by name in the firing relation, whose attribute numbers may
 * differ from its parent's.
 *
 * Index tables that adjlist created and nobody changed are written without
 * SQL (index_direct.c).  Otherwise writes go through SPI with plans
 * prepared once per (firing relation, index) and kept for the session, as
 * core's ri_triggers.c does.  The SQL
 * is built from the catalogs with every name schema-qualified and quoted,
 * and equality is spelled OPERATOR(schema.=), so search_path plays no
 * part.  A plan is thrown away and rebuilt from the catalogs when a
 * relcache invalidation touches the firing relation or the index table, or
 * when SPI_plan_is_valid() says DDL made it stale.
 *
 * The writes run as the owner of the index table (SetUserIdAndSecContext,
 * like foreign-key triggers), so a role that may write the base table needs
 * no privileges on the index table.  SECURITY_NOFORCE_RLS keeps row-level
 * security of the index table, if someone enables it, from hiding rows
 * from the owner.
 *
 * Change detection: an UPDATE that sets none of an index's columns does not
 * fire the trigger at all (UPDATE OF); one that sets them to the values
 * they had is skipped here by comparing datum images.  A row whose
 * partition key or sort key is NULL is not indexed (a sparse index).
 *
 * Write sharding: an index with write_shards = N stores each row under
 * partition key "sk#s" (write_shard.c), computed from the row's keys right
 * before the write, for deletes as for inserts; degree counters are
 * counted from the logical keys, before that.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/partition.h"
#include "catalog/pg_index.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "adjlist.h"

PG_FUNCTION_INFO_V1(adjlist_sync_trigger);

/* The transition table of the statement-level INSERT trigger. */
#define ADJLIST_NEW_TABLE "adjlist_new"

/* One inverted index, as seen from one firing relation. */
typedef struct SyncIndex
{
	Oid			indexrelid;
	Oid			owner;			/* writes run as this role */
	int			ncols;			/* columns of the index table */
	int			nkeys;			/* leading columns that form its key */
	bool		has_unique;		/* a unique index on exactly the key */
	int			write_shards;	/* partition keys spread over N suffixes, or 0 */
	DirectInfo	direct;			/* may be written without SQL (index_direct.c) */
	AttrNumber *attnos;			/* column i in the firing relation */
	Oid		   *types;
	int16	   *typlens;
	bool	   *typbyvals;
	char	   *insert_sql;
	char	   *delete_sql;
	char	   *truncate_sql;
	char	   *bulk_insert_sql;	/* from the transition table */
	SPIPlanPtr	insert_plan;
	SPIPlanPtr	delete_plan;
	SPIPlanPtr	bulk_insert_plan;
	/* degree counters, when counter_shards > 0 */
	int			counter_shards;
	Oid			counterrelid;
	char	   *counter_sql;
	char	   *counter_truncate_sql;
	char	   *bulk_counter_sql;	/* from the transition table */
	SPIPlanPtr	counter_plan;
	SPIPlanPtr	bulk_counter_plan;
} SyncIndex;

/* Everything the trigger needs for one firing relation. */
typedef struct SyncEntry
{
	Oid			relid;			/* hash key */
	bool		valid;
	MemoryContext cxt;			/* owns the SyncIndex array and SQL text */
	int			nindexes;
	SyncIndex  *indexes;
} SyncEntry;

static HTAB *sync_cache = NULL;

/*
 * SPI is connected only when a call needs SQL: the direct path writes an
 * index without it, and a connection costs two memory contexts per row.
 */
static bool spi_connected = false;

static void
need_spi(void)
{
	if (!spi_connected)
	{
		if (SPI_connect() != SPI_OK_CONNECT)
			elog(ERROR, "SPI_connect failed");
		spi_connected = true;
	}
}

/* ----------------------------------------------------------------------
 * Invalidation
 * ----------------------------------------------------------------------
 */

static void
sync_entry_release(SyncEntry *entry)
{
	for (int i = 0; i < entry->nindexes; i++)
	{
		if (entry->indexes[i].insert_plan)
			SPI_freeplan(entry->indexes[i].insert_plan);
		if (entry->indexes[i].delete_plan)
			SPI_freeplan(entry->indexes[i].delete_plan);
		if (entry->indexes[i].counter_plan)
			SPI_freeplan(entry->indexes[i].counter_plan);
		if (entry->indexes[i].bulk_insert_plan)
			SPI_freeplan(entry->indexes[i].bulk_insert_plan);
		if (entry->indexes[i].bulk_counter_plan)
			SPI_freeplan(entry->indexes[i].bulk_counter_plan);
	}
	if (entry->cxt)
		MemoryContextDelete(entry->cxt);
	entry->cxt = NULL;
	entry->nindexes = 0;
	entry->indexes = NULL;
}

/*
 * Relcache callback: mark stale every entry of the relation, or that
 * writes to the relation.  Entries are only marked here and rebuilt at
 * their next use, since the callback may run in the middle of anything.
 */
static void
sync_relcache_callback(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	SyncEntry  *entry;

	if (sync_cache == NULL)
		return;
	hash_seq_init(&status, sync_cache);
	while ((entry = (SyncEntry *) hash_seq_search(&status)) != NULL)
	{
		if (!OidIsValid(relid) || entry->relid == relid)
			entry->valid = false;
		else
		{
			for (int i = 0; i < entry->nindexes; i++)
				if (entry->indexes[i].indexrelid == relid)
					entry->valid = false;
		}
	}
}

void
adjlist_sync_init(void)
{
	CacheRegisterRelcacheCallback(sync_relcache_callback, (Datum) 0);
}

/* ----------------------------------------------------------------------
 * Building the SQL
 * ----------------------------------------------------------------------
 */

static char *
qualified_relname(Oid relid)
{
	char	   *nsp = get_namespace_name(get_rel_namespace(relid));
	char	   *rel = get_rel_name(relid);

	if (nsp == NULL || rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("inverted index table with OID %u does not exist", relid),
				 errhint("Repair the registration with drop_inverted_index().")));
	return quote_qualified_identifier(nsp, rel);
}

/* "OPERATOR(schema.=)" for the equality operator of a type. */
static char *
equality_operator(Oid type)
{
	TypeCacheEntry *tce = lookup_type_cache(type, TYPECACHE_EQ_OPR);
	HeapTuple	tp;
	Form_pg_operator op;
	char	   *result;

	if (!OidIsValid(tce->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an equality operator for type %s",
						format_type_be(type))));
	tp = SearchSysCache1(OPEROID, ObjectIdGetDatum(tce->eq_opr));
	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for operator %u", tce->eq_opr);
	op = (Form_pg_operator) GETSTRUCT(tp);
	result = psprintf("OPERATOR(%s.%s)",
					  quote_identifier(get_namespace_name(op->oprnamespace)),
					  NameStr(op->oprname));
	ReleaseSysCache(tp);
	return result;
}

static void
build_counter_sql(SyncIndex *ix, Oid counterrelid, Oid extnsp, char **colnames)
{
	char	   *qcnt = qualified_relname(counterrelid);
	const char *nsp = quote_identifier(get_namespace_name(extnsp));
	const char *p = quote_identifier(colnames[0]);
	const char *s = quote_identifier(colnames[1]);

	/*
	 * Bulk form: count the transition table's edges per node, edge and
	 * shard, with the shard computed as count_one() does (hash of the other
	 * end modulo the shard count, as an unsigned 32-bit hash).
	 */
	ix->bulk_counter_sql =
		psprintf("INSERT INTO %1$s AS c (node, edge, direction, shard, n) "
				 "SELECT node, edge, direction, shard, pg_catalog.count(*) FROM ("
				 "SELECT n.%3$s AS node, %2$s.key_prefix(n.%4$s, 1)::pg_catalog.text AS edge, "
				 "'o'::pg_catalog.\"char\" AS direction, "
				 "((%2$s.adjkey_hash(n.%4$s)::pg_catalog.int8 OPERATOR(pg_catalog.&) 4294967295) "
				 "OPERATOR(pg_catalog.%%) %5$d)::pg_catalog.int2 AS shard "
				 "FROM %6$s n WHERE n.%3$s IS NOT NULL AND %2$s.key_prefix(n.%4$s, 1) IS NOT NULL "
				 "UNION ALL "
				 "SELECT %2$s.key_tail(n.%4$s, 1), %2$s.key_prefix(n.%4$s, 1)::pg_catalog.text, 'i', "
				 "((%2$s.adjkey_hash(n.%3$s)::pg_catalog.int8 OPERATOR(pg_catalog.&) 4294967295) "
				 "OPERATOR(pg_catalog.%%) %5$d)::pg_catalog.int2 "
				 "FROM %6$s n WHERE n.%3$s IS NOT NULL AND %2$s.key_tail(n.%4$s, 1) IS NOT NULL "
				 "AND %2$s.key_prefix(n.%4$s, 1) IS NOT NULL"
				 ") d GROUP BY 1, 2, 3, 4 "
				 "ON CONFLICT (node, edge, direction, shard) "
				 "DO UPDATE SET n = c.n OPERATOR(pg_catalog.+) EXCLUDED.n",
				 qcnt, nsp, s, p, ix->counter_shards, ADJLIST_NEW_TABLE);

	ix->counter_sql =
		psprintf("INSERT INTO %s AS c (node, edge, direction, shard, n) "
				 "VALUES ($1, $2, $3, $4, $5) "
				 "ON CONFLICT (node, edge, direction, shard) "
				 "DO UPDATE SET n = c.n OPERATOR(pg_catalog.+) EXCLUDED.n",
				 qcnt);
	ix->counter_truncate_sql = psprintf("TRUNCATE %s", qcnt);
}

static void
build_index_sql(SyncIndex *ix, char **colnames, Oid extnsp)
{
	char	   *qidx = qualified_relname(ix->indexrelid);
	StringInfoData buf;

	/* INSERT ... ON CONFLICT: idempotent, and repairs a stale row */
	initStringInfo(&buf);
	appendStringInfo(&buf, "INSERT INTO %s AS t (", qidx);
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
	appendStringInfoString(&buf, ") VALUES (");
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&buf, "%s$%d", i ? ", " : "", i + 1);
	if (!ix->has_unique)
	{
		/*
		 * No unique index to name (a partitioned table over foreign
		 * partitions cannot have one): ON CONFLICT DO NOTHING without a
		 * target still lets a remote primary key make the write idempotent,
		 * and a change of projected columns deletes and re-inserts.
		 */
		appendStringInfoString(&buf, ") ON CONFLICT DO NOTHING");
	}
	else
	{
		appendStringInfoString(&buf, ") ON CONFLICT (");
		for (int i = 0; i < ix->nkeys; i++)
			appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
		if (ix->ncols == ix->nkeys)
			appendStringInfoString(&buf, ") DO NOTHING");
		else
		{
			appendStringInfoString(&buf, ") DO UPDATE SET ");
			for (int i = ix->nkeys; i < ix->ncols; i++)
				appendStringInfo(&buf, "%s%s = EXCLUDED.%s", i > ix->nkeys ? ", " : "",
								 quote_identifier(colnames[i]), quote_identifier(colnames[i]));
		}
	}
	ix->insert_sql = buf.data;

	/*
	 * The same from the statement's transition table, for bulk inserts.  A
	 * plain INSERT: ON CONFLICT costs a speculative insertion per row, and
	 * a conflict can only come from an index row written behind the
	 * trigger's back (drift), which is better reported, as a unique
	 * violation, than silently overwritten.
	 */
	initStringInfo(&buf);
	appendStringInfo(&buf, "INSERT INTO %s AS t (", qidx);
	for (int i = 0; i < ix->ncols; i++)
		appendStringInfo(&buf, "%s%s", i ? ", " : "", quote_identifier(colnames[i]));
	appendStringInfoString(&buf, ") SELECT ");
	for (int i = 0; i < ix->ncols; i++)
	{
		if (i == 0 && ix->write_shards > 0)
			appendStringInfo(&buf, "%s.write_shard_key(n.%s, n.%s, %d)",
							 quote_identifier(get_namespace_name(extnsp)),
							 quote_identifier(colnames[0]), quote_identifier(colnames[1]),
							 ix->write_shards);
		else
			appendStringInfo(&buf, "%sn.%s", i ? ", " : "", quote_identifier(colnames[i]));
	}
	appendStringInfo(&buf, " FROM %s n WHERE ", ADJLIST_NEW_TABLE);
	for (int i = 0; i < ix->nkeys; i++)
		appendStringInfo(&buf, "%sn.%s IS NOT NULL", i ? " AND " : "",
						 quote_identifier(colnames[i]));
	ix->bulk_insert_sql = buf.data;

	initStringInfo(&buf);
	appendStringInfo(&buf, "DELETE FROM %s WHERE ", qidx);
	for (int i = 0; i < ix->nkeys; i++)
		appendStringInfo(&buf, "%s%s %s $%d", i ? " AND " : "",
						 quote_identifier(colnames[i]), equality_operator(ix->types[i]), i + 1);
	ix->delete_sql = buf.data;

	ix->truncate_sql = psprintf("TRUNCATE %s", qidx);
}

/* ----------------------------------------------------------------------
 * The cache
 * ----------------------------------------------------------------------
 */

/*
 * Does the registry have the write_shards column?  Not until ALTER
 * EXTENSION adjlist UPDATE has run: a server with this library and the
 * 0.1 catalog keeps working, without write sharding.
 */
bool
registry_has_write_shards(Oid extnsp)
{
	Oid			reg = get_relname_relid("adjlist_inverted_indexes", extnsp);

	return OidIsValid(reg) && get_attnum(reg, "write_shards") != InvalidAttrNumber;
}

/* Run a read-only query of the registry under the latest snapshot. */
int
registry_query(const char *sql, int nargs, Oid *argtypes, Datum *args)
{
	SPIPlanPtr	plan = SPI_prepare(sql, nargs, argtypes);
	int			ret;

	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed: %s", SPI_result_code_string(SPI_result));
	ret = SPI_execute_snapshot(plan, args, NULL, GetLatestSnapshot(),
							   InvalidSnapshot, true, false, 0);
	SPI_freeplan(plan);
	return ret;
}

/*
 * Read the registry for relid and its ancestors and fill entry.  Runs
 * inside the trigger's SPI connection.
 */
static void
sync_entry_build(SyncEntry *entry, Relation rel, Oid extnsp)
{
	Oid			relid = RelationGetRelid(rel);
	List	   *rels = list_make1_oid(relid);
	Datum	   *relids;
	int			nrels;
	ListCell   *lc;
	char	   *sql;
	Oid			argtypes[1] = {OIDARRAYOID};
	Datum		args[1];
	int			ret;
	MemoryContext oldcxt;

	if (rel->rd_rel->relispartition)
		rels = list_concat(rels, get_partition_ancestors(relid));
	nrels = list_length(rels);
	relids = palloc(sizeof(Datum) * nrels);
	nrels = 0;
	foreach(lc, rels)
		relids[nrels++] = ObjectIdGetDatum(lfirst_oid(lc));
	args[0] = PointerGetDatum(construct_array(relids, nrels, OIDOID, sizeof(Oid),
											  true, TYPALIGN_INT));

	sql = psprintf("SELECT r.indexrel::pg_catalog.oid, c.relowner, r.columns::pg_catalog.text[], r.nkeys, "
				   "r.counterrel::pg_catalog.oid, r.counter_shards, %s "
				   "FROM %s.adjlist_inverted_indexes r "
				   "JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) r.indexrel::pg_catalog.oid "
				   "WHERE r.baserel::pg_catalog.oid OPERATOR(pg_catalog.=) ANY ($1) "
				   "AND r.mode OPERATOR(pg_catalog.=) 'trigger' "
				   "ORDER BY 1",
				   registry_has_write_shards(extnsp) ? "r.write_shards" : "0",
				   quote_identifier(get_namespace_name(extnsp)));
	/*
	 * Read the registry with a fresh snapshot, not the transaction's: in
	 * REPEATABLE READ a transaction snapshot taken before another session
	 * committed create_inverted_index() would not see the new index, and
	 * the trigger would cache that for the session.  Registry changes take
	 * an ACCESS EXCLUSIVE lock on the base table (they reinstall its
	 * triggers), which this writer has already waited for, so the latest
	 * snapshot is the state to follow.
	 */
	ret = registry_query(sql, 1, argtypes, args);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "registry lookup failed: %s", SPI_result_code_string(ret));

	entry->cxt = AllocSetContextCreate(CacheMemoryContext, "adjlist sync entry",
									   ALLOCSET_SMALL_SIZES);
	oldcxt = MemoryContextSwitchTo(entry->cxt);
	entry->nindexes = SPI_processed;
	entry->indexes = palloc0(sizeof(SyncIndex) * Max(entry->nindexes, 1));

	for (uint64 row = 0; row < SPI_processed; row++)
	{
		HeapTuple	tup = SPI_tuptable->vals[row];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		SyncIndex  *ix = &entry->indexes[row];
		bool		isnull;
		ArrayType  *cols;
		Datum	   *coldatums;
		int			ncols;
		char	  **colnames;

		ix->indexrelid = DatumGetObjectId(SPI_getbinval(tup, desc, 1, &isnull));
		ix->owner = DatumGetObjectId(SPI_getbinval(tup, desc, 2, &isnull));
		cols = DatumGetArrayTypeP(SPI_getbinval(tup, desc, 3, &isnull));
		ix->nkeys = DatumGetInt32(SPI_getbinval(tup, desc, 4, &isnull));
		deconstruct_array(cols, TEXTOID, -1, false, TYPALIGN_INT,
						  &coldatums, NULL, &ncols);
		ix->ncols = ncols;
		ix->attnos = palloc(sizeof(AttrNumber) * ncols);
		ix->types = palloc(sizeof(Oid) * ncols);
		ix->typlens = palloc(sizeof(int16) * ncols);
		ix->typbyvals = palloc(sizeof(bool) * ncols);
		colnames = palloc(sizeof(char *) * ncols);
		for (int i = 0; i < ncols; i++)
		{
			colnames[i] = TextDatumGetCString(coldatums[i]);
			ix->attnos[i] = get_attnum(relid, colnames[i]);
			if (ix->attnos[i] == InvalidAttrNumber)
				ereport(ERROR,
						(errcode(ERRCODE_UNDEFINED_COLUMN),
						 errmsg("column \"%s\" of inverted index %s does not exist in table \"%s\"",
								colnames[i], qualified_relname(ix->indexrelid),
								RelationGetRelationName(rel))));
			ix->types[i] = get_atttype(relid, ix->attnos[i]);
			get_typlenbyval(ix->types[i], &ix->typlens[i], &ix->typbyvals[i]);
		}
		ix->has_unique = OidIsValid(index_key_index(ix->indexrelid, colnames, ix->nkeys, NULL));
		ix->write_shards = DatumGetInt32(SPI_getbinval(tup, desc, 7, &isnull));
		build_index_sql(ix, colnames, extnsp);
		direct_write_prepare(ix->indexrelid, colnames, ncols, ix->nkeys, &ix->direct);

		ix->counter_shards = DatumGetInt32(SPI_getbinval(tup, desc, 6, &isnull));
		if (ix->counter_shards > 0)
		{
			Oid			counterrel = DatumGetObjectId(SPI_getbinval(tup, desc, 5, &isnull));

			if (isnull || ix->types[0] != ix->types[1])
				elog(ERROR, "inverted index %u has inconsistent counter settings", ix->indexrelid);
			ix->counterrelid = counterrel;
			build_counter_sql(ix, counterrel, extnsp, colnames);
		}
	}
	MemoryContextSwitchTo(oldcxt);
	entry->valid = true;
}

static SyncEntry *
sync_entry_get(Relation rel, Oid extnsp)
{
	Oid			relid = RelationGetRelid(rel);
	SyncEntry  *entry;
	bool		found;

	if (sync_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(SyncEntry);
		sync_cache = hash_create("adjlist sync cache", 64, &ctl,
								 HASH_ELEM | HASH_BLOBS);
	}
	entry = hash_search(sync_cache, &relid, HASH_ENTER, &found);
	if (!found)
	{
		entry->valid = false;
		entry->cxt = NULL;
		entry->nindexes = 0;
		entry->indexes = NULL;
	}
	if (!entry->valid)
	{
		sync_entry_release(entry);
		need_spi();
		PG_TRY();
		{
			sync_entry_build(entry, rel, extnsp);
		}
		PG_CATCH();
		{
			sync_entry_release(entry);
			entry->valid = false;
			PG_RE_THROW();
		}
		PG_END_TRY();
	}
	return entry;
}

/* ----------------------------------------------------------------------
 * The trigger
 * ----------------------------------------------------------------------
 */

static SPIPlanPtr prepared_with(SPIPlanPtr *plan, const char *sql, int nargs,
								Oid *argtypes);

/* The index row of a tuple; false when the row is not indexed (sparse). */
static bool
index_row(SyncIndex *ix, TupleTableSlot *slot, Datum *values, char *nulls)
{
	for (int i = 0; i < ix->ncols; i++)
	{
		bool		isnull;

		values[i] = slot_getattr(slot, ix->attnos[i], &isnull);
		nulls[i] = isnull ? 'n' : ' ';
		if (isnull && i < ix->nkeys)
			return false;
	}
	return true;
}

/* Store an index row under its write shard's partition key. */
static inline void
shard_row(SyncIndex *ix, Datum *values)
{
	if (ix->write_shards > 0)
		values[0] = write_shard_row_key(values[0], values[1], ix->write_shards);
}

static bool
columns_equal(SyncIndex *ix, int from, int to, Datum *a, char *anulls,
			  Datum *b, char *bnulls)
{
	for (int i = from; i < to; i++)
	{
		if (anulls[i] != bnulls[i])
			return false;
		if (anulls[i] == ' ' &&
			!datum_image_eq(a[i], b[i], ix->typbyvals[i], ix->typlens[i]))
			return false;
	}
	return true;
}

static SPIPlanPtr
prepared(SyncIndex *ix, SPIPlanPtr *plan, const char *sql, int nargs)
{
	return prepared_with(plan, sql, nargs, ix->types);
}

static SPIPlanPtr
prepared_with(SPIPlanPtr *plan, const char *sql, int nargs, Oid *argtypes)
{
	need_spi();
	if (*plan != NULL && !SPI_plan_is_valid(*plan))
	{
		SPI_freeplan(*plan);
		*plan = NULL;
	}
	if (*plan == NULL)
	{
		SPIPlanPtr	p = SPI_prepare(sql, nargs, argtypes);

		if (p == NULL)
			elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql,
				 SPI_result_code_string(SPI_result));
		SPI_keepplan(p);
		*plan = p;
	}
	return *plan;
}

static void
run_as_owner(SyncIndex *ix, SPIPlanPtr plan, Datum *values, char *nulls,
			 int expected)
{
	Oid			save_userid;
	int			save_sec_context;
	int			ret;

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(ix->owner, save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
	ret = SPI_execute_plan(plan, values, nulls, false, 0);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	if (ret != expected)
		elog(ERROR, "inverted index write failed: %s", SPI_result_code_string(ret));
}

/*
 * Insert a statement's transition table into the index (and counters):
 * directly, row by row, when the index table allows it, else with one
 * INSERT ... SELECT.
 */
static void
bulk_insert(SyncIndex *ix, TriggerData *trigdata)
{
	if (ix->direct.ok)
	{
		Tuplestorestate *ts = trigdata->tg_newtable;
		TupleTableSlot *slot = MakeSingleTupleTableSlot(RelationGetDescr(trigdata->tg_relation),
														&TTSOpsMinimalTuple);
		MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "adjlist bulk row",
													 ALLOCSET_DEFAULT_SIZES);
		DirectWriter *w = direct_begin(&ix->direct, ix->indexrelid);
		int			readptr = tuplestore_alloc_read_pointer(ts, EXEC_FLAG_REWIND);
		Datum	   *values = palloc(sizeof(Datum) * ix->ncols);
		char	   *nulls = palloc(ix->ncols);

		tuplestore_select_read_pointer(ts, readptr);
		tuplestore_rescan(ts);
		while (tuplestore_gettupleslot(ts, true, false, slot))
		{
			MemoryContext old = MemoryContextSwitchTo(rowcxt);

			CHECK_FOR_INTERRUPTS();
			if (index_row(ix, slot, values, nulls))
			{
				shard_row(ix, values);
				direct_insert(w, values, nulls);
			}
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
		}
		direct_end(w);
		ExecDropSingleTupleTableSlot(slot);
		MemoryContextDelete(rowcxt);
	}
	if (!ix->direct.ok || ix->counter_shards > 0)
	{
		/* SQL reads the transition table under its name */
		need_spi();
		if (SPI_register_trigger_data(trigdata) != SPI_OK_TD_REGISTER)
			elog(ERROR, "SPI_register_trigger_data failed");
	}
	if (!ix->direct.ok)
		run_as_owner(ix, prepared_with(&ix->bulk_insert_plan, ix->bulk_insert_sql, 0, NULL),
					 NULL, NULL, SPI_OK_INSERT);
	if (ix->counter_shards > 0)
		run_as_owner(ix, prepared_with(&ix->bulk_counter_plan, ix->bulk_counter_sql, 0, NULL),
					 NULL, NULL, SPI_OK_INSERT);
}

/*
 * Empty an index (or counter) table when its base table is truncated.
 * TRUNCATE is the fast way, but it refuses a table this session already
 * has open: "TRUNCATE base, base_inverted" (the statement holds the index
 * table; it is empty by now anyway) or a query still reading it.  Then
 * DELETE does the same job.
 */
static void
truncate_as_owner(SyncIndex *ix, Oid relid, const char *sql)
{
	Oid			save_userid;
	int			save_sec_context;
	int			ret;
	Relation	rel = RelationIdGetRelation(relid);
	bool		in_use = RelationIsValid(rel) && rel->rd_refcnt > 1;

	need_spi();
	if (RelationIsValid(rel))
		RelationClose(rel);
	if (in_use)
		sql = psprintf("DELETE FROM %s", sql + strlen("TRUNCATE "));

	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	SetUserIdAndSecContext(ix->owner, save_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
	ret = SPI_execute(sql, false, 0);
	SetUserIdAndSecContext(save_userid, save_sec_context);
	if (ret != (in_use ? SPI_OK_DELETE : SPI_OK_UTILITY))
		elog(ERROR, "inverted index truncate failed: %s", SPI_result_code_string(ret));
}

/*
 * Degree counters.  An index row with partition key P = 'EDGE#TARGET...'
 * and sort key S counts as an out-edge of S and an in-edge of TARGET...,
 * both under the edge name EDGE (the first part of P, as stored).  Each
 * count is spread over counter_shards rows chosen by a hash of the other
 * end, so that many sessions adding followers of one celebrity update
 * different rows instead of queueing on one row lock.
 */
static void
count_one(SyncIndex *ix, Datum node, const char *edge, int edgelen,
		  char direction, struct varlena *other, int64 delta)
{
	static Oid	argtypes[5];
	Datum		values[5];
	char		nulls[5] = {' ', ' ', ' ', ' ', ' '};
	uint32		h;

	argtypes[0] = ix->types[0];
	argtypes[1] = TEXTOID;
	argtypes[2] = CHAROID;
	argtypes[3] = INT2OID;
	argtypes[4] = INT8OID;
	prepared_with(&ix->counter_plan, ix->counter_sql, 5, argtypes);

	h = DatumGetUInt32(hash_any((const unsigned char *) ADJKEY_DATA(other),
								ADJKEY_LEN(other)));
	values[0] = node;
	values[1] = PointerGetDatum(cstring_to_text_with_len(edge, edgelen));
	values[2] = CharGetDatum(direction);
	values[3] = Int16GetDatum((int16) (h % (uint32) ix->counter_shards));
	values[4] = Int64GetDatum(delta);
	run_as_owner(ix, ix->counter_plan, values, nulls, SPI_OK_INSERT);
}

static void
count_edge(SyncIndex *ix, Datum *v, int64 delta)
{
	struct varlena *p = DatumGetAdjkeyPP(v[0]);
	struct varlena *s = DatumGetAdjkeyPP(v[1]);
	const char *pdata = ADJKEY_DATA(p);
	int			plen = ADJKEY_LEN(p);
	int			edgelen = adjkey_first_part_len(pdata, plen);

	if (edgelen == 0)
		return;					/* no edge name: not counted */
	if (edgelen < 0)
		edgelen = plen;			/* a single part: an out-edge only */
	count_one(ix, PointerGetDatum(s), pdata, edgelen, 'o', p, delta);
	if (edgelen < plen)
	{
		struct varlena *target = adjkey_from_utf8(pdata + edgelen + 1,
												  plen - edgelen - 1);

		count_one(ix, PointerGetDatum(target), pdata, edgelen, 'i', s, delta);
	}
}

Datum
adjlist_sync_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	TriggerEvent event;
	SyncEntry  *entry;
	Oid			extnsp;
	bool		saved_spi;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("adjlist_sync_trigger() was not called by the trigger manager")));
	event = trigdata->tg_event;
	if (!TRIGGER_FIRED_AFTER(event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("adjlist_sync_trigger() must be an AFTER trigger")));
	if (TRIGGER_FIRED_FOR_STATEMENT(event) &&
		!(TRIGGER_FIRED_BY_TRUNCATE(event) ||
		  (TRIGGER_FIRED_BY_INSERT(event) && trigdata->tg_newtable != NULL)))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("adjlist_sync_trigger() fires for each statement only on TRUNCATE, or on INSERT with a transition table")));

	/* the extension's schema, looked up once per statement */
	if (fcinfo->flinfo->fn_extra == NULL)
	{
		Oid		   *nsp = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(Oid));

		*nsp = get_func_namespace(fcinfo->flinfo->fn_oid);
		fcinfo->flinfo->fn_extra = nsp;
	}
	extnsp = *(Oid *) fcinfo->flinfo->fn_extra;

	saved_spi = spi_connected;
	spi_connected = false;
	entry = sync_entry_get(trigdata->tg_relation, extnsp);

	for (int i = 0; i < entry->nindexes; i++)
	{
		SyncIndex  *ix = &entry->indexes[i];
		Datum		oldv[INDEX_MAX_KEYS * 4];
		Datum		newv[INDEX_MAX_KEYS * 4];
		char		oldn[INDEX_MAX_KEYS * 4];
		char		newn[INDEX_MAX_KEYS * 4];
		Datum	   *ov = oldv,
				   *nv = newv;
		char	   *on = oldn,
				   *nn = newn;
		bool		old_indexed = false;
		bool		new_indexed = false;
		bool		rewrite_only = false;	/* same key, new projections */

		if (ix->ncols > lengthof(oldv))
		{
			ov = palloc(sizeof(Datum) * ix->ncols);
			nv = palloc(sizeof(Datum) * ix->ncols);
			on = palloc(ix->ncols);
			nn = palloc(ix->ncols);
		}

		if (TRIGGER_FIRED_FOR_STATEMENT(event) && TRIGGER_FIRED_BY_INSERT(event))
		{
			bulk_insert(ix, trigdata);
			continue;
		}
		if (TRIGGER_FIRED_BY_TRUNCATE(event))
		{
			truncate_as_owner(ix, ix->indexrelid, ix->truncate_sql);
			if (ix->counter_shards > 0)
				truncate_as_owner(ix, ix->counterrelid, ix->counter_truncate_sql);
			continue;
		}
		if (TRIGGER_FIRED_BY_INSERT(event))
			new_indexed = index_row(ix, trigdata->tg_trigslot, nv, nn);
		else if (TRIGGER_FIRED_BY_DELETE(event))
			old_indexed = index_row(ix, trigdata->tg_trigslot, ov, on);
		else
		{
			old_indexed = index_row(ix, trigdata->tg_trigslot, ov, on);
			new_indexed = index_row(ix, trigdata->tg_newslot, nv, nn);
			if (old_indexed && new_indexed &&
				columns_equal(ix, 0, ix->nkeys, ov, on, nv, nn))
			{
				/* same key: rewrite the row only if a projection changed */
				if (columns_equal(ix, ix->nkeys, ix->ncols, ov, on, nv, nn))
					continue;
				/* the upsert below updates it; without one, delete first */
				old_indexed = !ix->has_unique || ix->direct.ok;
				rewrite_only = true;
			}
		}

		/* counters count logical edges: before the keys are sharded */
		if (old_indexed)
		{
			if (ix->counter_shards > 0 && !rewrite_only)
				count_edge(ix, ov, -1);
			shard_row(ix, ov);
			if (ix->direct.ok)
				direct_delete(&ix->direct, ix->indexrelid, ov);
			else
				run_as_owner(ix, prepared(ix, &ix->delete_plan, ix->delete_sql, ix->nkeys),
							 ov, on, SPI_OK_DELETE);
		}
		if (new_indexed)
		{
			if (ix->counter_shards > 0 && !rewrite_only)
				count_edge(ix, nv, +1);
			shard_row(ix, nv);
			if (ix->direct.ok)
				direct_insert_row(&ix->direct, ix->indexrelid, nv, nn);
			else
				run_as_owner(ix, prepared(ix, &ix->insert_plan, ix->insert_sql, ix->ncols),
							 nv, nn, SPI_OK_INSERT);
		}
	}

	if (spi_connected)
		SPI_finish();
	spi_connected = saved_spi;
	return PointerGetDatum(NULL);
}
