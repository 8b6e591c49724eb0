/*-------------------------------------------------------------------------
 *
 * index_admin.h
 *	  Creating and dropping inverted indexes, and the triggers and rows
 *	  that follow a base table's partitions.
 *
 *	  index_admin.c		triggers, partitions' rows, drop_inverted_index()
 *	  index_create.c	create_inverted_index(): what to build, the tables,
 *						the registration, the backfill in one transaction
 *	  index_build.c		create_inverted_index(..., concurrently => true):
 *						the same, in batches of transactions, while writers
 *						go on
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_ADMIN_H
#define ADJLIST_INDEX_ADMIN_H

#include "fmgr.h"
#include "nodes/pg_list.h"
#include "utils/array.h"

#include "index_write.h"
#include "registry.h"

/*
 * (Re)install the triggers of a base table and of all its partitions so
 * that they cover its registered indexes; remove them when none is left.
 * Runs as the caller, who must be allowed to create triggers on them.
 */
extern void install_triggers(Oid baserel);

/* The guard of an index or counter table (the caller is connected to SPI). */
extern void admin_install_guard(Oid relid);

/*
 * After ALTER TABLE relid (without ONLY) ENABLE [ALWAYS] TRIGGER of
 * adjlist_sync_before_trunc (or ALL or USER): give the state of relid's, a
 * partitioned base table or partition of one, to its partitions' (at any
 * depth).  Refused unless the current role owns relid.
 */
extern void admin_follow_trunc_state(Oid relid);

/* Does the base table (and every partition) have the triggers it needs? */
extern bool admin_triggers_in_place(Oid baserel);

/*
 * Drop an inverted index: its registration, the triggers it needed, its
 * index and counter tables.  The caller must own the base table.
 */
extern void drop_index(Oid indexrel);

/* Remove adjlist's triggers from a table (and its partitions). */
extern void remove_triggers(Oid relid);

/*
 * Add to, or remove from, every index of baserel the index rows of the
 * rows of one table (a partition being attached or detached, or dropped).
 */
extern void index_member_rows(Oid baserel, Oid member, bool add);

/* CREATE INDEX and REPLICA IDENTITY of a counter table (qcnt: its qualified name). */
extern char *counters_index_sql(const char *qcnt);

/* The comment of an index table; comments brought up to date after renames. */
extern char *index_comment_prefix(Oid base);
extern char *index_comment_text(Oid base, const char *pkcol, const char *skcol);
extern void index_comments_refresh(void);

/* Refuse a base table or an index table adjlist cannot keep exact. */
extern void check_indexable_table(Oid relid, const char *role);

/* Helpers of index_admin.c that index_create.c and index_build.c share. */
extern void admin_exec(const char *sql, int expected);
extern void admin_require_owner(Oid relid);
extern Oid	admin_column_type(Oid relid, const char *col);
extern bool admin_name_in(char **names, int n, const char *name);
extern char **admin_names_of_array(ArrayType *arr, int *n);
extern char **admin_primary_key_columns(Oid relid, int *n, bool *deferrable, bool *deferred);
extern char *admin_name_list(char **names, int n);
extern List *admin_members_of(Oid relid);
extern bool admin_citus_installed(void);
extern void admin_fill_index(const IndexDef *ix, Oid source, bool add, WriteMode mode,
							 bool progress);

/*
 * Check the rows of source (the base table or a member) that ix leaves
 * out against the base table's key limits (index_row_check_base()): what
 * a concurrent build, whose backfill reads the rows ix holds only, does
 * before it.  The caller acts as the owner and is connected to SPI.
 */
extern void admin_check_rows(const IndexDef *ix, Oid source);

/* ----------------------------------------------------------------------
 * create_inverted_index (index_create.c)
 * ----------------------------------------------------------------------
 */

/* What create_inverted_index() builds, from its arguments, checked. */
typedef struct CreatePlan
{
	Oid			base;
	char	   *base_ns;		/* unquoted */
	char	   *base_name;
	Oid			base_owner;
	char	  **cols;			/* key columns, then projections */
	int			ncols;
	int			nkeys;
	char	  **base_key;
	int			nbasekey;
	bool		pk_deferrable;
	bool		pk_deferred;
	char	   *index_name;
	bool		existing;
	int			partitions;
	int			counters;
	IndexMode	mode;
	int			write_shards;
	char	   *predicate;		/* a sparse index's, canonical; or NULL */
	char	   *predicate_expr; /* the same bound (index_predicate.c) */
	bool		concurrently;
} CreatePlan;

/*
 * Read and check the arguments of create_inverted_index(); skip is the
 * number of arguments after the table that are not the function's (the
 * procedure's concurrently).  Locks the base table and its partitions:
 * against writers (SHARE ROW EXCLUSIVE), or, concurrently, only against
 * DDL and other builds (SHARE UPDATE EXCLUSIVE).
 */
extern void index_create_plan(FunctionCallInfo fcinfo, int skip, CreatePlan *p);

/*
 * The index table (with its primary key when withkey), its counter table
 * (*cnt, or InvalidOid) and its registration, ready or not.  The caller
 * is connected to SPI.
 */
extern Oid	index_create_tables(CreatePlan *p, bool withkey, bool ready, Oid *cnt);

/* The rest of a build in one transaction: triggers, backfill, Citus. */
extern void index_create_finish(CreatePlan *p, Oid idx, Oid cnt);

/* create_inverted_index(..., concurrently => true) (index_build.c) */
extern void index_build_concurrently(CreatePlan *p);

/*
 * Progress of a build, in pg_stat_progress_create_index (and
 * inverted_index_progress, which tells adjlist's from others by
 * PROGRESS_ADJLIST_MARK in the access method's subphase, never set by an
 * access method since adjlist's builds report none).
 */
#define PROGRESS_ADJLIST_MARK 0x41444A4C	/* "ADJL" */
extern void index_create_progress(Oid base, Oid idx, bool concurrently);

#endif							/* ADJLIST_INDEX_ADMIN_H */
