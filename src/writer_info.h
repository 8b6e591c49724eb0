/*-------------------------------------------------------------------------
 *
 * writer_info.h
 *	  The catalog facts the index writer caches per table (writer_info.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_WRITER_INFO_H
#define ADJLIST_WRITER_INFO_H

#include "postgres.h"

#include "access/skey.h"
#include "utils/relcache.h"

#include "index_write.h"

/*
 * What the catalogs say of a table the writer writes, as far as choosing a
 * path goes: cached per table, and forgotten at a relcache invalidation of
 * it (index_write_relcache_invalidate(), from catalog.c's callback), which
 * every change of its indexes, triggers, constraints or columns sends, as
 * does Citus when it distributes the table.  A statement that writes one
 * row would otherwise look all of this up again (a fifth of the cost of a
 * trigger call on a single-row INSERT).  An entry is marked valid before it
 * is filled, so that an invalidation arriving meanwhile is not lost.
 */
typedef struct WriterInfo
{
	Oid			relid;			/* hash key */
	bool		valid;
	char		relkind;
	bool		citus;			/* a table Citus distributes */
	Oid			replindex;		/* its replica identity index, if any */
	bool		runs_code;		/* writing a row can run code other than
								 * core's: row triggers, CHECK constraints,
								 * generated columns, expression or partial
								 * indexes */
	int			nkeys;			/* the key columns keyindex was found for */
	AttrNumber	keyattnos[INDEX_MAX_KEYS];
	Oid			keyindex;		/* see key_index() */
	bool		is_pk;
	bool		deferrable;

	/*
	 * A look-up by keyindex (index_write.c's direct_find()): index column i
	 * is attribute scan_attnos[i] of the table, compared with scan_keys[i],
	 * btree equality of its operator class with the argument left to fill
	 * in.  scan_nkeys is 0 when they could not be made (a missing operator):
	 * core's look-up then runs and says so.
	 */
	int			scan_nkeys;
	AttrNumber	scan_attnos[INDEX_MAX_KEYS];
	ScanKeyData scan_keys[INDEX_MAX_KEYS];
} WriterInfo;

/*
 * The cached facts of rel (locked by the caller, so that invalidations up to
 * the lock are in), with keyindex found for the given key columns.
 */
extern const WriterInfo *writer_info(Relation rel, const AttrNumber *keyattnos, int nkeys);

/* Does a writer of a table with these facts, in this mode, take the executor path? */
extern bool writer_direct(const WriterInfo *wi, int nkeys, WriteMode mode);

#endif							/* ADJLIST_WRITER_INFO_H */
