/*-------------------------------------------------------------------------
 *
 * table_options.c
 *	  What a table says about its items, beyond its keys: the column that
 *	  holds an item's attributes (its payload, "data" unless set), and the
 *	  column that says when an item expires (DynamoDB's time to live).
 *
 *	  set_payload_column(tbl, column)	the item's jsonb attributes
 *	  set_ttl(tbl, column)				the expiry: reads skip expired items
 *	  sweep_expired(tbl, lim)			delete up to lim expired items (and
 *										their index rows)
 *
 * The options are rows of adjlist_table_options, written only here (as the
 * extension's owner, after checking that the caller owns the table) and by
 * pg_restore, which dumps them as extension configuration; their columns
 * are kept by name, so DDL that renames or drops one is refused while it
 * is set (index_guard.c asks table_options_check()).  Each session caches
 * them per table, invalidated with the table's relcache entry and the
 * options table's.
 *
 * An item has expired when its expiry is at or before the time its
 * transaction started (now(), so that every read of one statement, and of
 * one REPEATABLE READ transaction, agrees): a timestamp with or without
 * time zone, a date, or a number of seconds since 1970 (DynamoDB's
 * format: integer, bigint, numeric or double precision).  A NULL expiry
 * never expires.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"

#include "adjlist.h"
#include "catalog.h"
#include "dynamo_io.h"
#include "index_write.h"
#include "registry.h"
#include "table_options.h"

PG_FUNCTION_INFO_V1(adjlist_set_payload_column);
PG_FUNCTION_INFO_V1(adjlist_set_ttl);
PG_FUNCTION_INFO_V1(adjlist_sweep_expired);

typedef struct OptionsEntry
{
	Oid			relid;			/* hash key */
	bool		valid;
	char		payload[NAMEDATALEN];	/* "" when not set */
	char		ttl[NAMEDATALEN];	/* "" when not set */
} OptionsEntry;

static HTAB *options_cache = NULL;

void
table_options_relcache_invalidate(Oid relid)
{
	HASH_SEQ_STATUS status;
	OptionsEntry *e;

	if (options_cache == NULL)
		return;
	hash_seq_init(&status, options_cache);
	while ((e = (OptionsEntry *) hash_seq_search(&status)) != NULL)
		if (!OidIsValid(relid) || e->relid == relid || relid == adjlist_options_oid_if_loaded())
			e->valid = false;
}

/* The stored options of relid (as set, unchecked), read once per session. */
static OptionsEntry *
options_entry(Oid relid)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	OptionsEntry *e;
	bool		found;

	if (options_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(OptionsEntry);
		options_cache = hash_create("adjlist table options", 64, &ctl, HASH_ELEM | HASH_BLOBS);
	}
	e = (OptionsEntry *) hash_search(options_cache, &relid, HASH_ENTER, &found);
	if (found && e->valid)
		return e;
	e->payload[0] = e->ttl[0] = '\0';
	e->valid = true;
	if (OidIsValid(cat->options))
	{
		Relation	rel = table_open(cat->options, AccessShareLock);
		TupleDesc	desc = RelationGetDescr(rel);
		AttrNumber	atbl = get_attnum(cat->options, "tbl");
		AttrNumber	apay = get_attnum(cat->options, "payload");
		AttrNumber	attl = get_attnum(cat->options, "ttl");
		ScanKeyData key;
		SysScanDesc scan;
		HeapTuple	tup;

		ScanKeyInit(&key, atbl, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
		scan = systable_beginscan(rel, InvalidOid, false, SnapshotSelf, 1, &key);
		if (HeapTupleIsValid(tup = systable_getnext(scan)))
		{
			bool		isnull;
			Datum		v;

			v = heap_getattr(tup, apay, desc, &isnull);
			if (!isnull)
				strlcpy(e->payload, NameStr(*DatumGetName(v)), NAMEDATALEN);
			v = heap_getattr(tup, attl, desc, &isnull);
			if (!isnull)
				strlcpy(e->ttl, NameStr(*DatumGetName(v)), NAMEDATALEN);
		}
		systable_endscan(scan);
		table_close(rel, AccessShareLock);
	}
	return e;
}

/* A type an expiry may have. */
static bool
ttl_type_ok(Oid type)
{
	switch (type)
	{
		case TIMESTAMPTZOID:
		case TIMESTAMPOID:
		case DATEOID:
		case INT4OID:
		case INT8OID:
		case NUMERICOID:
		case FLOAT8OID:
			return true;
		default:
			return false;
	}
}

