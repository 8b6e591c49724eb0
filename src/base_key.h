/*-------------------------------------------------------------------------
 *
 * base_key.h
 *	  The base key of an inverted index stays unique (base_key.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_BASE_KEY_H
#define ADJLIST_BASE_KEY_H

#include "postgres.h"

#include "nodes/pg_list.h"

/* The unique index of relid on (some of) cols, an immediate one first. */
extern Oid	base_key_index(Oid relid, char *const *cols, int n, bool *deferrable,
						   bool *deferred);

/* Error (42P10) unless base has such a key (or its shards keep one). */
extern void base_key_require(Oid base, char *const *cols, int n, bool *deferrable,
							 bool *deferred);

/* Before DROP INDEX of the indexes in dropping, of table base. */
extern void base_key_check_drop(Oid base, List *dropping);

/* After ALTER TABLE of relid: refuse if, a base table, it lost its key. */
extern void base_key_check_base(Oid relid);

/* After an index of schema nsp was dropped: refuse if a base lost its key. */
extern void base_key_check_schema(Oid nsp);

#endif							/* ADJLIST_BASE_KEY_H */
