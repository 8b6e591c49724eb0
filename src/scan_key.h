/*-------------------------------------------------------------------------
 *
 * scan_key.h
 *	  Scan keys on adjkey columns without a catalog lookup per key.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_SCAN_KEY_H
#define ADJLIST_SCAN_KEY_H

#include "access/skey.h"

extern void adjlist_scan_key_init(ScanKey entry, AttrNumber attno, StrategyNumber strategy,
								  RegProcedure proc, Datum arg);
/* called by the library's function syscache callback (catalog.c) */
extern void adjlist_scan_key_invalidate(void);

#endif							/* ADJLIST_SCAN_KEY_H */
