/*-------------------------------------------------------------------------
 *
 * index_persistence.c
 *	  An inverted index is as durable as its base table: UNLOGGED tables.
 *
 * After a crash PostgreSQL empties every unlogged table and keeps every
 * logged one.  An index table (or counter table) of another persistence
 * than its base table would then hold rows of base rows that are gone, or
 * lack rows of base rows that stayed.  So the index and counter tables
 * always have the base table's persistence (index_persistence()):
 *
 *	- create_inverted_index() creates them so (index_create.c); a table
 *	  adopted with existing => true must already be so;
 *	- ALTER TABLE base SET LOGGED / SET UNLOGGED: the index and counter
 *	  tables follow, in the same statement (the event trigger's end,
 *	  index_guard.c), as ALTER TABLE base OWNER TO does;
 *	- SET LOGGED / SET UNLOGGED of an index or counter table alone (or of
 *	  a partition of one) to another persistence than the base table's:
 *	  refused (55000, naming the index).
 *
 * A partitioned base table holds no rows of its own: its partitions do,
 * each with its own persistence (a partitioned table's own is not theirs),
 * and one index table holds the rows of all of them, so no single
 * persistence would survive a crash with them.  Its indexes are logged,
 * and its partitions must be: an unlogged partition (at any depth: created
 * UNLOGGED as a partition, attached, or set UNLOGGED) is refused, and so is
 * create_inverted_index() on a partitioned table that has one.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "executor/spi.h"
#include "utils/lsyscache.h"

#include "adjlist.h"
#include "catalog.h"
#include "index_admin.h"
#include "index_persistence.h"
#include "index_write.h"
#include "registry.h"

static const char *
persistence_word(char p)
{
	return p == RELPERSISTENCE_UNLOGGED ? "unlogged" : "logged";
}

char
index_persistence(Oid base)
{
	if (get_rel_relkind(base) == RELKIND_PARTITIONED_TABLE)
		return RELPERSISTENCE_PERMANENT;
	return get_rel_persistence(base);
}

/* The first unlogged table that relid is or has as a partition, if any. */
static Oid
unlogged_member(Oid relid)
{
	List	   *members = admin_members_of(relid);
	ListCell   *lc;

	foreach(lc, members)
	{
		Oid			m = lfirst_oid(lc);

		if (get_rel_relkind(m) != RELKIND_PARTITIONED_TABLE &&
			get_rel_persistence(m) == RELPERSISTENCE_UNLOGGED)
			return m;
	}
	return InvalidOid;
}

static void
refuse_unlogged_partition(Oid base, Oid part)
{
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("partition \"%s\" of table \"%s\" cannot be unlogged",
					get_rel_name(part), get_rel_name(base)),
			 errdetail("Table \"%s\" has an inverted index, which holds the rows of every partition and could not stay exact after a crash emptied an unlogged one.",
					   get_rel_name(base)),
			 errhint("Make it a logged table (without UNLOGGED, or ALTER TABLE ... SET LOGGED), or drop the inverted indexes of \"%s\" first.",
					 get_rel_name(base))));
}

void
persistence_check_base(Oid base)
{
	Oid			part;

	if (get_rel_relkind(base) != RELKIND_PARTITIONED_TABLE)
		return;
	part = unlogged_member(base);
	if (OidIsValid(part))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("partition \"%s\" of table \"%s\" is unlogged",
						get_rel_name(part), get_rel_name(base)),
				 errdetail("An inverted index holds the rows of every partition and could not stay exact after a crash emptied an unlogged one."),
				 errhint("Make the partition logged (ALTER TABLE ... SET LOGGED) first.")));
}

void
persistence_check_adopted(Oid base, Oid idx)
{
	char		want = index_persistence(base);
	List	   *members = admin_members_of(idx);
	ListCell   *lc;

	foreach(lc, members)
	{
		Oid			m = lfirst_oid(lc);

		if (get_rel_relkind(m) == RELKIND_PARTITIONED_TABLE ||
			get_rel_persistence(m) == want)
			continue;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("table \"%s\" is %s but table \"%s\" is %s",
						get_rel_name(m), persistence_word(get_rel_persistence(m)),
						get_rel_name(base), persistence_word(want)),
				 errdetail("An index table must have the persistence of its base table, or a crash would leave it out of step."),
				 errhint("ALTER TABLE %s SET %s first.", adjlist_qualified_name(m),
						 want == RELPERSISTENCE_UNLOGGED ? "UNLOGGED" : "LOGGED")));
	}
}

/*
 * The index whose index or counter table relid is (or has relid as a
 * partition), of base.
 */
static Oid
index_of(Oid base, Oid relid)
{
	TableIndexes *ti = registry_lookup_unchecked(base);
	List	   *ancestors = get_rel_relispartition(relid) ? get_partition_ancestors(relid) : NIL;

	ancestors = lcons_oid(relid, ancestors);
	for (int i = 0; i < ti->nindexes; i++)
		if (list_member_oid(ancestors, ti->indexes[i].indexrel) ||
			list_member_oid(ancestors, ti->indexes[i].counterrel))
			return ti->indexes[i].indexrel;
	return InvalidOid;
}

void
persistence_check_alter(Oid relid, bool to_logged)
{
	char		want = to_logged ? RELPERSISTENCE_PERMANENT : RELPERSISTENCE_UNLOGGED;
	Oid			base = registry_base_of_index(relid);

	if (OidIsValid(base))
	{
		Oid			idx = index_of(base, relid);

		if (want == index_persistence(base))
			return;
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("cannot make table \"%s\" %s", get_rel_name(relid), persistence_word(want)),
				 errdetail("It belongs to inverted index \"%s\" of table \"%s\", which is %s: after a crash the index would be out of step with it.",
						   get_rel_name(OidIsValid(idx) ? idx : relid), get_rel_name(base),
						   persistence_word(index_persistence(base))),
				 errhint("ALTER TABLE %s SET %s: its inverted indexes follow.",
						 adjlist_qualified_name(base), to_logged ? "LOGGED" : "UNLOGGED")));
	}
	base = registry_base_of(relid);
	/* a partition (at any depth) of a base table */
	if (OidIsValid(base) && base != relid && !to_logged)
		refuse_unlogged_partition(base, relid);
}

void
persistence_check_member(Oid base, Oid part)
{
	Oid			unlogged = unlogged_member(part);

	if (OidIsValid(unlogged))
		refuse_unlogged_partition(base, unlogged);
}

/* ALTER TABLE base SET (UN)LOGGED is done: its tables follow it. */
void
persistence_follow(Oid base)
{
	TableIndexes *ti = registry_lookup_unchecked(base);
	char		want = index_persistence(base);

	if (ti->nindexes == 0 || ti->baserel != base)
		return;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (int i = 0; i < ti->nindexes; i++)
	{
		List	   *rels = admin_members_of(ti->indexes[i].indexrel);
		ListCell   *lc;

		if (OidIsValid(ti->indexes[i].counterrel))
			rels = lappend_oid(rels, ti->indexes[i].counterrel);
		foreach(lc, rels)
		{
			Oid			m = lfirst_oid(lc);

			if (get_rel_relkind(m) == RELKIND_PARTITIONED_TABLE ||
				get_rel_persistence(m) == want)
				continue;
			/* as adjlist's own statement, which the guard lets through */
			index_execute_sql(psprintf("ALTER TABLE %s SET %s", adjlist_qualified_name(m),
									   want == RELPERSISTENCE_UNLOGGED ? "UNLOGGED" : "LOGGED"),
							  false, SPI_OK_UTILITY);
		}
	}
	SPI_finish();
}
