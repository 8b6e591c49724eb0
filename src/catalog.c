/*-------------------------------------------------------------------------
 *
 * catalog.c
 *	  Where adjlist's own objects are, and the catalog helpers every module
 *	  shares.
 *
 * The extension's schema, the adjkey type, its btree family and the
 * registry table are looked up once per session from the catalogs (never
 * through search_path) and kept until a relcache invalidation touches the
 * registry table, which is what dropping and re-creating the extension
 * sends, or a change of a schema (ALTER SCHEMA ... RENAME of the
 * extension's own) touches the name it holds.  Nothing here is built from
 * user input: quoted names come from the catalogs, and operators are
 * spelled OPERATOR(schema.op), so the SQL the other modules generate means
 * the same thing whatever search_path the caller has.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/stratnum.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/pg_am_d.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "adjlist.h"
#include "catalog.h"
#include "dynamo_io.h"
#include "graph.h"
#include "index_sync_check.h"
#include "index_write.h"
#include "plan_cache.h"
#include "query_table.h"
#include "registry.h"
#include "scan_key.h"
#include "table_options.h"

/*
 * The catalog lives in static storage, rebuilt in place: callers keep
 * pointers to it (and to its schema name) across calls, and a rebuild
 * inside a nested call must not pull memory from under them.
 */
static AdjlistCatalog cat_storage;
static AdjlistCatalog *cat = NULL;
static bool stale = false;

/*
 * A reset of the whole relcache, or an invalidation of the registry table
 * (which ALTER EXTENSION adjlist UPDATE sends), has the catalog looked up
 * again at its next use; until then it stays in place: the other modules'
 * callbacks compare invalidated relations with the registry's OID, which
 * must stay known to them (this one runs first).  A dropped extension is
 * noticed at the next use (its registry table is gone).
 *
 * It is the one relcache callback of the library: core has room for only
 * ten in a backend (MAX_RELCACHE_CALLBACKS), and Citus alone takes several,
 * so every cache of adjlist is told from here rather than registering its
 * own.  (Syscache callbacks on schemas and operator classes do the same
 * for the caches that hold qualified names or ordering operators, and one
 * on functions for the originals of twins.)
 */
static void
catalog_relcache_callback(Datum arg, Oid relid)
{
	if (cat != NULL && (!OidIsValid(relid) || relid == cat->registry))
		stale = true;
	registry_relcache_invalidate(relid);
	table_options_relcache_invalidate(relid);
	adjlist_api_relcache_invalidate(relid);
	graph_meta_relcache_invalidate(relid);
	query_table_relcache_invalidate(relid);
	index_write_relcache_invalidate(relid);
	sync_check_relcache_invalidate(relid);
	api_guard_relcache_invalidate(relid);
}

/*
 * A change of a function: the originals of twins, and the comparison
 * functions of the direct scans' keys (scan_key.c), are looked up again.
 */
static void
catalog_proc_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	graph_columns_proc_invalidate();
	adjlist_scan_key_invalidate();
}

/*
 * A change of an operator class (the ordering operators query() uses):
 * the caches that hold them are built again.
 */
static void
catalog_opclass_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	graph_meta_relcache_invalidate(InvalidOid);
	query_table_relcache_invalidate(InvalidOid);
}

/*
 * A change of any schema's row: a rename changes the qualified names that
 * generated SQL holds, the extension's own schema among them (ALTER SCHEMA
 * ... RENAME of it is allowed; ALTER EXTENSION ... SET SCHEMA is refused).
 * Whichever schema it was, everything built from a schema name is built
 * again at its next use: the catalog (its quoted schema name), the caches
 * of statements and the saved plans keyed by their text, which would
 * otherwise keep naming the old schema and fail (3F000) when re-planned.
 * The hash value is not compared with the extension schema's: user
 * schemas' names are in the cached SQL too, and schemas change rarely.
 *
 * Nothing is read here (an invalidation may arrive in the middle of a
 * catalog lookup); the catalog is only marked stale, even while it is
 * being built, so that a rename committed meanwhile is not lost.  A rename
 * in a transaction that rolls back is undone the same way: at abort, core
 * replays the transaction's own invalidations in this backend.
 */
static void
catalog_namespace_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	stale = true;
	graph_meta_relcache_invalidate(InvalidOid);
	query_table_relcache_invalidate(InvalidOid);
	adjlist_api_relcache_invalidate(InvalidOid);
	adjlist_plan_cache_invalidate();
}

Oid
adjlist_registry_oid_if_loaded(void)
{
	return cat ? cat->registry : InvalidOid;
}

