/*-------------------------------------------------------------------------
 *
 * plan_cache.c
 *	  Saved SPI plans, keyed by their SQL text and the role they run as.
 *
 * The SQL adjlist runs is generated from the catalogs (index_write.c, the
 * graph readers): its text is a function of the tables' names and columns,
 * so a cache keyed by text never runs a stale statement after a rename,
 * and a plan whose tables changed is re-planned by the plan cache itself
 * (SPI_keepplan).  Plans are prepared as the role that runs them, since
 * row-level security makes a plan depend on the role.
 *
 * While the write API writes a table as its owner for another role, a
 * check it sets (adjlist_plan_set_check()) runs before each plan: that
 * role's privileges on the table (write_api_owner.c).  Set and put back
 * around the write, on error too, so no abort leaves it set.
 *
 * Bounded: past PLAN_CACHE_MAX plans the cache is emptied, but only when no
 * cached plan is running, so a nested call (a policy or a trigger calling
 * adjlist while adjlist runs a plan) never frees a plan in use.
 *
 * Emptied too after a schema changed (adjlist_plan_cache_invalidate(),
 * from catalog.c's callback), at the same safe point: a rename leaves the
 * plans of texts that name the old schema behind, which nothing would run
 * again, and which would fail if re-planned (core re-analyses the text).
 *
 * A caller that runs one text again and again (put_edge, delete_edge) may
 * keep an AdjlistPlanRef with it, which skips hashing the text while the
 * cache still holds that plan for the current user: each emptying of the
 * cache starts a new generation, which every ref kept from before misses.
 *
 * The text of the statement being prepared or run here is known to the
 * guard of tables that no trigger keeps (api_guard.c), which refuses
 * plain writes of them but lets through the write API's own statements:
 * those the guard sees (at parse analysis, also when the plan cache
 * analyses a statement again, and at executor start) while their text is
 * the one running here.  A statement of the user's that such a write runs
 * (a trigger's) has another text and is refused.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"
#include "tcop/dest.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/snapmgr.h"

#include "plan_cache.h"

#define PLAN_CACHE_MAX 256

typedef struct PlanKey
{
	uint32		hash;			/* of the text */
	Oid			userid;
	const char *sql;			/* in plan_cxt */
} PlanKey;

typedef struct PlanEntry
{
	PlanKey		key;			/* hash key: must be first */
	SPIPlanPtr	plan;
} PlanEntry;

static HTAB *plan_cache = NULL;
static MemoryContext plan_cxt = NULL;
static int	plans_running = 0;
static bool reset_pending = false;
static uint64 cache_generation = 1;	/* of the plans in the cache: +1 a reset */
static const AdjlistPlanCheck *plan_check = NULL;
static const char *running_sql = NULL;

const char *
adjlist_plan_running_sql(void)
{
	return running_sql;
}

/* The text of a plan from adjlist_plan(): its only statement's. */
static const char *
plan_text(SPIPlanPtr plan)
{
	List	   *sources = SPI_plan_get_plan_sources(plan);

	return sources != NIL ? ((CachedPlanSource *) linitial(sources))->query_string : NULL;
}

static uint32
plankey_hash(const void *key, Size keysize)
{
	const PlanKey *k = (const PlanKey *) key;

	return k->hash ^ k->userid;
}

static int
plankey_match(const void *a, const void *b, Size keysize)
{
	const PlanKey *x = (const PlanKey *) a;
	const PlanKey *y = (const PlanKey *) b;

	if (x->hash != y->hash || x->userid != y->userid)
		return 1;
	return strcmp(x->sql, y->sql);
}

static void
plan_cache_reset(void)
{
	HASH_SEQ_STATUS status;
	PlanEntry  *e;

	hash_seq_init(&status, plan_cache);
	while ((e = (PlanEntry *) hash_seq_search(&status)) != NULL)
	{
		if (e->plan)
			SPI_freeplan(e->plan);
	}
	hash_destroy(plan_cache);
	plan_cache = NULL;
	MemoryContextReset(plan_cxt);
	cache_generation++;
}

SPIPlanPtr
adjlist_plan(const char *sql, int nargs, const Oid *argtypes)
{
	PlanKey		key;
	PlanEntry  *e;
	bool		found;
	SPIPlanPtr	plan;

	if (plan_cache != NULL && plans_running == 0 &&
		(reset_pending || hash_get_num_entries(plan_cache) >= PLAN_CACHE_MAX))
		plan_cache_reset();
	if (plans_running == 0)
		reset_pending = false;
	if (plan_cache == NULL)
	{
		HASHCTL		ctl;

		if (plan_cxt == NULL)
			plan_cxt = AllocSetContextCreate(CacheMemoryContext, "adjlist plan cache",
											 ALLOCSET_DEFAULT_SIZES);
		ctl.keysize = sizeof(PlanKey);
		ctl.entrysize = sizeof(PlanEntry);
		ctl.hash = plankey_hash;
		ctl.match = plankey_match;
		ctl.hcxt = plan_cxt;
		plan_cache = hash_create("adjlist plan cache", 64, &ctl,
								 HASH_ELEM | HASH_FUNCTION | HASH_COMPARE | HASH_CONTEXT);
	}
	key.hash = hash_bytes((const unsigned char *) sql, strlen(sql));
	key.userid = GetUserId();
	key.sql = sql;
	e = hash_search(plan_cache, &key, HASH_FIND, NULL);
	if (e != NULL && e->plan != NULL)
		return e->plan;

	{
		const char *save = running_sql;

		running_sql = sql;
		PG_TRY();
		{
			plan = SPI_prepare(sql, nargs, (Oid *) argtypes);
		}
		PG_FINALLY();
		{
			running_sql = save;
		}
		PG_END_TRY();
	}
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", sql,
			 SPI_result_code_string(SPI_result));
	SPI_keepplan(plan);
	key.sql = MemoryContextStrdup(plan_cxt, sql);
	e = hash_search(plan_cache, &key, HASH_ENTER, &found);
	e->plan = plan;
	return plan;
}

