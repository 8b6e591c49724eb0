/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Everything that differs between PostgreSQL server versions, in one place.
 *
 * adjlist is tested on PostgreSQL 15 and 18 and written for 16 and 17 as
 * well.  Code elsewhere uses only the macros and inline functions below,
 * never a PG_VERSION_NUM test of its own, so a new major version means
 * editing this file alone.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_COMPAT_H
#define ADJLIST_COMPAT_H

#include "postgres.h"
#include "fmgr.h"

#if PG_VERSION_NUM < 150000
#error "adjlist requires PostgreSQL 15 or later"
#endif

/* The varlena macros moved to their own header in 16. */
#if PG_VERSION_NUM >= 160000
#include "varatt.h"
#endif

#include "access/attmap.h"
#include "access/genam.h"
#include "catalog/pg_class.h"
#include "utils/acl.h"
#include "utils/rel.h"
#include "utils/relcache.h"

/*
 * Soft errors in input functions.  PostgreSQL 16 added an error-saving
 * context (fcinfo->context) so that pg_input_is_valid() and COPY ... ON_ERROR
 * can ask an input function to report a bad value without throwing.  On
 * older servers ADJLIST_INPUT_ERROR throws, exactly like ereport(ERROR).
 *
 * Usage: ADJLIST_INPUT_ERROR(escontext, return_value, errcode(...), errmsg(...))
 */
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#define ADJLIST_ESCONTEXT(fcinfo)	((fcinfo)->context)
#define ADJLIST_INPUT_ERROR(escontext, retval, ...) \
	ereturn((escontext), (retval), __VA_ARGS__)
#else
#define ADJLIST_ESCONTEXT(fcinfo)	((Node *) NULL)
#define ADJLIST_INPUT_ERROR(escontext, retval, ...) \
	do { \
		(void) (escontext); \
		ereport(ERROR, __VA_ARGS__); \
		return (retval); \
	} while (0)
#endif

/*
 * EvalPlanQualInit() takes the result relations from 16 on (15 has them in
 * EvalPlanQualInitExt() only from a minor release on): none here, as in
 * the logical replication worker.
 */
#if PG_VERSION_NUM >= 160000
#define ADJLIST_EPQ_INIT(epqstate, estate) \
	EvalPlanQualInit((epqstate), (estate), NULL, NIL, -1, NIL)
#else
#define ADJLIST_EPQ_INIT(epqstate, estate) \
	EvalPlanQualInit((epqstate), (estate), NULL, NIL, -1)
#endif

/* EXPLAIN's property functions moved to their own header in 18. */
#if PG_VERSION_NUM >= 180000
#include "commands/explain_format.h"
#else
#include "commands/explain.h"
#endif

/* index_beginscan() gained an instrumentation argument in 18. */
static inline IndexScanDesc
adjlist_index_beginscan(Relation heap, Relation index, Snapshot snapshot,
						int nkeys, int norderbys)
{
#if PG_VERSION_NUM >= 180000
	return index_beginscan(heap, index, snapshot, NULL, nkeys, norderbys);
#else
	return index_beginscan(heap, index, snapshot, nkeys, norderbys);
#endif
}

/*
 * A btree scan's keys that only positioned it, dropped once it has
 * returned a tuple.  A key the scan could only fail going the other way
 * (btree marks it required for the opposite direction: sk >= prefix, or
 * pk >= first, in a forward scan) holds for every tuple after one that
 * passed it; PostgreSQL 15 and 16 still test it on each tuple, through
 * fmgr and a deforming of the tuple (17 skips keys a page has already
 * satisfied: _bt_checkkeys' precheck).  The keys are the scan's
 * preprocessed ones, built again by the next index_rescan(); a scan with
 * array keys, row comparisons or NULL tests keeps them all.
 */
#if PG_VERSION_NUM < 170000
#include "access/nbtree.h"
#include "catalog/pg_am.h"
#endif