TableOptions *
table_options(Oid relid)
{
	OptionsEntry *e = options_entry(relid);
	TableOptions *o = palloc0(sizeof(TableOptions));

	o->payload = pstrdup(e->payload[0] ? e->payload : "data");
	o->payload_set = e->payload[0] != '\0';
	o->payload_attno = get_attnum(relid, o->payload);
	if (o->payload_attno <= 0 || get_atttype(relid, o->payload_attno) != JSONBOID)
		o->payload_attno = InvalidAttrNumber;
	if (e->ttl[0])
	{
		o->ttl = pstrdup(e->ttl);
		o->ttl_attno = get_attnum(relid, o->ttl);
		if (o->ttl_attno <= 0)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("the expiry column \"%s\" of table \"%s\" does not exist", o->ttl,
							get_rel_name(relid)),
					 errhint("Set it again with set_ttl().")));
		o->ttl_type = get_atttype(relid, o->ttl_attno);
	}
	return o;
}

void
table_options_check(Oid relid)
{
	OptionsEntry *e;

	if (!OidIsValid(adjlist_catalog()->options))
		return;
	e = options_entry(relid);
	if (e->payload[0] && get_attnum(relid, e->payload) <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("column \"%s\" of table \"%s\" is its payload column", e->payload,
						get_rel_name(relid)),
				 errhint("Set another first: SELECT set_payload_column(...).")));
	if (e->ttl[0] && (get_attnum(relid, e->ttl) <= 0 ||
					  !ttl_type_ok(get_atttype(relid, get_attnum(relid, e->ttl)))))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("column \"%s\" of table \"%s\" is its expiry column", e->ttl,
						get_rel_name(relid)),
				 errhint("Turn time to live off first: SELECT set_ttl(%s, NULL).",
						 quote_literal_cstr(adjlist_qualified_name(relid)))));
}

/* ----------------------------------------------------------------------
 * Expiry
 * ----------------------------------------------------------------------
 */

char *
table_options_live_sql(const TableOptions *o, const char *alias)
{
	const char *now;
	char	   *col;

	if (o->ttl == NULL)
		return "true";
	col = alias ? psprintf("%s.%s", alias, quote_identifier(o->ttl)) :
		pstrdup(quote_identifier(o->ttl));
	switch (o->ttl_type)
	{
		case TIMESTAMPTZOID:
			now = "pg_catalog.now()";
			break;
		case TIMESTAMPOID:
			now = "pg_catalog.now()::pg_catalog.timestamp";
			break;
		case DATEOID:
			now = "pg_catalog.now()::pg_catalog.date";
			break;
		default:
			now = "pg_catalog.date_part('epoch', pg_catalog.now())";
			break;
	}
	return psprintf("(%s IS NULL OR %s OPERATOR(pg_catalog.>) %s)", col, col, now);
}

bool
table_options_expired(const TableOptions *o, Datum v, bool isnull)
{
	TimestampTz now = GetCurrentTransactionStartTimestamp();
	double		epoch;

	if (o->ttl == NULL || isnull)
		return false;
	switch (o->ttl_type)
	{
		case TIMESTAMPTZOID:
			return DatumGetTimestampTz(v) <= now;
		case TIMESTAMPOID:
			return DatumGetTimestamp(v) <=
				DatumGetTimestamp(DirectFunctionCall1(timestamptz_timestamp,
													  TimestampTzGetDatum(now)));
		case DATEOID:
			return DatumGetDateADT(v) <=
				DatumGetDateADT(DirectFunctionCall1(timestamptz_date, TimestampTzGetDatum(now)));
		default:
			break;
	}
	epoch = (double) (now - SetEpochTimestamp()) / USECS_PER_SEC;
	switch (o->ttl_type)
	{
		case INT4OID:
			return (double) DatumGetInt32(v) <= epoch;
		case INT8OID:
			return (double) DatumGetInt64(v) <= epoch;
		case FLOAT8OID:
			return DatumGetFloat8(v) <= epoch;
		case NUMERICOID:
			return DatumGetFloat8(DirectFunctionCall1(numeric_float8, v)) <= epoch;
		default:
			return false;
	}
}

/* ----------------------------------------------------------------------
 * Setting them
 * ----------------------------------------------------------------------
 */

