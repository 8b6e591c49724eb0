/*-------------------------------------------------------------------------
 *
 * writer_info.c
 *	  What the index writer (index_write.c) needs to know of a table it
 *	  writes, from the catalogs, cached per table: its kind, whether Citus
 *	  distributes it, its key index, replica identity and whether writing a
 *	  row of it can run code; and the rule that picks the executor path or
 *	  the SQL path from those facts.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_trigger.h"
#include "commands/trigger.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "catalog.h"
#include "writer_info.h"

static HTAB *writer_infos = NULL;

/* Forget what is cached of relid (of every table: InvalidOid). */
void
index_write_relcache_invalidate(Oid relid)
{
	HASH_SEQ_STATUS status;
	WriterInfo *wi;

	if (writer_infos == NULL)
		return;
	if (OidIsValid(relid))
	{
		wi = hash_search(writer_infos, &relid, HASH_FIND, NULL);
		if (wi != NULL)
			wi->valid = false;
		return;
	}
	hash_seq_init(&status, writer_infos);
	while ((wi = hash_seq_search(&status)) != NULL)
		wi->valid = false;
}

/*
 * The unique index of rel on exactly the key columns (in any order), valid,
 * ready, without predicate or expressions; InvalidOid if none.  Sets
 * wi->is_pk and wi->deferrable.
 */
static Oid
key_index(Relation rel, const AttrNumber *keyattnos, int nkeys, WriterInfo *wi)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			result = InvalidOid;

	wi->is_pk = false;
	wi->deferrable = false;
	foreach(lc, indexes)
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index idx;
		bool		match;

		if (!HeapTupleIsValid(tp))
			continue;
		idx = (Form_pg_index) GETSTRUCT(tp);
		match = idx->indisunique && idx->indisvalid && idx->indisready &&
			idx->indnkeyatts == nkeys &&
			heap_attisnull(tp, Anum_pg_index_indexprs, NULL) &&
			heap_attisnull(tp, Anum_pg_index_indpred, NULL);
		for (int i = 0; match && i < nkeys; i++)
		{
			bool		found = false;

			for (int j = 0; j < nkeys; j++)
				if (idx->indkey.values[j] == keyattnos[i])
					found = true;
			match = found;
		}
		if (match && (!OidIsValid(result) || idx->indisprimary))
		{
			result = idx->indexrelid;
			wi->is_pk = idx->indisprimary;
			wi->deferrable = !idx->indimmediate;
		}
		ReleaseSysCache(tp);
	}
	list_free(indexes);
	return result;
}

/*
 * The scan keys of a look-up by wi->keyindex (WriterInfo), made as
 * RelationFindReplTupleByIndex() makes them at every call: each key
 * column's btree equality operator of its operator class, and the index's
 * collation.  Looked up once per table here, they cost a single-row DELETE
 * a dozen catalog cache look-ups and two function look-ups less.  The
 * function lookups live in CacheMemoryContext, with the entry.
 */
static void
key_scan_keys(WriterInfo *wi)
{
	HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(wi->keyindex));
	Form_pg_index idx;
	oidvector  *indclass;
	oidvector  *indcoll;
	bool		isnull;
	MemoryContext old;
	int			n;

	wi->scan_nkeys = 0;
	if (!HeapTupleIsValid(tp))
		return;
	idx = (Form_pg_index) GETSTRUCT(tp);
	indclass = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, tp,
															 Anum_pg_index_indclass, &isnull));
	indcoll = (oidvector *) DatumGetPointer(SysCacheGetAttr(INDEXRELID, tp,
															Anum_pg_index_indcollation, &isnull));
	n = idx->indnkeyatts;
	old = MemoryContextSwitchTo(CacheMemoryContext);
	for (int i = 0; i < n; i++)
	{
		Oid			optype = get_opclass_input_type(indclass->values[i]);
		Oid			op = get_opfamily_member(get_opclass_family(indclass->values[i]),
											 optype, optype, BTEqualStrategyNumber);

		if (!OidIsValid(op))
			n = 0;				/* (core's look-up raises the error) */
		else
			ScanKeyEntryInitialize(&wi->scan_keys[i], 0, i + 1, BTEqualStrategyNumber,
								   InvalidOid, indcoll->values[i], get_opcode(op),
								   (Datum) 0);
		wi->scan_attnos[i] = idx->indkey.values[i];
	}
	MemoryContextSwitchTo(old);
	ReleaseSysCache(tp);
	wi->scan_nkeys = n;
}