static inline void
adjlist_btree_drop_positioning_keys(IndexScanDesc scan, ScanDirection dir)
{
#if PG_VERSION_NUM < 170000
	BTScanOpaque so = (BTScanOpaque) scan->opaque;
	int			opposite = ScanDirectionIsForward(dir) ? SK_BT_REQBKWD : SK_BT_REQFWD;
	int			m = 0;

	if (scan->indexRelation->rd_rel->relam != BTREE_AM_OID || !so->qual_ok ||
		so->numArrayKeys != 0)
		return;
	for (int i = 0; i < so->numberOfKeys; i++)
		if (so->keyData[i].sk_flags & (SK_ROW_HEADER | SK_ISNULL | SK_SEARCHNULL |
									   SK_SEARCHNOTNULL | SK_SEARCHARRAY))
			return;
	for (int i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		key = &so->keyData[i];

		if ((key->sk_flags & (SK_BT_REQFWD | SK_BT_REQBKWD)) == opposite)
			continue;
		if (m != i)
			so->keyData[m] = *key;
		m++;
	}
	so->numberOfKeys = m;
#else
	(void) scan;
	(void) dir;
#endif
}

/*
 * The equality key on a btree's first column (pk = node) dropped from a
 * scan's preprocessed keys, for a caller that tests it in C on each tuple
 * from then on and stops the scan at the first tuple that fails it: a
 * long scan then reads its tuples without a call through fmgr each.  The
 * scan can no longer stop at a page's high key, so it may read one page
 * past its last tuple.  True when dropped; 17 and later test such a key
 * on a page's tuples only when the page does not satisfy it as a whole,
 * and keep it.
 */
static inline bool
adjlist_btree_drop_first_equal_key(IndexScanDesc scan)
{
#if PG_VERSION_NUM < 170000
	BTScanOpaque so = (BTScanOpaque) scan->opaque;
	int			m = 0;
	bool		dropped = false;

	if (scan->indexRelation->rd_rel->relam != BTREE_AM_OID || !so->qual_ok ||
		so->numArrayKeys != 0)
		return false;
	for (int i = 0; i < so->numberOfKeys; i++)
	{
		ScanKey		key = &so->keyData[i];

		if (!dropped && key->sk_attno == 1 && key->sk_strategy == BTEqualStrategyNumber &&
			(key->sk_flags & (SK_ROW_HEADER | SK_ISNULL | SK_SEARCHNULL |
							  SK_SEARCHNOTNULL | SK_SEARCHARRAY)) == 0)
		{
			dropped = true;
			continue;
		}
		if (m != i)
			so->keyData[m] = *key;
		m++;
	}
	so->numberOfKeys = m;
	return dropped;
#else
	(void) scan;
	return false;
#endif
}

/*
 * The heap TID of the item d rows ahead (in the scan's direction) of the
 * one a btree scan returned last, among the items of the leaf page it is
 * on (BTScanOpaque's currPos, the same fields from 15 to 18), or NULL past
 * the page's last one.  For prefetching only (heap_prefetch.c): the items
 * are the scan's own copy, valid until it steps to the next page.
 */
#include "access/nbtree.h"
static inline ItemPointer
adjlist_btree_tid_ahead(IndexScanDesc scan, ScanDirection dir, int d)
{
	BTScanOpaque so = (BTScanOpaque) scan->opaque;
	int			i;

	if (!BTScanPosIsValid(so->currPos))
		return NULL;
	i = so->currPos.itemIndex + (ScanDirectionIsForward(dir) ? d : -d);
	if (i < so->currPos.firstItem || i > so->currPos.lastItem)
		return NULL;
	return &so->currPos.items[i].heapTid;
}

/* Ownership checks became generic in 16. */
static inline bool
adjlist_rel_ownercheck(Oid relid, Oid roleid)
{
#if PG_VERSION_NUM >= 160000
	return object_ownercheck(RelationRelationId, relid, roleid);
#else
	return pg_class_ownercheck(relid, roleid);
#endif
}

