/*-------------------------------------------------------------------------
 *
 * base_key.c
 *	  The base key of an inverted index stays unique.
 *
 * An inverted index holds one row for each row of its base table, found by
 * the base key (the base table's primary key, or the columns base_key =>
 * names), which is part of the index key.  Two base rows of one key would
 * share one index row: the index would count one where the table has two,
 * deleting either would lose the row of the other, and a statement writing
 * both would meet its own index row (an executor error).  So the key must
 * be unique in the base table, and it is PostgreSQL that keeps it so:
 *
 *	- create_inverted_index() and rebuild_inverted_index() require a
 *	  primary key or unique index of the base table whose columns are all
 *	  base key columns (some of them serve: a key unique on fewer columns is
 *	  unique on more), valid, without a predicate or expression (42P10, as
 *	  ON CONFLICT refuses a key no unique index matches).  Rows with a NULL
 *	  in the key, which a unique index lets repeat, are no edge and have no
 *	  index row.  The index table's key is deferrable when the only such
 *	  key of the base table is (index_create.c copies its deferrability).
 *	- DDL that leaves no such key (ALTER TABLE ... DROP CONSTRAINT, DROP
 *	  INDEX, a DROP ... CASCADE that takes the index with it), or replaces
 *	  it by a deferrable one in one ALTER TABLE while the index table's key
 *	  is immediate, is refused at its sql_drop event (index_guard_drop.c), which
 *	  fires once the whole statement is done (a key dropped and added again
 *	  in one ALTER TABLE passes).  DROP INDEX is also checked before it
 *	  starts: DROP INDEX CONCURRENTLY commits before sql_drop, and an error
 *	  then would leave the index invalid, enforcing nothing.
 *
 * A base table with foreign members (a foreign table, or a partitioned
 * table over foreign partitions) can have no unique index of its own: the
 * servers behind it keep its key unique, as the README's sharding recipe
 * requires.  It is exempt.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/index.h"
#include "catalog/pg_class.h"
#include "catalog/pg_constraint.h"
#include "catalog/pg_index.h"
#include "nodes/pg_list.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "base_key.h"
#include "compat.h"
#include "index_admin.h"
#include "registry.h"

/* Is base a foreign table, or a partitioned table with foreign partitions? */
static bool
unique_elsewhere(Oid base)
{
	ListCell   *lc;

	foreach(lc, admin_members_of(base))
		if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE)
			return true;
	return false;
}

/*
 * Does unique index tp of relid make cols unique: valid, no predicate, and
 * each of its key columns a plain column among cols?
 */
static bool
covers(HeapTuple tp, Oid relid, char *const *cols, int n)
{
	Form_pg_index f = (Form_pg_index) GETSTRUCT(tp);

	if (!f->indisunique || !f->indisvalid || !heap_attisnull(tp, Anum_pg_index_indpred, NULL))
		return false;
	for (int i = 0; i < f->indnkeyatts; i++)
	{
		AttrNumber	a = f->indkey.values[i];

		if (a <= 0 || !admin_name_in((char **) cols, n, get_attname(relid, a, false)))
			return false;
	}
	return true;
}

/* Is index indexid deferrable, and initially deferred? */
static void
index_deferrability(Oid indexid, bool immediate, bool *deferrable, bool *deferred)
{
	Oid			con = get_index_constraint(indexid);
	HeapTuple	ct;

	*deferrable = !immediate;
	*deferred = false;
	if (immediate || !OidIsValid(con))
		return;
	ct = SearchSysCache1(CONSTROID, ObjectIdGetDatum(con));
	if (HeapTupleIsValid(ct))
	{
		*deferred = ((Form_pg_constraint) GETSTRUCT(ct))->condeferred;
		ReleaseSysCache(ct);
	}
}

/*
 * The unique index of relid that makes cols unique, an immediate one when
 * there is one, or InvalidOid; with its deferrability.  The indexes in
 * without do not count (they are being dropped).
 */
static Oid
find_key(Oid relid, char *const *cols, int n, List *without, bool *deferrable, bool *deferred)
{
	Relation	rel = table_open(relid, AccessShareLock);
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;
	Oid			found = InvalidOid;
	bool		immediate = false;

	foreach(lc, indexes)
	{
		HeapTuple	tp = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));

		if (!HeapTupleIsValid(tp))
			continue;
		if (covers(tp, relid, cols, n) && (!OidIsValid(found) || !immediate) &&
			!list_member_oid(without, lfirst_oid(lc)))
		{
			found = lfirst_oid(lc);
			immediate = ((Form_pg_index) GETSTRUCT(tp))->indimmediate;
		}
		ReleaseSysCache(tp);
	}
	list_free(indexes);
	/* (locked to the end of the transaction, as any read) */
	table_close(rel, NoLock);
	*deferrable = *deferred = false;
	if (OidIsValid(found))
		index_deferrability(found, immediate, deferrable, deferred);
	return found;
}

Oid
base_key_index(Oid relid, char *const *cols, int n, bool *deferrable, bool *deferred)
{
	return find_key(relid, cols, n, NIL, deferrable, deferred);
}

