/*-------------------------------------------------------------------------
 *
 * table_options.h
 *	  A table's payload column and expiry column (table_options.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_TABLE_OPTIONS_H
#define ADJLIST_TABLE_OPTIONS_H

#include "postgres.h"

#include "access/attnum.h"

typedef struct TableOptions
{
	char	   *payload;		/* the item's jsonb column: as set, or "data" */
	bool		payload_set;
	AttrNumber	payload_attno;	/* InvalidAttrNumber: no such jsonb column */
	char	   *ttl;			/* the expiry column, or NULL: no expiry */
	AttrNumber	ttl_attno;
	Oid			ttl_type;
} TableOptions;

/* called by the library's relcache callback (catalog.c) */
extern void table_options_relcache_invalidate(Oid relid);

/* The options of a table, a copy in the current memory context. */
extern TableOptions *table_options(Oid relid);

/* A table was dropped (its catalog rows are gone): its options go. */
extern void table_options_forget(Oid relid);

/* Refuse the state DDL left when an option's column is gone (an error). */
extern void table_options_check(Oid relid);

/*
 * "the item has not expired" as a boolean SQL expression over the table
 * (alias.column, or the bare column when alias is NULL), every name
 * qualified; "true" without an expiry column.
 */
extern char *table_options_live_sql(const TableOptions *o, const char *alias);

/* Has an item with this expiry value expired (now() of the transaction)? */
extern bool table_options_expired(const TableOptions *o, Datum v, bool isnull);

#endif							/* ADJLIST_TABLE_OPTIONS_H */
