/*-------------------------------------------------------------------------
 *
 * detach_pending.h
 *	  Partitions whose DETACH ... CONCURRENTLY is pending cannot join an
 *	  inverted index (detach_pending.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_DETACH_PENDING_H
#define ADJLIST_DETACH_PENDING_H

#include "postgres.h"

/*
 * Refuse (55000) the action described by action ("create an inverted index
 * of table \"g\"", for "cannot %s ...") when relid has a partition, at any
 * depth, whose detach is pending.  The caller holds a lock on relid and its
 * partitions that DETACH ... CONCURRENTLY conflicts with.
 */
extern void detach_pending_refuse(Oid relid, const char *action);

#endif							/* ADJLIST_DETACH_PENDING_H */
