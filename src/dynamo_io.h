/*-------------------------------------------------------------------------
 *
 * dynamo_io.h
 *	  DynamoDB JSON import and export (dynamo_io.c), and what it borrows
 *	  from the write API (write_api.c) and the Query reader
 *	  (graph_dynamo_query.c); and the write API's sweep of expired items
 *	  (DynamoDB's TTL) on Citus, for sweep_expired().
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_DYNAMO_IO_H
#define ADJLIST_DYNAMO_IO_H

#include "postgres.h"

/* write_api.c: a table as the write API writes it */
typedef struct ApiTable ApiTable;

/*
 * The write API's view of relid: its indexes (the table may have none, then
 * its primary key must be two adjkey columns), its key columns and its
 * payload column (the jsonb column of an item's attributes: "data" unless
 * set_payload_column() names another; NULL when the table has none).
 */
extern ApiTable *adjlist_api_table(Oid relid);
extern const char *adjlist_api_key_name(ApiTable *t, int i);	/* 0 pk, 1 sk */
extern const char *adjlist_api_payload(ApiTable *t);

/*
 * The expiry column (set_ttl) the puts of adjlist_api_put() write from the
 * items' expiries, and its type; NULL when the table has none.
 */
extern const char *adjlist_api_ttl(ApiTable *t, Oid *type);

/*
 * put_edges() of arrays of keys (adjkey[]) and payloads (jsonb[]) in one
 * statement, indexes and counters included; the last of a repeated key
 * wins.  ttls: the items' expiries, an array of the expiry column's type
 * (adjlist_api_ttl()), or (Datum) 0 when the table has none.  Returns the
 * rows written.
 */
extern int64 adjlist_api_put(ApiTable *t, Datum pks, Datum sks, Datum datas, Datum ttls);

/*
 * sweep_expired() of a Citus table, or of a table that no trigger keeps
 * (table_options.c): delete up to lim
 * expired items with their index rows, each one only if it has still
 * expired when it is deleted, and none that another transaction holds
 * (SKIP LOCKED); returns how many.
 */
extern int64 adjlist_api_sweep(Oid relid, int32 lim);
/* and whether a local table needs it: indexes that no trigger keeps */
extern bool adjlist_api_unkept(Oid relid);
extern void adjlist_api_relcache_invalidate(Oid relid);

/*
 * graph_dynamo_query.c: the item key of a table (two adjkey key columns,
 * partition then sort), its payload column (quoted; NULL: none), and whether
 * it is a registered index table; whether adjlist keeps its keys within
 * DynamoDB's limits (*limited, unless NULL); an error when its key is not two
 * columns or the caller may read nothing of it.
 */
extern void adjlist_item_table(Oid relid, char **keycols, char **payload, bool *is_index,
							   bool *limited, char **live);
/* and its expiry column (set_ttl) and the column's type, or NULL: none */
extern char *adjlist_item_ttl(Oid relid, Oid *type);

#endif							/* ADJLIST_DYNAMO_IO_H */