/* Ownership checks became generic in 16: a schema's. */
#include "catalog/pg_namespace.h"
static inline bool
adjlist_namespace_ownercheck(Oid nspid, Oid roleid)
{
#if PG_VERSION_NUM >= 160000
	return object_ownercheck(NamespaceRelationId, nspid, roleid);
#else
	return pg_namespace_ownercheck(nspid, roleid);
#endif
}

/*
 * Does this backend hold a lock of mode lockmode (exactly) on relation
 * relid of this database?  LockHeldByMe() gained "orstronger" in 17.
 */
#include "miscadmin.h"
#include "storage/lock.h"
static inline bool
adjlist_rel_locked_by_me(Oid relid, LOCKMODE lockmode)
{
	LOCKTAG		tag;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
#if PG_VERSION_NUM >= 170000
	return LockHeldByMe(&tag, lockmode, false);
#else
	return LockHeldByMe(&tag, lockmode);
#endif
}

/* Privilege checks on functions became generic in 16. */
#include "catalog/pg_proc.h"
static inline AclResult
adjlist_proc_aclcheck(Oid procid, Oid roleid, AclMode mode)
{
#if PG_VERSION_NUM >= 160000
	return object_aclcheck(ProcedureRelationId, procid, roleid, mode);
#else
	return pg_proc_aclcheck(procid, roleid, mode);
#endif
}

/*
 * Check the privileges a query's range table entry asks for (of its
 * relation, column privileges included) as roleid, as the executor checks
 * them (42501 when one is missing), unless the entry names its own checking
 * role (a view's).  From 16 on they are in the query's rteperminfos.
 */
#include "executor/executor.h"
#include "nodes/parsenodes.h"
#if PG_VERSION_NUM >= 160000
#include "parser/parse_relation.h"
#endif
static inline void
adjlist_check_rte_as(Query *query, RangeTblEntry *rte, Oid roleid)
{
	RangeTblEntry *r = copyObject(rte);
#if PG_VERSION_NUM >= 160000
	RTEPermissionInfo *perm;

	if (rte->perminfoindex == 0)
		return;
	perm = copyObject(getRTEPermissionInfo(query->rteperminfos, rte));
	if (!OidIsValid(perm->checkAsUser))
		perm->checkAsUser = roleid;
	r->perminfoindex = 1;
	(void) ExecCheckPermissions(list_make1(r), list_make1(perm), true);
#else
	(void) query;
	if (!OidIsValid(r->checkAsUser))
		r->checkAsUser = roleid;
	(void) ExecCheckRTPerms(list_make1(r), true);
#endif
}

/* ExecInsertIndexTuples() gained "onlySummarizing" in 16. */
#if PG_VERSION_NUM >= 160000
#define ADJLIST_INSERT_INDEX_TUPLES(rri, slot, estate, noDupErr, specConflict, arbiters) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, (noDupErr), (specConflict), (arbiters), false)
#else
#define ADJLIST_INSERT_INDEX_TUPLES(rri, slot, estate, noDupErr, specConflict, arbiters) \
	ExecInsertIndexTuples((rri), (slot), (estate), false, (noDupErr), (specConflict), (arbiters))
#endif

/*
 * ALTER TABLE ... ALTER COLUMN ... SET EXPRESSION (17), which recomputes a
 * generated column's values without firing a row trigger.
 */
#if PG_VERSION_NUM >= 170000
#define ADJLIST_AT_SET_EXPRESSION(subtype) ((subtype) == AT_SetExpression)
#else
#define ADJLIST_AT_SET_EXPRESSION(subtype) false
#endif

/* The local id of the current top-level transaction (moved in 17). */
#include "storage/proc.h"
static inline LocalTransactionId
adjlist_local_xid(void)
{
#if PG_VERSION_NUM >= 170000
	return MyProc->vxid.lxid;
#else
	return MyProc->lxid;
#endif
}

/*
 * MERGE into a partitioned table from 16 on puts the last row the statement
 * inserted into a partition into the UPDATE's NEW transition table in place
 * of the updated row, unless the partition has a BEFORE INSERT row trigger:
 * a base table then gets a do-nothing one (index_admin.c).
 */
