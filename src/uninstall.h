/*-------------------------------------------------------------------------
 *
 * uninstall.h
 *	  adjlist_uninstall(): the plan (uninstall_plan.c), the rewrite of
 *	  expressions to text (uninstall_rewrite.c) and the function that runs
 *	  them (uninstall.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_UNINSTALL_H
#define ADJLIST_UNINSTALL_H

#include "postgres.h"

#include "nodes/pg_list.h"

/* the key types, which become text */
typedef struct UninstallTypes
{
	Oid			extension;
	Oid			keytype;		/* adjkey */
	Oid			keyarraytype;	/* adjkey[] */
	Oid			prefixtype;		/* the domain adjkey_prefix (0.3), or 0 */
	Oid			prefixarraytype;
} UninstallTypes;

extern void uninstall_types_init(UninstallTypes *types);
extern bool uninstall_is_key_type(const UninstallTypes *types, Oid type);

/*
 * An expression or a Query rewritten from keys to text with the same
 * results; NULL, with *problem saying why, when that cannot be done exactly.
 */
extern Node *uninstall_rewrite(Node *node, const char **problem);

/*
 * One statement, the role it runs as (the owner of the table or view it
 * changes: see uninstall.c), and the row adjlist_uninstall() returns for it
 * (if action).
 */
typedef struct UninstallStep
{
	Oid			owner;
	char	   *sql;
	char	   *action;
	char	   *object;
} UninstallStep;

/* A column that becomes text (or text[]). */
typedef struct UninstallColumn
{
	Oid			rel;
	Oid			owner;			/* the role ALTER TABLE runs as */
	char	   *name;
	bool		array;
	char	   *sql;			/* the ALTER [FOREIGN] TABLE that does it */
} UninstallColumn;

/*
 * Everything adjlist_uninstall() will do, worked out before it changes
 * anything: the statements that drop what the type changes would break
 * (before), the columns, and the statements that re-create those objects on
 * text (after).
 */
typedef struct UninstallPlan
{
	List	   *before;			/* UninstallStep */
	List	   *columns;		/* UninstallColumn */
	List	   *after;			/* UninstallStep */
} UninstallPlan;

/*
 * Both run in the caller's SPI connection, and allocate in its memory.
 *
 * The plan; an error before anything is changed if the caller may not
 * change a table or view it must change, if the owner a statement runs as
 * could not run it (a partition or inheritance child it recurses to is
 * another role's, it lacks CREATE on the schema of a view or index it
 * re-creates, or REFERENCES on the table a foreign key refers to), or
 * (2BP01, listing every one) if objects that depend on the extension
 * cannot be rewritten, a table partitioned by a key column among them.
 * Run with search_path pinned to pg_catalog, pg_temp, as the statements
 * are: every name in them that is not pg_catalog's is written with its
 * schema.
 */
extern UninstallPlan *uninstall_plan(void);

/*
 * "X depends on Y" for every object outside the extension that still
 * depends on one of its objects, as DROP EXTENSION would find them.
 */
extern List *uninstall_dependents(void);

#endif							/* ADJLIST_UNINSTALL_H */
