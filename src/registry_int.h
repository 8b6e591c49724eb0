/*-------------------------------------------------------------------------
 *
 * registry_int.h
 *	  What the registry cache (registry.c) shares with the reading of the
 *	  registry table (registry_read.c) and with the checks of an index
 *	  definition against the catalogs (registry_check.c).  Not for other
 *	  modules: they call registry_lookup() and registry_check_ddl().
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_REGISTRY_INT_H
#define ADJLIST_REGISTRY_INT_H

#include "registry.h"

#include "nodes/pg_list.h"

/*
 * The registry rows of baserel, in creation order (ties broken by the index
 * table's OID), allocated in the current memory context; unchecked.  A
 * predicate bound in another cluster is bound again: the indexes whose
 * predicates were are appended to *rebound (for the cache to write back),
 * and *deferred is set when one was left unbound only because another
 * role holds a lock on its table (index_predicate_rebind()).
 */
extern int	registry_read(Oid baserel, IndexDef **out, List **rebound, bool *deferred);

/* Forget the registry's column numbers if relid is the registry (or any). */
extern void registry_columns_forget(Oid relid);

/*
 * A problem found by registry_check_index(): message and detail, or NULL;
 * and for a column of the base table the index uses that the table lacks,
 * the same
 * said of the DDL that dropped or renamed it (registry_check_ddl()), which
 * is refused before it takes effect: there the index does use the column,
 * and the fix is to keep the column or drop the index first.
 */
typedef struct IndexProblem
{
	char	   *msg;
	char	   *detail;
	char	   *ddl_msg;
	char	   *ddl_detail;
} IndexProblem;

extern Oid	registry_table_owner(Oid relid, char **name);
extern bool registry_check_index(IndexDef *d, Oid base_owner, const char *basename,
								 IndexProblem *p);

#endif							/* ADJLIST_REGISTRY_INT_H */
