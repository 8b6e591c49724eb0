/*-------------------------------------------------------------------------
 *
 * compat.h
 *	  Everything that differs between PostgreSQL server versions, in one place.
 *
 * adjlist is built and tested against PostgreSQL 15.  Code elsewhere uses
 * only the macros below, never a PG_VERSION_NUM test of its own, so porting
 * to another major version means editing this file alone.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_COMPAT_H
#define ADJLIST_COMPAT_H

#include "postgres.h"
#include "fmgr.h"

#if PG_VERSION_NUM < 150000
#error "adjlist requires PostgreSQL 15 or later"
#endif

/*
 * Soft errors in input functions.  PostgreSQL 16 added an error-saving
 * context (fcinfo->context) so that pg_input_is_valid() and COPY ... ON_ERROR
 * can ask an input function to report a bad value without throwing.  On
 * older servers ADJLIST_INPUT_ERROR throws, exactly like ereport(ERROR).
 *
 * Usage: ADJLIST_INPUT_ERROR(escontext, return_value, errcode(...), errmsg(...))
 */
#if PG_VERSION_NUM >= 160000
#include "nodes/miscnodes.h"
#define ADJLIST_ESCONTEXT(fcinfo)	((fcinfo)->context)
#define ADJLIST_INPUT_ERROR(escontext, retval, ...) \
	ereturn((escontext), (retval), __VA_ARGS__)
#else
#define ADJLIST_ESCONTEXT(fcinfo)	((Node *) NULL)
#define ADJLIST_INPUT_ERROR(escontext, retval, ...) \
	do { \
		(void) (escontext); \
		ereport(ERROR, __VA_ARGS__); \
		return (retval); \
	} while (0)
#endif

#endif							/* ADJLIST_COMPAT_H */