Oid
adjlist_options_oid_if_loaded(void)
{
	return cat ? cat->options : InvalidOid;
}

void
adjlist_catalog_init(void)
{
	CacheRegisterRelcacheCallback(catalog_relcache_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, catalog_namespace_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(CLAOID, catalog_opclass_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(PROCOID, catalog_proc_callback, (Datum) 0);
}

/*
 * The schema of an extension (core exports this only from 16 on) and
 * whether its SQL objects are those of 0.1 or 0.2: a database where the
 * library was replaced but ALTER EXTENSION adjlist UPDATE has not run yet.
 */
static Oid
extension_schema(Oid extoid, bool *legacy)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			result = InvalidOid;

	*legacy = false;
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber,
				F_OIDEQ, ObjectIdGetDatum(extoid));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
	{
		bool		isnull;
		Datum		v = heap_getattr(tup, Anum_pg_extension_extversion,
									 RelationGetDescr(rel), &isnull);

		result = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
		if (!isnull)
		{
			char	   *version = TextDatumGetCString(v);

			*legacy = (strcmp(version, "0.1") == 0 || strcmp(version, "0.2") == 0);
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return result;
}

static RegProcedure
family_proc(Oid family, Oid type, int strategy)
{
	Oid			op = get_opfamily_member(family, type, type, strategy);

	if (!OidIsValid(op))
		elog(ERROR, "adjkey btree family lacks strategy %d", strategy);
	return get_opcode(op);
}

const AdjlistCatalog *
adjlist_catalog(void)
{
	AdjlistCatalog *c;
	Oid			ext;
	Oid			opclass;

	if (cat != NULL && !stale && SearchSysCacheExists1(RELOID, ObjectIdGetDatum(cat->registry)))
		return cat;
	cat = NULL;
	stale = false;
	ext = get_extension_oid("adjlist", true);
	if (!OidIsValid(ext))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("extension \"adjlist\" is not installed in this database")));

	c = &cat_storage;
	c->extension = ext;
	c->namespace = extension_schema(ext, &c->legacy);
	strlcpy(c->nspname, quote_identifier(get_namespace_name(c->namespace)), sizeof(c->nspname));
	c->keytype = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
								 CStringGetDatum("adjkey"),
								 ObjectIdGetDatum(c->namespace));
	if (!OidIsValid(c->keytype))
		elog(ERROR, "type adjkey not found in the schema of extension adjlist");
	c->keyarraytype = get_array_type(c->keytype);
	opclass = GetDefaultOpClass(c->keytype, BTREE_AM_OID);
	if (!OidIsValid(opclass))
		elog(ERROR, "type adjkey has no default btree operator class");
	c->key_family = get_opclass_family(opclass);
	c->eq_op = get_opfamily_member(c->key_family, c->keytype, c->keytype,
								   BTEqualStrategyNumber);
	c->eq_proc = family_proc(c->key_family, c->keytype, BTEqualStrategyNumber);
	c->lt_proc = family_proc(c->key_family, c->keytype, BTLessStrategyNumber);
	c->le_proc = family_proc(c->key_family, c->keytype, BTLessEqualStrategyNumber);
	c->gt_proc = family_proc(c->key_family, c->keytype, BTGreaterStrategyNumber);
	c->ge_proc = family_proc(c->key_family, c->keytype, BTGreaterEqualStrategyNumber);
	c->registry = get_relname_relid("adjlist_inverted_indexes", c->namespace);
	if (!OidIsValid(c->registry))
		elog(ERROR, "the registry of extension adjlist is missing");
	{
		HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(c->registry));

		if (!HeapTupleIsValid(tp))
			elog(ERROR, "cache lookup failed for relation %u", c->registry);
		c->registry_owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
		ReleaseSysCache(tp);
	}
	c->registry_has_write_shards =
		(get_attnum(c->registry, "write_shards") != InvalidAttrNumber);
	c->options = get_relname_relid("adjlist_table_options", c->namespace);
	cat = c;
	return c;
}

AdjlistDirection
adjlist_parse_direction(text *t, bool both_ok)
{
	char	   *s = text_to_cstring(t);

	if (strcmp(s, "out") == 0)
		return ADJLIST_OUT;
	if (strcmp(s, "in") == 0)
		return ADJLIST_IN;
	if (both_ok && strcmp(s, "both") == 0)
		return ADJLIST_BOTH;
	if (both_ok)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("direction must be \"out\", \"in\" or \"both\", not \"%s\"", s)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("direction must be \"out\" or \"in\", not \"%s\"", s)));
	return ADJLIST_OUT;			/* keep the compiler quiet */
}

