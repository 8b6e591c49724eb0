/*-------------------------------------------------------------------------
 *
 * catalog.h
 *	  Where adjlist's own objects are, and the small catalog helpers every
 *	  module shares: quoted names, operator spellings, acting as a table's
 *	  owner, and what kind of storage a table has.
 *
 * Layering: adjlist.h (the key type) < catalog.h < registry.h < the index
 * writer, the sync triggers and the write API < graph.h (the readers).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_CATALOG_H
#define ADJLIST_CATALOG_H

#include "postgres.h"

#include "access/attnum.h"

/* The objects of the installed extension, looked up once per session. */
typedef struct AdjlistCatalog
{
	Oid			extension;		/* pg_extension row */
	Oid			namespace;		/* the extension's schema */
	char		nspname[NAMEDATALEN * 2 + 3];	/* quoted */
	Oid			keytype;		/* adjkey */
	Oid			keyarraytype;	/* adjkey[] */
	Oid			key_family;		/* adjkey's btree operator family */
	Oid			eq_op;			/* adjkey = adjkey */
	RegProcedure eq_proc;
	RegProcedure lt_proc;
	RegProcedure le_proc;
	RegProcedure gt_proc;
	RegProcedure ge_proc;
	Oid			registry;		/* adjlist_inverted_indexes */
	Oid			registry_owner;
	bool		registry_has_write_shards;	/* false for a 0.1 catalog */
	Oid			options;		/* adjlist_table_options, or InvalidOid before
								 * 0.3 (every table then has the defaults) */
	bool		legacy;			/* the SQL objects of 0.1 or 0.2, not yet
								 * updated: triggers keep only the indexes
								 * in trigger mode, as those versions did */
} AdjlistCatalog;

extern const AdjlistCatalog *adjlist_catalog(void);
/* The registry's OID if the catalog is loaded, else InvalidOid (no lookups). */
extern Oid	adjlist_registry_oid_if_loaded(void);
/* The same for the table options (table_options.c). */
extern Oid	adjlist_options_oid_if_loaded(void);
extern void adjlist_catalog_init(void);

/*
 * A direction argument: "out", "in" (and "both" when both_ok); anything
 * else is an error (22023).  The one parser of every function's direction.
 */
typedef enum AdjlistDirection
{
	ADJLIST_OUT = 1,
	ADJLIST_IN = 2,
	ADJLIST_BOTH = 3
} AdjlistDirection;

extern AdjlistDirection adjlist_parse_direction(struct varlena *t, bool both_ok);

/*
 * The first index of a relation (in RelationGetIndexList() order) whose
 * pg_index row (a syscache tuple) match accepts; InvalidOid if none.
 */
extern Oid	adjlist_index_where(struct RelationData *rel,
								bool (*match) (struct HeapTupleData *indextup,
											   const void *arg),
								const void *arg);

/* The primary key index of a relation, deferrable or not; InvalidOid if none. */
extern Oid	adjlist_primary_key_index(struct RelationData *rel);

/* The owner of a relation; a clear error if it is gone. */
extern Oid	adjlist_rel_owner(Oid relid);

/* "schema"."name" of a relation; a clear error if it is gone. */
extern char *adjlist_qualified_name(Oid relid);

/*
 * A type as a cast or a column definition names it: schema-qualified, and
 * with no type modifier implied (bpchar, not character, which means
 * character(1) and would cut a value to its first character).
 */
extern char *adjlist_type_sql(Oid type);

/* "OPERATOR(schema.op)" for an operator, immune to search_path. */
extern char *adjlist_operator_sql(Oid opno);

/* "OPERATOR(schema.=)" for the equality of a type's default btree class. */
extern char *adjlist_equality_sql(Oid type);

/* The equality operator of a type's default btree class, or an error. */
extern Oid	adjlist_equality_operator(Oid type);

/*
 * Acting as another role, the way core's foreign-key triggers run their
 * queries as the owner of the table they query.  Restored by the caller,
 * and by transaction or subtransaction abort on error.
 */
typedef struct AdjlistRoleSwitch
{
	Oid			saved_userid;
	int			saved_sec_context;
	int			guc_nest;		/* search_path pinned to pg_catalog, pg_temp */
} AdjlistRoleSwitch;

/*
 * Run as roleid (a table's owner) until adjlist_unbecome(), as core's
 * foreign-key triggers do: row-level security of roleid's own tables is not
 * forced on it, and search_path is pinned to pg_catalog, pg_temp so that
 * nothing on the caller's path (an operator, a function) runs as roleid.
 * Calls nest; an error unwinds both with the (sub)transaction.
 */
extern void adjlist_become(Oid roleid, AdjlistRoleSwitch *save);
extern void adjlist_unbecome(const AdjlistRoleSwitch *save);

/*
 * The same, without pinning search_path (whose save and restore cost as
 * much as writing an index row): for work that runs no SQL and no code but
 * core's and adjlist's own C, where no name is looked up.  Code that may
 * run SQL or user code after all calls adjlist_become_pin_path() first,
 * which pins it until adjlist_unbecome().
 */
extern void adjlist_become_role(Oid roleid, AdjlistRoleSwitch *save);
extern void adjlist_become_pin_path(AdjlistRoleSwitch *save);

/*
 * adjlist_become() in a security-restricted operation, as core's
 * DefineIndex() runs index expressions and predicates: for binding a
 * predicate (whose IMMUTABLE functions the planner runs to fold constants)
 * on behalf of whichever role set it off (a restore, another role's DDL).
 * The owner's code can then neither change the session's role nor leave
 * anything behind (a temporary table, a prepared statement) that would
 * run later as the caller.  Undone by adjlist_unbecome().
 */
extern void adjlist_become_restricted(Oid roleid, AdjlistRoleSwitch *save);

/*
 * How a table's rows are stored, for choosing a read or write path:
 * local heap storage, a partitioned table, a foreign table, or a table
 * whose rows another engine keeps elsewhere (Citus).
 */
typedef enum AdjlistStorage
{
	STORAGE_LOCAL,
	STORAGE_PARTITIONED,
	STORAGE_FOREIGN,
	STORAGE_DISTRIBUTED
} AdjlistStorage;

extern AdjlistStorage adjlist_storage(Oid relid);
extern bool adjlist_is_citus_table(Oid relid);

/*
 * Citus's row of relid (pg_dist_partition): false when Citus does not
 * know the table; else its partmethod and colocationid, unless NULL.
 */
extern bool adjlist_citus_placement_group(Oid relid, char *method, uint32 *colocationid);

/* Refuse relid if Citus moved its registered storage into a shard (55000). */
extern void adjlist_citus_moved_check(Oid relid);
/* The same, given a table named like a Citus shard of another. */
extern void adjlist_citus_shard_check(Oid relid);

#endif							/* ADJLIST_CATALOG_H */
