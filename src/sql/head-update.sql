/* adjlist 0.2 -> 0.3.  Assembled by the Makefile from src/sql/ (head-update,
 * update--0.2--0.3-pre, bounds, index, access, events, graph, write_api,
 * update--0.2--0.3-post): the parts shared with the install script create
 * or replace. */

\echo Use "ALTER EXTENSION adjlist UPDATE TO '0.3'" to load this file. \quit