Oid
adjlist_index_where(Relation rel, bool (*match) (HeapTuple indextup, const void *arg),
					const void *arg)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			result = InvalidOid;

	foreach(lc, indexes)
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(tp))
			continue;
		if (match(tp, arg))
			result = lfirst_oid(lc);
		ReleaseSysCache(tp);
		if (OidIsValid(result))
			break;
	}
	list_free(indexes);
	return result;
}

static bool
index_is_primary(HeapTuple indextup, const void *arg)
{
	return ((Form_pg_index) GETSTRUCT(indextup))->indisprimary;
}

Oid
adjlist_primary_key_index(Relation rel)
{
	return adjlist_index_where(rel, index_is_primary, NULL);
}

Oid
adjlist_rel_owner(Oid relid)
{
	HeapTuple	tp = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Oid			owner;

	if (!HeapTupleIsValid(tp))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	owner = ((Form_pg_class) GETSTRUCT(tp))->relowner;
	ReleaseSysCache(tp);
	return owner;
}

char *
adjlist_qualified_name(Oid relid)
{
	char	   *rel = get_rel_name(relid);
	char	   *nsp;

	if (rel == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	nsp = get_namespace_name(get_rel_namespace(relid));
	if (nsp == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation \"%s\" has no schema", rel)));
	return quote_qualified_identifier(nsp, rel);
}

char *
adjlist_type_sql(Oid type)
{
	return format_type_extended(type, -1, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
}

char *
adjlist_operator_sql(Oid opno)
{
	HeapTuple	tp = SearchSysCache1(OPEROID, ObjectIdGetDatum(opno));
	Form_pg_operator op;
	char	   *result;

	if (!HeapTupleIsValid(tp))
		elog(ERROR, "cache lookup failed for operator %u", opno);
	op = (Form_pg_operator) GETSTRUCT(tp);
	result = psprintf("OPERATOR(%s.%s)",
					  quote_identifier(get_namespace_name(op->oprnamespace)),
					  NameStr(op->oprname));
	ReleaseSysCache(tp);
	return result;
}

Oid
adjlist_equality_operator(Oid type)
{
	TypeCacheEntry *tce = lookup_type_cache(type, TYPECACHE_EQ_OPR);

	if (!OidIsValid(tce->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an equality operator for type %s",
						format_type_be(type))));
	return tce->eq_opr;
}

char *
adjlist_equality_sql(Oid type)
{
	return adjlist_operator_sql(adjlist_equality_operator(type));
}

void
adjlist_become(Oid roleid, AdjlistRoleSwitch *save)
{
	adjlist_become_role(roleid, save);
	/* nothing the caller put on its search_path may run as roleid */
	adjlist_become_pin_path(save);
}

void
adjlist_become_role(Oid roleid, AdjlistRoleSwitch *save)
{
	GetUserIdAndSecContext(&save->saved_userid, &save->saved_sec_context);
	SetUserIdAndSecContext(roleid, save->saved_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS);
	save->guc_nest = -1;
}

void
adjlist_become_restricted(Oid roleid, AdjlistRoleSwitch *save)
{
	GetUserIdAndSecContext(&save->saved_userid, &save->saved_sec_context);
	SetUserIdAndSecContext(roleid, save->saved_sec_context |
						   SECURITY_LOCAL_USERID_CHANGE | SECURITY_NOFORCE_RLS |
						   SECURITY_RESTRICTED_OPERATION);
	save->guc_nest = -1;
	adjlist_become_pin_path(save);
}

