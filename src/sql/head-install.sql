/* adjlist: DynamoDB-style adjacency lists.  Assembled by the Makefile from
 * src/sql/ (head-install, type, bounds, registry, index, access, events,
 * graph, write_api). */

\echo Use "CREATE EXTENSION adjlist" to load this file. \quit