/*
 * create_inverted_index() and rebuild_inverted_index(): base must have a
 * unique key on (some of) cols, whose deferrability is returned (false
 * where the table is exempt).
 */
void
base_key_require(Oid base, char *const *cols, int n, bool *deferrable, bool *deferred)
{
	*deferrable = *deferred = false;
	if (unique_elsewhere(base))
		return;
	if (!OidIsValid(base_key_index(base, cols, n, deferrable, deferred)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_COLUMN_REFERENCE),
				 errmsg("there is no primary key or unique index of table \"%s\" on the base key (%s)",
						get_rel_name(base), admin_name_list((char **) cols, n)),
				 errdetail("An inverted index holds one row for each base key: two rows of the table with one key would share an index row."),
				 errhint("Give the table PRIMARY KEY (%s), or a unique index on those columns or some of them, without WHERE.",
						 admin_name_list((char **) cols, n))));
}

static void
refuse_drop(const IndexDef *ix)
{
	ereport(ERROR,
			(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
			 errmsg("inverted index \"%s\" requires a primary key or unique index of table \"%s\" on (%s)",
					get_rel_name(ix->indexrel), get_rel_name(ix->baserel),
					admin_name_list(ix->base_key, ix->nbasekey)),
			 errdetail("The index maps each row of the table by these columns, its base key, which must stay unique; this statement would leave no such key."),
			 errhint("Drop the index with drop_inverted_index() first, or create another primary key or unique index on those columns before dropping this one.")));
}

/* After DDL: the unique key of the base of ix is still there, as it was. */
static void
check_index(const IndexDef *ix)
{
	bool		deferrable;
	bool		deferred;
	bool		ideferrable;
	const char *cols = admin_name_list(ix->base_key, ix->nbasekey);

	if (!OidIsValid(base_key_index(ix->baserel, ix->base_key, ix->nbasekey,
								   &deferrable, &deferred)))
		refuse_drop(ix);
	if (deferrable &&
		OidIsValid(base_key_index(ix->indexrel, ix->colnames, ix->nkeys, &ideferrable, &deferred)) &&
		!ideferrable)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("the unique key on (%s) of table \"%s\" would be deferrable, and the key of inverted index \"%s\" is not",
						cols, get_rel_name(ix->baserel), get_rel_name(ix->indexrel)),
				 errdetail("Until commit the table could hold a key twice, which the index could not."),
				 errhint("Drop the index with drop_inverted_index() first, and create it again after the change.")));
}

/*
 * After DDL that dropped an index in schema nsp: every base table of that
 * schema with an inverted index still has the unique key its indexes need.
 *
 * Only the base tables this transaction holds in ACCESS EXCLUSIVE mode:
 * dropping a table's index (index_drop()) or the constraint that owns it
 * (RemoveConstraintById()) takes that lock on the table first, whatever
 * statement cascades to it, so a table not so locked has lost no index.
 * Opening the others (find_key()) would make a DROP ... CASCADE or DROP
 * OWNED of one role wait behind a lock that another role holds on a table
 * the statement never touches, as core's own drop never does.
 */
void
base_key_check_schema(Oid nsp)
{
	Oid		   *indexes;
	Oid		   *bases;
	Oid		   *counters;
	int			n = registry_all(&indexes, &bases, &counters);

	for (int i = 0; i < n; i++)
	{
		IndexDef   *ix;

		if (get_rel_namespace(bases[i]) != nsp ||
			!adjlist_rel_locked_by_me(bases[i], AccessExclusiveLock) ||
			unique_elsewhere(bases[i]))
			continue;
		ix = registry_index(indexes[i], false);
		if (ix != NULL && ix->baserel == bases[i] && ix->nbasekey > 0)
			check_index(ix);
	}
}

/* After ALTER TABLE of relid: if it is a base table, it still has the keys. */
void
base_key_check_base(Oid relid)
{
	TableIndexes *ti = registry_lookup_unchecked(relid);

	if (ti->baserel != relid || unique_elsewhere(relid))
		return;
	for (int i = 0; i < ti->nindexes; i++)
		if (ti->indexes[i].nbasekey > 0)
			check_index(&ti->indexes[i]);
}

/*
 * Before DROP INDEX (also CONCURRENTLY, which commits before sql_drop):
 * base, whose indexes dropping lists, keeps a unique key on the base key
 * of each of its inverted indexes.
 */
void
base_key_check_drop(Oid base, List *dropping)
{
	TableIndexes *ti = registry_lookup_unchecked(base);
	bool		deferrable;
	bool		deferred;

	if (ti->baserel != base || unique_elsewhere(base))
		return;
	for (int i = 0; i < ti->nindexes; i++)
		if (ti->indexes[i].nbasekey > 0 &&
			!OidIsValid(find_key(base, ti->indexes[i].base_key, ti->indexes[i].nbasekey,
								 dropping, &deferrable, &deferred)))
			refuse_drop(&ti->indexes[i]);
}