/* Write one option of relid as the options table's owner. */
static void
set_option(Oid relid, const char *option, const char *value, bool exists)
{
	const AdjlistCatalog *cat = adjlist_catalog();
	Oid			types[2] = {OIDOID, NAMEOID};
	Datum		values[2];
	char		nulls[2] = {' ', ' '};
	AdjlistRoleSwitch role;
	HeapTuple	tp;
	Oid			owner;

	if (!OidIsValid(cat->options))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table options need the SQL objects of adjlist 0.3"),
				 errhint("Run ALTER EXTENSION adjlist UPDATE.")));
	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(cat->options));
	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for relation %u", cat->options);
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);
	values[0] = ObjectIdGetDatum(relid);
	values[1] = value ? DirectFunctionCall1(namein, CStringGetDatum(value)) : (Datum) 0;
	if (value == NULL)
		nulls[1] = 'n';
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	adjlist_become(owner, &role);
	if (value != NULL)
	{
		if (SPI_execute_with_args(psprintf("INSERT INTO %s.adjlist_table_options AS o (tbl, %s) "
										   "VALUES ($1::pg_catalog.regclass, $2) "
										   "ON CONFLICT (tbl) DO UPDATE SET %s = EXCLUDED.%s",
										   cat->nspname, option, option, option),
								  2, types, values, nulls, false, 0) != SPI_OK_INSERT)
			elog(ERROR, "could not set the options of table %u", relid);
	}
	else
	{
		if (SPI_execute_with_args(psprintf("UPDATE %s.adjlist_table_options SET %s = NULL "
										   "WHERE tbl OPERATOR(pg_catalog.=) $1::pg_catalog.regclass",
										   cat->nspname, option),
								  1, types, values, NULL, false, 0) != SPI_OK_UPDATE)
			elog(ERROR, "could not set the options of table %u", relid);
		/* a row with nothing set is no row */
		SPI_execute_with_args(psprintf("DELETE FROM %s.adjlist_table_options "
									   "WHERE tbl OPERATOR(pg_catalog.=) $1::pg_catalog.regclass "
									   "AND payload IS NULL AND ttl IS NULL", cat->nspname),
							  1, types, values, NULL, false, 0);
	}
	adjlist_unbecome(&role);
	SPI_finish();
	CacheInvalidateRelcacheByRelid(cat->options);
	if (exists)
		CacheInvalidateRelcacheByRelid(relid);
}

void
table_options_forget(Oid relid)
{
	OptionsEntry *e;

	if (!OidIsValid(adjlist_catalog()->options))
		return;
	e = options_entry(relid);
	if (e->payload[0] || e->ttl[0])
	{
		set_option(relid, "payload", NULL, false);
		set_option(relid, "ttl", NULL, false);
	}
}

/*
 * The table argument, for its owner: a plain, partitioned or foreign
 * table, not a temporary one.  A session's end drops its temporary tables
 * without an event trigger, which would leave their options behind (with
 * an OID that a later table may take, and in every dump), as the options
 * of another session's temporary table would be left.
 */
static Oid
owned_table(FunctionCallInfo fcinfo)
{
	Oid			relid;
	char		kind;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table must not be null")));
	relid = PG_GETARG_OID(0);
	kind = get_rel_relkind(relid);
	if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE &&
		kind != RELKIND_FOREIGN_TABLE)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is not a table", get_rel_name(relid) ? get_rel_name(relid) : "?")));
	if (!adjlist_rel_ownercheck(relid, GetUserId()))
		aclcheck_error(ACLCHECK_NOT_OWNER, OBJECT_TABLE, get_rel_name(relid));
	if (get_rel_persistence(relid) == RELPERSISTENCE_TEMP)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("\"%s\" is a temporary table", get_rel_name(relid)),
				 errdetail("Temporary tables cannot have table options.")));
	if (OidIsValid(registry_base_of_index(relid)))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is an inverted index or counter table", get_rel_name(relid)),
				 errhint("Set the options of its base table.")));
	if (get_rel_relispartition(relid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("\"%s\" is a partition", get_rel_name(relid)),
				 errhint("Set the options of the partitioned table.")));
	LockRelationOid(relid, ShareUpdateExclusiveLock);
	return relid;
}

