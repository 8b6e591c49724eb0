/*-------------------------------------------------------------------------
 *
 * graph_scan.h
 *	  The two ways graph_reader.c reads edges: straight from a btree
 *	  (graph_scan_direct.c; a level's edges of one prefix by one pass over
 *	  the inverted index, graph_scan_prefix.c) or through SQL
 *	  (graph_scan_spi.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ADJLIST_GRAPH_SCAN_H
#define ADJLIST_GRAPH_SCAN_H

#include "graph.h"

/* graph_scan_direct.c */
typedef struct DirectReader DirectReader;

extern DirectReader *direct_reader_create(GraphTable *g, MemoryContext cxt);
extern int64 direct_scan(DirectReader *r, const GraphScan *req, const char *part,
						 int partlen, GraphEdgeCallback cb, void *arg);
typedef struct DirectStream DirectStream;

extern DirectStream *direct_stream_begin(DirectReader *r, const GraphScan *req,
										 const char *part, int partlen);
extern bool direct_stream_next(DirectStream *s, GraphEdge *edge);
extern void direct_stream_end(DirectStream *s);
extern bool direct_level_pass(DirectReader *r, const GraphScan *tmpl, int n);
extern int64 direct_scan_level(DirectReader *r, const GraphScan *tmpl, const char **parts,
							   const int *lens, const int *origins, int n,
							   GraphEdgeCallback cb, void *arg);
extern void direct_reader_close(DirectReader *r);

/* graph_scan_prefix.c */
extern bool direct_prefix_pass(DirectReader *r, const GraphScan *tmpl, int n, double per_node);
extern int64 direct_scan_prefix(DirectReader *r, const GraphScan *tmpl, const char **nodes,
								const int *lens, int n, NodeSet *known, GraphEdgeCallback cb,
								void *arg);

/* graph_scan_spi.c */
extern int64 spi_scan(GraphTable *g, const GraphScan *req, const char *part, int partlen,
					  bool rls, GraphEdgeCallback cb, void *arg);
extern void spi_scan_level(GraphTable *g, const GraphScan *tmpl, const char **parts,
						   const int *lens, int n, bool rls, GraphEdgeCallback cb, void *arg);

#endif							/* ADJLIST_GRAPH_SCAN_H */