#if PG_VERSION_NUM >= 160000
#define ADJLIST_MERGE_NEEDS_ROUTE_TRIGGER true
#else
#define ADJLIST_MERGE_NEEDS_ROUTE_TRIGGER false
#endif

/*
 * build_attrmap_by_name() gained a missing_ok argument in 16: never here
 * (a missing column is an error).
 */
static inline AttrMap *
adjlist_attrmap_by_name(TupleDesc indesc, TupleDesc outdesc)
{
#if PG_VERSION_NUM >= 160000
	return build_attrmap_by_name(indesc, outdesc, false);
#else
	return build_attrmap_by_name(indesc, outdesc);
#endif
}

/*
 * Virtual generated columns (18): PostgreSQL stores no value for them and
 * computes one only where a query reads the column, never in a trigger's
 * transition tables or a stored tuple.  Before 18 every generated column
 * is stored.
 */
#include "catalog/pg_attribute.h"
#if PG_VERSION_NUM >= 180000
#define ADJLIST_ATTGENERATED_VIRTUAL(attgenerated) \
	((attgenerated) == ATTRIBUTE_GENERATED_VIRTUAL)
#else
#define ADJLIST_ATTGENERATED_VIRTUAL(attgenerated) ((void) (attgenerated), false)
#endif

/*
 * Enable a trigger of rel (by name) for fires_when, as ALTER TABLE ONLY
 * ... ENABLE [ALWAYS] TRIGGER does, without ALTER TABLE's checks: the
 * caller checked what it must.  16 added the parent trigger and the
 * recursion to clones to the arguments (15's minor releases kept the old
 * signature beside new names); neither matters for a statement trigger.
 */
#include "commands/trigger.h"
#if PG_VERSION_NUM >= 160000
#define adjlist_enable_trigger(rel, tgname, fires_when) \
	EnableDisableTrigger((rel), (tgname), InvalidOid, (fires_when), false, false, \
						 ShareRowExclusiveLock)
#else
#define adjlist_enable_trigger(rel, tgname, fires_when) \
	EnableDisableTrigger((rel), (tgname), (fires_when), false, ShareRowExclusiveLock)
#endif

/*
 * ExecSimpleRelationUpdate() hands index maintenance an "update" flag whose
 * meaning did not change; nothing to wrap.  table_tuple_update() and
 * friends are used only through the executor helpers.
 */

/*
 * Was rel created, or given a new relfilenode, in this transaction (at any
 * subtransaction level)?  TRUNCATE then empties it in place, keeping its
 * relfilenode.  The field was renamed in 16 (relfilenode -> relfilelocator).
 */
#if PG_VERSION_NUM >= 160000
#define ADJLIST_REL_NEW_IN_XACT(rel) \
	((rel)->rd_createSubid != InvalidSubTransactionId || \
	 (rel)->rd_newRelfilelocatorSubid != InvalidSubTransactionId)
#else
#define ADJLIST_REL_NEW_IN_XACT(rel) \
	((rel)->rd_createSubid != InvalidSubTransactionId || \
	 (rel)->rd_newRelfilenodeSubid != InvalidSubTransactionId)
#endif

/*
 * The body of TRUNCATE after its checks, on opened relations.  16 added
 * run_as_table_owner (whether the tables' triggers run as their owners):
 * false, as a TRUNCATE statement runs them.  (The caller includes
 * commands/tablecmds.h.)
 */
#if PG_VERSION_NUM >= 160000
#define adjlist_truncate_rels(rels, relids, logged) \
	ExecuteTruncateGuts((rels), (relids), (logged), DROP_RESTRICT, false, false)
#else
#define adjlist_truncate_rels(rels, relids, logged) \
	ExecuteTruncateGuts((rels), (relids), (logged), DROP_RESTRICT, false)
#endif

#endif							/* ADJLIST_COMPAT_H */