/* A column argument: its name, checked to be one of relid's; NULL for none. */
static char *
column_arg(FunctionCallInfo fcinfo, Oid relid, Oid *type)
{
	char	   *name;
	AttrNumber	a;

	if (PG_ARGISNULL(1))
		return NULL;
	name = pstrdup(NameStr(*PG_GETARG_NAME(1)));
	a = get_attnum(relid, name);
	if (a <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist", name, get_rel_name(relid))));
	*type = get_atttype(relid, a);
	return name;
}

/*
 * set_payload_column(tbl regclass, col name) RETURNS void: the jsonb
 * column that holds an item's attributes (NULL: "data").
 */
Datum
adjlist_set_payload_column(PG_FUNCTION_ARGS)
{
	Oid			relid = owned_table(fcinfo);
	Oid			type = InvalidOid;
	char	   *col = column_arg(fcinfo, relid, &type);

	if (col != NULL && type != JSONBOID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the payload column of a table must be of type jsonb"),
				 errdetail("Column \"%s\" is %s.", col, format_type_be(type))));
	set_option(relid, "payload", col, true);
	PG_RETURN_VOID();
}

/*
 * set_ttl(tbl regclass, col name) RETURNS void: the column that says when
 * an item expires (NULL: items never expire).
 */
Datum
adjlist_set_ttl(PG_FUNCTION_ARGS)
{
	Oid			relid = owned_table(fcinfo);
	Oid			type = InvalidOid;
	char	   *col = column_arg(fcinfo, relid, &type);

	if (col != NULL && !ttl_type_ok(type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("the expiry column of a table must be a timestamp, a date or a number of seconds since 1970"),
				 errdetail("Column \"%s\" is %s.", col, format_type_be(type))));
	/* reads through an inverted index see the expiry there */
	if (col != NULL)
	{
		TableIndexes *ti = registry_lookup_unchecked(relid);

		for (int i = 0; ti->baserel == relid && i < ti->nindexes; i++)
			if (get_attnum(ti->indexes[i].indexrel, col) <= 0)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("inverted index \"%s\" does not project column \"%s\"",
								get_rel_name(ti->indexes[i].indexrel), col),
						 errdetail("Reads through an inverted index skip expired items by the expiry the index holds."),
						 errhint("Drop the index, set the expiry column, and create the index again: it then projects the column.")));
	}
	set_option(relid, "ttl", col, true);
	PG_RETURN_VOID();
}

/* ----------------------------------------------------------------------
 * sweep_expired
 * ----------------------------------------------------------------------
 */

/*
 * sweep_expired(tbl regclass, lim integer DEFAULT 1000) RETURNS bigint:
 * delete up to lim expired items, as the caller, with their index rows
 * (the triggers', or where none runs the write API's: adjlist_api_sweep());
 * returns how many.  Rows another transaction holds are left for the next
 * call, so that a sweep never waits for writers (and a scheduled sweep
 * keeps going); on a Citus reference table, whose writes Citus
 * serializes, it waits.
 */
Datum
adjlist_sweep_expired(PG_FUNCTION_ARGS)
{
	Oid			relid;
	int32		lim;
	TableOptions *o;
	char	   *qrel;
	int64		n;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("the table and the limit must not be null")));
	relid = PG_GETARG_OID(0);
	lim = PG_GETARG_INT32(1);
	if (lim < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("the limit must be at least 1, not %d", lim)));
	o = table_options(relid);
	if (o->ttl == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" has no expiry column", get_rel_name(relid)),
				 errhint("Name one with set_ttl().")));
	/*
	 * No trigger keeps the indexes of a Citus table, nor of a local one whose
	 * indexes are all in API mode in a database with Citus: the write API
	 * deletes the items and their index rows there.
	 */
	if (adjlist_is_citus_table(relid) || adjlist_api_unkept(relid))
		PG_RETURN_INT64(adjlist_api_sweep(relid, lim));
	qrel = adjlist_qualified_name(relid);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute(psprintf("DELETE FROM %1$s t WHERE (t.tableoid, t.ctid) OPERATOR(pg_catalog.=) ANY "
							 "(SELECT x.tableoid, x.ctid FROM %1$s x WHERE NOT %2$s "
							 "LIMIT %3$d FOR UPDATE SKIP LOCKED)",
							 qrel, table_options_live_sql(o, "x"), lim),
					false, 0) != SPI_OK_DELETE)
		elog(ERROR, "sweep failed");
	n = (int64) SPI_processed;
	SPI_finish();
	PG_RETURN_INT64(n);
}