/* Can writing a row of rel run code other than core's? (WriterInfo) */
static bool
rel_runs_code(Relation rel)
{
	TriggerDesc *td = rel->trigdesc;
	TupleConstr *constr = rel->rd_att->constr;
	List	   *indexes;
	ListCell   *lc;
	bool		result = false;

	/* statement triggers do not fire for the writer's rows */
	for (int i = 0; td != NULL && i < td->numtriggers; i++)
		if (TRIGGER_FOR_ROW(td->triggers[i].tgtype))
			return true;
	if (constr != NULL && (constr->num_check > 0 || constr->has_generated_stored))
		return true;
	indexes = RelationGetIndexList(rel);
	foreach(lc, indexes)
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(tp))
			continue;
		if (!heap_attisnull(tp, Anum_pg_index_indexprs, NULL) ||
			!heap_attisnull(tp, Anum_pg_index_indpred, NULL))
			result = true;
		ReleaseSysCache(tp);
	}
	list_free(indexes);
	return result;
}

/*
 * The cached facts of rel (locked by the caller, so that invalidations up to
 * the lock are in), with keyindex found for the given key columns.
 */
const WriterInfo *
writer_info(Relation rel, const AttrNumber *keyattnos, int nkeys)
{
	Oid			relid = RelationGetRelid(rel);
	WriterInfo *wi;
	bool		found;

	if (writer_infos == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(WriterInfo);
		ctl.hcxt = CacheMemoryContext;
		writer_infos = hash_create("adjlist writer infos", 64, &ctl,
								   HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	}
	wi = hash_search(writer_infos, &relid, HASH_ENTER, &found);
	if (found && wi->valid &&
		(nkeys > INDEX_MAX_KEYS ||
		 (wi->nkeys == nkeys &&
		  memcmp(wi->keyattnos, keyattnos, sizeof(AttrNumber) * nkeys) == 0)))
		return wi;
	wi->valid = true;
	wi->relkind = rel->rd_rel->relkind;
	wi->replindex = RelationGetReplicaIndex(rel);
	wi->runs_code = rel_runs_code(rel);
	wi->keyindex = InvalidOid;
	wi->is_pk = false;
	wi->deferrable = false;
	wi->nkeys = 0;
	wi->scan_nkeys = 0;
	if (nkeys <= INDEX_MAX_KEYS)
	{
		wi->nkeys = nkeys;
		memcpy(wi->keyattnos, keyattnos, sizeof(AttrNumber) * nkeys);
		if (wi->relkind != RELKIND_FOREIGN_TABLE)
			wi->keyindex = key_index(rel, keyattnos, nkeys, wi);
		if (OidIsValid(wi->keyindex))
			key_scan_keys(wi);
	}
	/* last: it opens Citus's catalog, which takes in invalidations */
	wi->citus = adjlist_is_citus_table(relid);
	return wi;
}

/*
 * Does a writer of a table with these facts, in this mode, take the
 * executor path?  The executor helpers find a row by the primary key (or
 * compare whole rows when a replica identity index names another index);
 * appending needs no key index at all (a new index table gets its primary
 * key after the backfill, as CREATE TABLE AS + ADD PRIMARY KEY would).  A
 * deferrable key makes the rows a multiset, written through SQL.
 */
bool
writer_direct(const WriterInfo *wi, int nkeys, WriteMode mode)
{
	if (wi->relkind != RELKIND_RELATION || nkeys > INDEX_MAX_KEYS || wi->citus ||
		wi->deferrable || mode == WRITE_IF_ABSENT)
		return false;
	return mode == WRITE_APPEND ||
		(OidIsValid(wi->keyindex) && wi->is_pk &&
		 (!OidIsValid(wi->replindex) || wi->replindex == wi->keyindex));
}