/*
 * adjlist_plan() without hashing sql again where ref holds its plan for
 * this user from the current cache: a plan stays until the cache is
 * emptied (cache_generation), and adjlist_plan() would empty it now where
 * a reset is due, so then it is called.
 */
SPIPlanPtr
adjlist_plan_ref(AdjlistPlanRef *ref, const char *sql, int nargs, const Oid *argtypes)
{
	Oid			userid = GetUserId();

	if (ref->plan != NULL && ref->generation == cache_generation && ref->userid == userid &&
		plan_cache != NULL &&
		!(plans_running == 0 &&
		  (reset_pending || hash_get_num_entries(plan_cache) >= PLAN_CACHE_MAX)))
		return ref->plan;
	ref->plan = adjlist_plan(sql, nargs, argtypes);
	ref->generation = cache_generation;
	ref->userid = userid;
	return ref->plan;
}

void
adjlist_plan_cache_invalidate(void)
{
	reset_pending = true;
}

const AdjlistPlanCheck *
adjlist_plan_set_check(const AdjlistPlanCheck *check)
{
	const AdjlistPlanCheck *old = plan_check;

	plan_check = check;
	return old;
}

/* How plan_run() runs a plan. */
typedef enum PlanRun
{
	RUN_PLAIN,					/* SPI_execute_plan() */
	RUN_DISCARD,				/* its rows to no tuple table */
	RUN_LATEST					/* under the latest snapshot, checking it */
} PlanRun;

/*
 * A statement whose rows nobody reads: they go to no tuple table
 * (None_Receiver), though the statement still computes them.
 */
static int
execute_discard(SPIPlanPtr plan, Datum *values, const char *nulls)
{
	int			nargs = SPI_getargcount(plan);
	ParamListInfo params = nargs > 0 ? makeParamList(nargs) : NULL;
	SPIExecuteOptions options = {0};

	/* as SPI_execute_plan() passes values and nulls (_SPI_convert_params()) */
	for (int i = 0; i < nargs; i++)
	{
		ParamExternData *prm = &params->params[i];

		prm->value = values[i];
		prm->isnull = nulls != NULL && nulls[i] == 'n';
		prm->pflags = PARAM_FLAG_CONST;
		prm->ptype = SPI_getargtypeid(plan, i);
	}
	options.params = params;
	options.dest = None_Receiver;
	return SPI_execute_plan_extended(plan, &options);
}

/*
 * Run a plan the way how says, checked first (plan_check), with its text
 * shown in the error context of anything it raises (running_sql); an SPI
 * result other than expected (unless 0) is an error.
 */
static int
plan_run(SPIPlanPtr plan, Datum *values, const char *nulls, bool read_only, long count,
		 PlanRun how, int expected)
{
	int			ret = 0;
	const char *save;

	if (plan_check != NULL)
		plan_check->check(plan, plan_check->arg);
	save = running_sql;
	running_sql = plan_text(plan);
	plans_running++;
	PG_TRY();
	{
		switch (how)
		{
			case RUN_PLAIN:
				ret = SPI_execute_plan(plan, values, nulls, read_only, count);
				break;
			case RUN_DISCARD:
				ret = execute_discard(plan, values, nulls);
				break;
			case RUN_LATEST:
				ret = SPI_execute_snapshot(plan, values, nulls, GetLatestSnapshot(),
										   InvalidSnapshot, false, true, 0);
				break;
		}
	}
	PG_FINALLY();
	{
		plans_running--;
		running_sql = save;
	}
	PG_END_TRY();
	if (expected != 0 && ret != expected)
		elog(ERROR, "adjlist statement failed: %s", SPI_result_code_string(ret));
	return ret;
}

int
adjlist_plan_execute(SPIPlanPtr plan, Datum *values, const char *nulls,
					 bool read_only, long count, int expected)
{
	return plan_run(plan, values, nulls, read_only, count, RUN_PLAIN, expected);
}

/* adjlist_plan_execute() of a statement whose rows nobody reads */
int
adjlist_plan_execute_discard(SPIPlanPtr plan, Datum *values, const char *nulls, int expected)
{
	return plan_run(plan, values, nulls, false, 0, RUN_DISCARD, expected);
}

int
adjlist_plan_execute_latest(SPIPlanPtr plan, Datum *values, const char *nulls, int expected)
{
	return plan_run(plan, values, nulls, false, 0, RUN_LATEST, expected);
}
