/*-------------------------------------------------------------------------
 *
 * write_shard.h
 *	  Write sharding of index partitions (write_shard.c): which of an
 *	  index partition's N shards a source key goes to, and the shard's key.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_WRITE_SHARD_H
#define ADJLIST_WRITE_SHARD_H

#include "postgres.h"

#define WRITE_SHARDS_MAX		256

extern int	write_shard_of(const char *src, int len, int nshards);
extern struct varlena *write_shard_key(const char *part, int len, int shard);
extern Datum write_shard_row_key(Datum partition, Datum source, int nshards);
extern int	write_shard_row_key_len(Datum partition, Datum source, int nshards);
extern bool write_shard_row_key_fits(Datum partition, Datum source, int nshards);

#endif							/* ADJLIST_WRITE_SHARD_H */