void
adjlist_become_pin_path(AdjlistRoleSwitch *save)
{
	if (save->guc_nest >= 0)
		return;
	save->guc_nest = NewGUCNestLevel();
	(void) set_config_option("search_path", "pg_catalog, pg_temp", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

void
adjlist_unbecome(const AdjlistRoleSwitch *save)
{
	/*
	 * Every setting changed since the pin is undone, search_path and any
	 * other the owner's code (a predicate's function) SET: nothing it set
	 * outlives the switch and reaches the caller, as after core's REINDEX.
	 */
	if (save->guc_nest >= 0)
		AtEOXact_GUC(false, save->guc_nest);
	SetUserIdAndSecContext(save->saved_userid, save->saved_sec_context);
}

/*
 * Is the table one that Citus distributes (or keeps as a reference or
 * Citus-local table)?  Asked of Citus's own metadata, pg_dist_partition,
 * when Citus is installed: the coordinator's table is then only a shell.
 */
bool
adjlist_is_citus_table(Oid relid)
{
	return adjlist_citus_placement_group(relid, NULL, NULL);
}

/*
 * The row of relid in pg_dist_partition: whether there is one, and its
 * partmethod ('h' hash, 'n' reference or Citus-local, 'a' append, 'r'
 * range) and colocationid, read by their names (either may be NULL).
 */
bool
adjlist_citus_placement_group(Oid relid, char *method, uint32 *colocationid)
{
	Oid			dist = get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	bool		found;

	if (!OidIsValid(dist))
		return false;
	rel = table_open(dist, AccessShareLock);
	/* logicalrelid is the first column */
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	tup = systable_getnext(scan);
	found = HeapTupleIsValid(tup);
	if (found && (method != NULL || colocationid != NULL))
	{
		TupleDesc	desc = RelationGetDescr(rel);

		for (int i = 0; i < desc->natts; i++)
		{
			const char *name = NameStr(TupleDescAttr(desc, i)->attname);
			bool		isnull;
			Datum		v;

			if (strcmp(name, "partmethod") != 0 && strcmp(name, "colocationid") != 0)
				continue;
			v = heap_getattr(tup, i + 1, desc, &isnull);
			if (name[0] == 'p' && method != NULL)
				*method = isnull ? '\0' : DatumGetChar(v);
			else if (name[0] == 'c' && colocationid != NULL)
				*colocationid = isnull ? 0 : DatumGetUInt32(v);
		}
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return found;
}

/*
 * Refuse, saying what happened, a table Citus has moved away from its
 * inverted indexes.  Making a table a Citus local table (a foreign key to
 * a reference table, citus_add_local_table_to_metadata()) renames it to
 * its shard, relname_shardid, and puts an empty shell table of its own in
 * its place: adjlist's registry, which names tables by OID, then names the
 * shard, and the shell has no index.  Called where relid is found to have
 * no inverted index; does nothing unless relid is a Citus table one of
 * whose shards on this node is a registered base, index or counter table.
 */
void
adjlist_citus_moved_check(Oid relid)
{
	Oid			dist = get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE);
	char	   *relname = get_rel_name(relid);
	Oid			nsp = get_rel_namespace(relid);
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			moved = InvalidOid;

	if (!OidIsValid(dist) || relname == NULL || !adjlist_is_citus_table(relid))
		return;
	rel = table_open(dist, AccessShareLock);
	/* logicalrelid is the first column, shardid (bigint) the second */
	ScanKeyInit(&key, 1, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relid));
	scan = systable_beginscan(rel, InvalidOid, false, NULL, 1, &key);
	while (!OidIsValid(moved) && HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		bool		isnull;
		Datum		shardid = heap_getattr(tup, 2, RelationGetDescr(rel), &isnull);
		Oid			shard;

		if (isnull)
			continue;
		shard = get_relname_relid(psprintf("%s_" INT64_FORMAT, relname, DatumGetInt64(shardid)), nsp);
		if (OidIsValid(shard) && registry_involves(shard))
			moved = shard;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (OidIsValid(moved))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("Citus moved table \"%s\" into its shard \"%s\", which adjlist's inverted indexes still name",
						relname, get_rel_name(moved)),
				 errdetail("Citus replaces a table it makes a Citus local table (a foreign key to a reference table, or citus_add_local_table_to_metadata()) by a shell, and the table's rows, indexes and triggers stay with the shard."),
				 errhint("Drop its inverted indexes with drop_inverted_index() and create them again with create_inverted_index(), which builds them from the table's rows.")));
}

/*
 * The same, from the shard: if relid is named like a Citus shard
 * (relname_shardid) of a table in its schema, check that table.
 */
void
adjlist_citus_shard_check(Oid relid)
{
	char	   *name = get_rel_name(relid);
	char	   *us = name ? strrchr(name, '_') : NULL;
	Oid			logical;

	if (us == NULL || us[1] == '\0' || strspn(us + 1, "0123456789") != strlen(us + 1) ||
		!OidIsValid(get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE)))
		return;
	logical = get_relname_relid(pnstrdup(name, us - name), get_rel_namespace(relid));
	if (OidIsValid(logical))
		adjlist_citus_moved_check(logical);
}

AdjlistStorage
adjlist_storage(Oid relid)
{
	char		relkind = get_rel_relkind(relid);

	if (adjlist_is_citus_table(relid))
		return STORAGE_DISTRIBUTED;
	if (relkind == RELKIND_PARTITIONED_TABLE)
		return STORAGE_PARTITIONED;
	if (relkind == RELKIND_FOREIGN_TABLE)
		return STORAGE_FOREIGN;
	return STORAGE_LOCAL;
}
