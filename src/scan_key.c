/*-------------------------------------------------------------------------
 *
 * scan_key.c
 *	  Scan keys on adjkey columns without a catalog lookup per key.
 *
 * ScanKeyInit() looks its comparison function up in the catalogs each
 * time (fmgr_info: pg_proc, then the C function's address), which for
 * adjkey's operators, C functions of the library, was a tenth of the
 * fixed cost of a one-hop call on the direct path (a median node's
 * reverse_neighbors() sets up one key, common_neighbors() four).  The few
 * functions the direct scans use (adjkey's =, <, >, >=) keep their
 * FmgrInfo here for the session, keyed by the function's OID, and each key
 * gets a copy of it, as ScanKeyEntryInitializeWithInfo() makes.  Any
 * change of a function (CREATE OR REPLACE, DROP, a dropped and recreated
 * extension: a syscache invalidation of pg_proc, catalog.c) forgets them
 * all; they are looked up again at their next use.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "catalog/pg_collation_d.h"
#include "utils/memutils.h"

#include "scan_key.h"

#define SCAN_KEY_PROCS 8

typedef struct KeyProc
{
	Oid			proc;
	FmgrInfo	finfo;
} KeyProc;

static KeyProc procs[SCAN_KEY_PROCS];
static int	nprocs = 0;
static uint64 generation = 0;	/* bumped by each invalidation */

void
adjlist_scan_key_invalidate(void)
{
	nprocs = 0;
	generation++;
}

/*
 * What ScanKeyInit(entry, attno, strategy, proc, arg) makes (no flags, no
 * subtype, collation "C"), with proc's FmgrInfo from the cache.
 */
void
adjlist_scan_key_init(ScanKey entry, AttrNumber attno, StrategyNumber strategy,
					  RegProcedure proc, Datum arg)
{
	FmgrInfo	finfo;
	uint64		gen = generation;

	for (int i = 0; i < nprocs; i++)
	{
		if (procs[i].proc == proc)
		{
			ScanKeyEntryInitializeWithInfo(entry, 0, attno, strategy, InvalidOid,
										   C_COLLATION_OID, &procs[i].finfo, arg);
			return;
		}
	}
	fmgr_info_cxt(proc, &finfo, CacheMemoryContext);
	/* (the lookup may have processed an invalidation: then keep nothing) */
	if (gen == generation && nprocs < SCAN_KEY_PROCS)
	{
		procs[nprocs].proc = proc;
		procs[nprocs].finfo = finfo;
		nprocs++;
	}
	ScanKeyEntryInitializeWithInfo(entry, 0, attno, strategy, InvalidOid,
								   C_COLLATION_OID, &finfo, arg);
}
