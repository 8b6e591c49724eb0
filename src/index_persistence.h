/*-------------------------------------------------------------------------
 *
 * index_persistence.h
 *	  Index and counter tables have their base table's persistence
 *	  (index_persistence.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_INDEX_PERSISTENCE_H
#define ADJLIST_INDEX_PERSISTENCE_H

#include "postgres.h"

/*
 * The persistence (RELPERSISTENCE_*) of the index and counter tables of
 * base: its own, logged for a partitioned table.
 */
extern char index_persistence(Oid base);

/* create_inverted_index(): refuse a partitioned base with an unlogged partition. */
extern void persistence_check_base(Oid base);

/* existing => true: refuse an index table of another persistence. */
extern void persistence_check_adopted(Oid base, Oid idx);

/*
 * ALTER TABLE relid SET LOGGED (to_logged) or SET UNLOGGED, before it runs:
 * refused for an index or counter table (or partition of one) when it
 * would leave the base table's persistence, and SET UNLOGGED for a
 * partition of a base table.
 */
extern void persistence_check_alter(Oid relid, bool to_logged);

/* part becomes a partition of base: refuse it if it is (or has) an unlogged one. */
extern void persistence_check_member(Oid base, Oid part);

/* After ALTER TABLE base SET (UN)LOGGED: its index and counter tables follow. */
extern void persistence_follow(Oid base);

#endif							/* ADJLIST_INDEX_PERSISTENCE_H */
