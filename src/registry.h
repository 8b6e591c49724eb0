/*-------------------------------------------------------------------------
 *
 * registry.h
 *	  The registry of inverted indexes: which tables have which indexes,
 *	  validated before use, cached per session.  The one header of
 *	  registry.c (the cache and lookups), registry_read.c (reading the
 *	  registry table), registry_check.c (checks against the catalogs) and
 *	  registry_write.c (writes, as the registry's owner); registry.c's
 *	  header says how they fit.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_REGISTRY_H
#define ADJLIST_REGISTRY_H

#include "postgres.h"

#include "utils/snapshot.h"

typedef enum IndexMode
{
	INDEX_MODE_TRIGGER,			/* kept by triggers on the base table */
	INDEX_MODE_API				/* kept by put_edge() and friends */
} IndexMode;

/* One registered inverted index, as the registry and the catalogs say. */
typedef struct IndexDef
{
	Oid			indexrel;
	Oid			baserel;
	int			ncols;			/* columns of the index table */
	int			nkeys;			/* leading columns that form its key */
	char	  **colnames;		/* registry order: partition key, sort key,
								 * rest of the base key, projections */
	Oid		   *coltypes;		/* the same in the base and the index table */
	int16	   *typlens;
	bool	   *typbyvals;
	int			nbasekey;		/* the columns that identify a base row */
	char	  **base_key;
	Oid			counterrel;		/* degree counters, or InvalidOid */
	int			counter_shards; /* as registered: 1 when there are counters */
	bool		counter_legacy; /* counters in the 0.1/0.2 format (a shard
								 * column, one row per group and shard), until
								 * ALTER EXTENSION adjlist UPDATE converts them */
	int			write_shards;	/* partition keys spread over N suffixes, or 0 */
	IndexMode	mode;
	char	   *predicate;		/* a sparse index's predicate (index_predicate.c),
								 * as text, or NULL: every row */
	char	   *predicate_expr; /* the same bound (nodeToString()), or NULL:
								 * none, or not bound (a restore without
								 * adjlist's triggers), which is a problem */
	bool		ready;			/* false while built concurrently (or after
								 * such a build failed): writers keep it,
								 * readers refuse it */
	TransactionId xmin;			/* of the registry row */
} IndexDef;

/* Every index of one base table, in creation order. */
typedef struct TableIndexes
{
	Oid			baserel;
	Oid			owner;			/* of the base table and of every index table */
	int			nindexes;
	IndexDef   *indexes;
	uint64		generation;		/* bumped by every invalidation */
} TableIndexes;

/* called by the library's relcache callback (catalog.c) */
extern void registry_relcache_invalidate(Oid relid);

/*
 * The indexes of a base table, or of the registered table that relid is a
 * partition of (at any depth); nindexes = 0 when there are none.  The result
 * is a copy in the caller's memory context.  Every index is checked: its
 * table exists, has the base table's owner, and has each registered column
 * with the type that column has in the base table; a problem is an error
 * that names the index.
 */
extern TableIndexes *registry_lookup(Oid relid);

/* Same, but without the checks (what DDL and maintenance need). */
extern TableIndexes *registry_lookup_unchecked(Oid relid);

/*
 * The checks of registry_lookup(), run after DDL on relid's tables (the
 * DDL is refused by the error): a column that an index uses and the DDL
 * dropped or renamed is reported as such, with the index that uses it.
 */
extern void registry_check_ddl(Oid relid);

/*
 * Why the unique indexes of index table indexrel (or of a partition of it)
 * could refuse or silently lose index rows whose keys differ: a primary key
 * other than exactly the key columns colnames[0..nkeys-1], in that order, an
 * exclusion constraint, or a unique index that leaves out a key column.
 * NULL when they cannot; then *detail is NULL too.  A table without a
 * primary key is fine: the writer finds its rows by the key columns (and by
 * a unique index on exactly them, in any order, when there is one).
 */
extern char *registry_key_problem(Oid indexrel, char *const *colnames, int nkeys,
								  char **detail);

/* Has an invalidation touched these indexes since the lookup? */
extern bool registry_changed(const TableIndexes *ti);

