/*-------------------------------------------------------------------------
 *
 * write_api_int.h
 *	  What the files of the write API share (write_api.c, the entry points;
 *	  write_api_table.c, a table's shape; write_api_index.c, index rows from
 *	  returned base rows; write_api_put.c, the statements of a put and a
 *	  delete; write_api_cond.c, conditional writes; write_api_owner.c, a
 *	  write as the owner where Citus placements are shared).  Not for other modules:
 *	  import_dynamodb goes through dynamo_io.h.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_WRITE_API_INT_H
#define ADJLIST_WRITE_API_INT_H

#include "executor/spi.h"
#include "fmgr.h"

#include "catalog.h"
#include "dynamo_io.h"
#include "plan_cache.h"
#include "registry.h"

/*
 * The fourth field of adjlist's advisory lock tags: pg_advisory_lock() uses
 * 1 and 2, so its locks never meet these.
 */
#define ADJLIST_LOCK_FIELD 0xAD1

/*
 * Index rows written one statement each (a router query on Citus) up to
 * this many; more are buffered and written a statement a table.
 */
#define API_FEW 16

/* What the write API needs to know about a table (dynamo_io.h names it). */
struct ApiTable
{
	Oid			relid;
	char	   *qname;
	TableIndexes *ti;
	const char *pk;				/* the two key columns, quoted */
	const char *sk;
	const char *pkname;			/* the same, as they are */
	const char *skname;
	const char *payload;		/* the payload column, quoted, or NULL: none */
	const char *payload_name;	/* its name as it is: "data" unless set */
	const char *ttl;			/* import_dynamodb: the expiry column (set_ttl),
								 * quoted, which a put writes from each item's
								 * expiry; NULL: a put sets it to its default */
	const char *ttl_name;
	Oid			ttl_type;
	bool		unique_key;		/* a unique index on (pk, sk): upsert */
	char	  **cols;			/* every column any index needs, for RETURNING */
	int			ncols;
	char	   *returning;
	char	   *set_list;		/* "c = EXCLUDED.c, ..." of the non-key columns */
	char	   *default_list;	/* ", c = DEFAULT, ..." of the non-key columns
								 * but the payload column (and ttl) */
	bool		no_triggers;	/* no trigger keeps the indexes (Citus, or a
								 * table whose indexes are all in API mode
								 * in a database with Citus): the write API
								 * writes the rows of its API-mode indexes */
	bool		partitioned;	/* a partitioned table, which cannot return
								 * a system column (xmax) */
	bool		shared_placements;	/* a Citus table whose index or counter
									 * tables are in its colocation group:
									 * written as its owner by another role
									 * (write_api_owner.c) */

	/* Where no trigger runs: what a replacement does to the index rows */
	char	   *breturning;		/* the returning list, "b.c, ..." */
	int			pkcol;			/* where pk and sk stand in cols */
	int			skcol;
	bool		multiset;		/* an index table has a deferrable key */
	AttrNumber *attnos;			/* the attribute of each of cols */
	int			nmoving;		/* index key columns a replacement can change */
	int		   *moving;			/* their positions in cols */

	/* Kept per backend by api_table(): then its memory, and statements */
	MemoryContext cxt;			/* NULL: the call's */
	char	   *upsert_one;		/* put_edge's upsert (write_api_put.c) */
	char	   *delete_one;		/* delete_edge's DELETE (write_api.c) */
	AdjlistPlanRef upsert_plan; /* their plans, while the plan cache has them */
	AdjlistPlanRef delete_plan;
	bool		returning_implied;	/* the upsert asks, without RETURNING, for
									 * all that RETURNING asks for (privileges,
									 * policies: write_api_table.c) */
	char	   *upsert_bare;	/* put_edge's upsert without RETURNING, where
								 * the triggers keep the indexes and it is
								 * implied (write_api_put.c) */
	AdjlistPlanRef upsert_bare_plan;
};

/*
 * A write done as the table's owner for a role that does not own it
 * (write_api_owner.c)
 */
typedef struct ApiOwnerMode
{
	bool		active;
	Oid			caller;
	Oid			relid;
	AdjlistRoleSwitch role;
	AdjlistPlanCheck check;
	const AdjlistPlanCheck *saved;
} ApiOwnerMode;

/* The index writers of one statement (write_api_index.c) */
typedef struct ApiWriters ApiWriters;

/* write_api_table.c */
extern ApiTable *api_table(Oid relid);

/* write_api_index.c */
extern ApiWriters *api_writers_begin(ApiTable *t, bool bulk);
extern void api_writers_end(ApiWriters *aw);
extern void api_row(ApiTable *t, SPITupleTable *tt, uint64 r, int first, Datum *vals, bool *nulls);
extern void api_row_apply(ApiWriters *aw, Datum *vals, bool *nulls, bool add, bool counted);
extern void api_row_replace(ApiWriters *aw, Datum *oldv, bool *oldn, Datum *newv, bool *newn);
extern void api_apply(ApiWriters *aw, SPITupleTable *tt, uint64 n, bool add, const bool *counted);
extern bool api_writers_any(ApiWriters *aw);

/* write_api_put.c */
extern const char *payload_target(ApiTable *t);
extern void no_payload_column(ApiTable *t);
extern void lock_keys(ApiTable *t, Datum pks, Datum sks);
extern int64 put_rows(ApiTable *t, Datum pks, Datum sks, Datum datas, Datum ttls);
extern bool put_one_kept_ok(const ApiTable *t);
extern void put_one_kept(ApiTable *t, Oid keytype, Datum pk, Datum sk, Datum data, bool data_null);
extern int64 delete_rows(ApiTable *t, const char *where, int nargs, Oid *types, Datum *values);
extern int64 delete_rows_sql(ApiTable *t, const char *sql, int nargs, Oid *types, Datum *values);
extern char *api_table_keep(ApiTable *t, char *sql);

/* write_api_owner.c */
extern bool api_placements_shared(ApiTable *t);
extern void api_owner_begin(ApiTable *t, ApiOwnerMode *m);
extern void api_owner_end(ApiOwnerMode *m);
extern void api_owner_abandon(ApiOwnerMode *m);

/* write_api.c */
extern Datum one_elem_array(Datum d, Oid type, bool isnull);
extern int64 in_write_api(ApiTable *t, int64 (*body) (void *), void *arg);
extern void require_args(FunctionCallInfo fcinfo, int n, const char *what);

#endif							/* ADJLIST_WRITE_API_INT_H */
