/*-------------------------------------------------------------------------
 *
 * plan_cache.h
 *	  Saved SPI plans, shared by every module that runs SQL repeatedly.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_PLAN_CACHE_H
#define ADJLIST_PLAN_CACHE_H

#include "postgres.h"

#include "executor/spi.h"

/*
 * The saved plan of sql for the current user (prepared as that user, as
 * ri_triggers.c prepares as the role that executes).  The caller is
 * connected to SPI.  Valid until the next call of this where no cached
 * plan is running, which may empty the cache: run it at once, and look it
 * up again rather than keep it across anything that may call adjlist (a
 * statement that fires triggers, an index write).
 */
extern SPIPlanPtr adjlist_plan(const char *sql, int nargs, const Oid *argtypes);

/*
 * adjlist_plan() of the same sql again and again, faster: ref (zeroed at
 * first, kept with sql) remembers the plan while it is in the cache, for
 * the user it was prepared as.  Valid as long as adjlist_plan()'s.
 */
typedef struct AdjlistPlanRef
{
	SPIPlanPtr	plan;
	Oid			userid;
	uint64		generation;
} AdjlistPlanRef;

extern SPIPlanPtr adjlist_plan_ref(AdjlistPlanRef *ref, const char *sql, int nargs,
								   const Oid *argtypes);

/*
 * Have the cache emptied at its next use where no cached plan is running
 * (after a schema changed).  Safe in an invalidation callback.
 */
extern void adjlist_plan_cache_invalidate(void);

/*
 * SPI_execute_plan() of a plan from adjlist_plan(); the plan cannot be
 * evicted while it runs, even by a nested call.  Checks the result code.
 */
extern int	adjlist_plan_execute(SPIPlanPtr plan, Datum *values, const char *nulls,
								 bool read_only, long count, int expected);

/*
 * The same for a statement whose returned rows nobody reads (a RETURNING
 * kept for the privileges and policies it implies): no SPI_tuptable is
 * built.  SPI_processed is set.
 */
extern int	adjlist_plan_execute_discard(SPIPlanPtr plan, Datum *values, const char *nulls,
										 int expected);

/*
 * The same with the latest snapshot (its command ID advanced), as core's
 * foreign-key triggers write: maintenance writes see every committed row,
 * also in a REPEATABLE READ or SERIALIZABLE transaction.
 */
extern int	adjlist_plan_execute_latest(SPIPlanPtr plan, Datum *values, const char *nulls,
										int expected);

/*
 * A check run on each plan before adjlist_plan_execute() or
 * adjlist_plan_execute_latest() runs it, while one is set: the write API,
 * writing a table as its owner for a role that does not own it, checks
 * that role's privileges on the table in each statement
 * (write_api_owner.c).  adjlist_plan_set_check() returns the check it
 * replaces (NULL: none), which its caller sets again after, on error too.
 */
typedef struct AdjlistPlanCheck
{
	void		(*check) (SPIPlanPtr plan, void *arg);
	void	   *arg;
} AdjlistPlanCheck;

extern const AdjlistPlanCheck *adjlist_plan_set_check(const AdjlistPlanCheck *check);

/*
 * The text of the statement adjlist_plan() prepares or the execute
 * functions run at this moment (the innermost), or NULL: the write API's
 * own statements, which the guard of tables no trigger keeps lets through
 * (api_guard.c).
 */
extern const char *adjlist_plan_running_sql(void);

#endif							/* ADJLIST_PLAN_CACHE_H */