/*
 * What a caller derived from registry_lookup(relid) stays right while
 * registry_stamp_now() equals the registry_stamp(relid) taken before the
 * lookup (nonzero): see registry.c.
 */
extern uint64 registry_stamp(Oid relid);
extern uint64 registry_stamp_now(void);

/* The index whose table is indexrel, or NULL; copied, checked if asked. */
extern IndexDef *registry_index(Oid indexrel, bool check);

/* Is relid itself a registered base, index or counter table? */
extern bool registry_involves(Oid relid);

/* Registered base table of relid (itself or an ancestor), or InvalidOid. */
extern Oid	registry_base_of(Oid relid);

/*
 * Every registration: its index table, base table and counter table
 * (InvalidOid for none); returns how many.
 */
extern int	registry_all(Oid **indexes, Oid **bases, Oid **counters);

/*
 * The base table whose inverted index (or counter table) relid is, or one
 * of its partitions is; InvalidOid if none.
 */
extern Oid	registry_base_of_index(Oid relid);

/* Was the registry row of ix committed before the snapshot was taken? */
extern bool registry_visible(const IndexDef *ix, Snapshot snapshot);

/*
 * A call that reads an index table by name (query(), edge_count(),
 * verify_inverted_index()...) whose snapshot cannot see the index's
 * registry row (xmin: created after a REPEATABLE READ or SERIALIZABLE
 * transaction's snapshot) cannot see its rows either: an error (55000),
 * never an empty answer.
 */
extern void registry_require_visible(Oid indexrel, TransactionId xmin);

/*
 * The first ready index (in creation order) whose key flips base columns
 * pk, sk and that holds every row (no predicate); else the first such index
 * being built; else NULL.  A table with sparse indexes only has none;
 * *sparse (if not NULL) tells whether one of those flips pk, sk.
 */
extern const IndexDef *registry_find_flip(const TableIndexes *ti,
										  const char *pkname, const char *skname,
										  bool *sparse);

/* Writing the registry: done as its owner, after the caller's checks. */
typedef struct RegistryRow
{
	Oid			indexrel;
	Oid			baserel;
	int			ncols;
	char	  **colnames;
	int			nkeys;
	Oid			counterrel;
	int			nbasekey;
	char	  **base_key;
	IndexMode	mode;
	int			write_shards;
	bool		ready;
	const char *predicate;		/* canonical, or NULL */
	const char *predicate_expr; /* bound (index_predicate_bind()), or NULL */
} RegistryRow;

extern void registry_insert(const RegistryRow *row);

/* Is adjlist writing the registry itself right now (registry_insert...)? */
extern bool registry_written_by_adjlist(void);

/*
 * Tell every session (this one at the next command) that the registry
 * changed; baserel's relcache entry as well, when valid.
 */
extern void registry_invalidate(Oid baserel);

/*
 * Why a registry row (already inserted, visible to this command) would make
 * a table serve twice or serve itself; NULL when it does not.
 */
extern char *registry_row_conflict(Oid indexrel, Oid baserel, Oid counterrel);
extern void registry_delete(Oid indexrel);

/* Store the bound predicate of an index (replacing any), as the registry's owner. */
extern void registry_bind_predicate(Oid indexrel, const char *bound);

/*
 * Was the bound predicate of an index bound in another cluster (its OIDs
 * are not this cluster's: pg_upgrade)?  Read with SnapshotSelf.
 */
extern bool registry_predicate_bound_elsewhere(Oid indexrel);

/* Write the text of an index's predicate (a renamed object in it). */
extern void registry_set_predicate_text(Oid indexrel, const char *text);
/* Refuse a read of an index that is not ready (SQLSTATE 55000). */
extern void registry_not_ready(Oid indexrel);

/*
 * An index is complete (a concurrent build or a restore done): readers may
 * use it; or, ready false, it must not be read until it is.
 */
extern void registry_set_ready(Oid indexrel, bool ready);
/* The degree counter table counterrel was dropped: forget it. */
extern void registry_forget_counters(Oid counterrel);

#endif							/* ADJLIST_REGISTRY_H */
