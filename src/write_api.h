/*-------------------------------------------------------------------------
 *
 * write_api.h
 *	  The write API (put_edge and friends): what other modules ask of it.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_WRITE_API_H
#define ADJLIST_WRITE_API_H

/* Is the current statement run by the write API? (adjlist_api_guard) */
extern bool adjlist_in_write_api(void);

#endif							/* ADJLIST_WRITE_API_H */
