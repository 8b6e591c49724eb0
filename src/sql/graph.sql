-- adjlist install and update script, part: graph queries (CREATE OR REPLACE)

-- =====================================================================
-- Graph queries
-- =====================================================================

-- The planner's row estimates of the set-returning graph functions, from
-- the statistics of their table (graph_estimate.c).
CREATE OR REPLACE FUNCTION adjlist_graph_rows(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'adjlist_graph_rows'
	LANGUAGE C STRICT;
COMMENT ON FUNCTION adjlist_graph_rows(internal) IS
	'planner support: how many rows a graph function returns, from the table''s statistics';

-- Edge conventions (README "Edges and nodes"): by default an edge's sort
-- key is edge_prefix followed by the target's key ('FOLLOWS#' + 'USER#bob');
-- target_prefix is prepended to what follows the edge prefix ('FRIEND#Bob'
-- with target_prefix 'USER#' -> 'USER#Bob'); sk_is_target says the sort
-- key is the target itself (pk = USER#alice, sk = USER#bob).
--
-- edge_filter, the last argument of each: only edges whose data contains
-- it (jsonb @>) are followed, counted or returned; NULL, every edge.  It
-- came last in 0.3, so positional calls of 0.2 keep their meaning; the
-- update script drops the 0.2 signatures first (and carries their
-- privileges over), since CREATE OR REPLACE cannot change arguments.
-- neighbors and reverse_neighbors end with exclusive_start_key, their
-- cursor: the last row's key as jsonb, as query() takes it (after, the
-- last sk or source alone, is its alias).

CREATE OR REPLACE FUNCTION neighbors(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_neighbors'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) IS
	'out-edges of a node in sort-key order, with keyset pagination (exclusive_start_key = the last row''s key {pk, sk}; after = its sk, an alias); only those whose data contains edge_filter';

CREATE OR REPLACE FUNCTION reverse_neighbors(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_reverse_neighbors'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION reverse_neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) IS
	'in-edges of a node through the inverted index, in source order, with keyset pagination (exclusive_start_key = the last row''s key {pk, sk}; after = its pk, the source, an alias); only those whose data contains edge_filter';

-- The keys-only twins: the same arguments, columns and rows, with data
-- NULL, read from the index only.  The planner calls one in place of
-- neighbors() / reverse_neighbors() in FROM when the query does not read
-- data (graph_columns.c); a twin runs only for a caller who may execute
-- its original.
CREATE OR REPLACE FUNCTION neighbors_keys(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_neighbors_keys'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) IS
	'the rows of neighbors() with data NULL: reads the index only (the planner uses it when a query does not read data)';

CREATE OR REPLACE FUNCTION reverse_neighbors_keys(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_reverse_neighbors_keys'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION reverse_neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) IS
	'the rows of reverse_neighbors() with data NULL: reads the inverted index only (the planner uses it when a query does not read data)';

-- The node-only twins: the same rows with only the neighbor column (pk, sk
-- and data NULL), for a query that reads no other column of the call
-- (SELECT neighbor ..., count(*)): no key but the neighbor's is copied into
-- a row.
CREATE OR REPLACE FUNCTION neighbors_nodes(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_neighbors_nodes'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) IS
	'the rows of neighbors() with pk, sk and data NULL: reads the index only (the planner uses it when a query reads only neighbor)';

CREATE OR REPLACE FUNCTION reverse_neighbors_nodes(
	tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_reverse_neighbors_nodes'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION reverse_neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) IS
	'the rows of reverse_neighbors() with pk, sk and data NULL: reads the inverted index only (the planner uses it when a query reads only neighbor)';

CREATE OR REPLACE FUNCTION degree(
	tbl regclass, node adjkey, edge_prefix text, direction text DEFAULT 'out',
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_degree'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION degree(regclass, adjkey, text, text, text, boolean, jsonb) IS
	'number of out- or in-edges of a node with an edge prefix (whose data contains edge_filter)';

CREATE OR REPLACE FUNCTION has_edge(
	tbl regclass, from_node adjkey, to_node adjkey, edge_prefix text,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS boolean
	AS 'MODULE_PATHNAME', 'adjlist_has_edge'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION has_edge(regclass, adjkey, adjkey, text, text, boolean, jsonb) IS
	'does the edge from_node -> to_node exist (one point lookup; and does its data contain edge_filter)';

CREATE OR REPLACE FUNCTION traverse(
	tbl regclass, start adjkey, edge_prefix text, max_depth integer DEFAULT 3,
	direction text DEFAULT 'out', lim bigint DEFAULT NULL, with_path boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS TABLE (node adjkey, depth integer, path adjkey[])
	AS 'MODULE_PATHNAME', 'adjlist_traverse'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 1000
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION traverse(regclass, adjkey, text, integer, text, bigint, boolean, text, boolean, jsonb) IS
	'breadth-first search: every node reachable within max_depth, once, with its depth (and path), following the edges whose data contains edge_filter';

CREATE OR REPLACE FUNCTION reachable_count(
	tbl regclass, start adjkey, edge_prefix text, max_depth integer DEFAULT 3,
	direction text DEFAULT 'out', target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_reachable_count'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION reachable_count(regclass, adjkey, text, integer, text, text, boolean, jsonb) IS
	'number of distinct nodes reachable within max_depth (not counting the start), following the edges whose data contains edge_filter';

CREATE OR REPLACE FUNCTION shortest_path(
	tbl regclass, from_node adjkey, to_node adjkey, edge_prefix text,
	max_depth integer DEFAULT 6, direction text DEFAULT 'out',
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS adjkey[]
	AS 'MODULE_PATHNAME', 'adjlist_shortest_path'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION shortest_path(regclass, adjkey, adjkey, text, integer, text, text, boolean, jsonb) IS
	'a shortest path by bidirectional BFS (base table forward, inverted index backward) over the edges whose data contains edge_filter, NULL if none within max_depth';

-- Dijkstra over the number data->>weight of each edge (graph_weighted.c):
-- weights must be numbers >= 0 (22023 otherwise, naming the edge); no row
-- when to_node is not reachable (within max_cost).
CREATE OR REPLACE FUNCTION shortest_path_weighted(
	tbl regclass, from_node adjkey, to_node adjkey, edge_prefix text,
	weight text DEFAULT 'weight', direction text DEFAULT 'out',
	max_cost double precision DEFAULT NULL,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS TABLE (path adjkey[], cost double precision)
	AS 'MODULE_PATHNAME', 'adjlist_shortest_path_weighted'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 1;
COMMENT ON FUNCTION shortest_path_weighted(regclass, adjkey, adjkey, text, text, text, double precision, text, boolean, jsonb) IS
	'a cheapest path by Dijkstra''s algorithm, the cost of an edge being the number in its data''s member weight; no row if none (within max_cost)';

CREATE OR REPLACE FUNCTION common_neighbors(
	tbl regclass, a adjkey, b adjkey, edge_prefix text, direction text DEFAULT 'out',
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS SETOF adjkey
	AS 'MODULE_PATHNAME', 'adjlist_common_neighbors'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION common_neighbors(regclass, adjkey, adjkey, text, text, text, boolean, jsonb) IS
	'nodes that are neighbors of both a and b (mutual friends), in key order, through edges whose data contains edge_filter';

CREATE OR REPLACE FUNCTION walk_ranked(
	tbl regclass, start adjkey, edge_prefixes text[], directions text[],
	exclude_first_hop boolean DEFAULT true, lim bigint DEFAULT NULL,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL)
RETURNS TABLE (node adjkey, score bigint)
	AS 'MODULE_PATHNAME', 'adjlist_walk_ranked'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION walk_ranked(regclass, adjkey, text[], text[], boolean, bigint, text, boolean, jsonb) IS
	'two- or three-hop walk over edges whose data contains edge_filter; nodes at the last hop ranked by how many walks reach them';

CREATE OR REPLACE FUNCTION people_you_may_know(
	tbl regclass, node adjkey, edge_prefix text DEFAULT 'FRIEND#', lim bigint DEFAULT 10)
RETURNS TABLE (node adjkey, score bigint)
	LANGUAGE sql STABLE PARALLEL RESTRICTED
	AS $$
	SELECT w.node, w.score
	FROM @extschema@.walk_ranked(tbl, node, ARRAY[edge_prefix, edge_prefix],
								 ARRAY['out', 'out'], true, lim) w
$$;
COMMENT ON FUNCTION people_you_may_know(regclass, adjkey, text, bigint) IS
	'friends of friends ranked by the number of mutual friends, without existing friends and the user';

CREATE OR REPLACE FUNCTION also_liked(
	tbl regclass, node adjkey, edge_prefix text DEFAULT 'LIKES#', lim bigint DEFAULT 10)
RETURNS TABLE (node adjkey, score bigint)
	LANGUAGE sql STABLE PARALLEL RESTRICTED
	AS $$
	SELECT w.node, w.score
	FROM @extschema@.walk_ranked(tbl, node, ARRAY[edge_prefix, edge_prefix, edge_prefix],
								 ARRAY['out', 'in', 'out'], true, lim) w
$$;
COMMENT ON FUNCTION also_liked(regclass, adjkey, text, bigint) IS
	'what users who liked what this user liked also liked, ranked, without what the user already likes';

CREATE OR REPLACE FUNCTION related_items(
	tbl regclass, item adjkey, edge_prefix text DEFAULT 'TAGGED#', lim bigint DEFAULT 10)
RETURNS TABLE (node adjkey, score bigint)
	LANGUAGE sql STABLE PARALLEL RESTRICTED
	AS $$
	SELECT w.node, w.score
	FROM @extschema@.walk_ranked(tbl, item, ARRAY[edge_prefix, edge_prefix],
								 ARRAY['out', 'in'], false, lim) w
$$;
COMMENT ON FUNCTION related_items(regclass, adjkey, text, bigint) IS
	'items ranked by the number of tags they share with an item';

CREATE OR REPLACE FUNCTION adjlist_export(
	tbl regclass, node adjkey, edge_prefix text, depth integer, direction text,
	format text, target_prefix text, sk_is_target boolean)
RETURNS text
	AS 'MODULE_PATHNAME', 'adjlist_export'
	LANGUAGE C STABLE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION adjlist_export(regclass, adjkey, text, integer, text, text, text, boolean) IS
	'internal: a neighbourhood as Graphviz DOT or Mermaid text';

CREATE OR REPLACE FUNCTION to_dot(
	tbl regclass, node adjkey, edge_prefix text, depth integer DEFAULT 1,
	direction text DEFAULT 'both', target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $$ SELECT @extschema@.adjlist_export(tbl, node, edge_prefix, depth, direction, 'dot',
										   target_prefix, sk_is_target) $$;
COMMENT ON FUNCTION to_dot(regclass, adjkey, text, integer, text, text, boolean) IS
	'the neighbourhood of a node as a Graphviz DOT digraph';

CREATE OR REPLACE FUNCTION to_mermaid(
	tbl regclass, node adjkey, edge_prefix text, depth integer DEFAULT 1,
	direction text DEFAULT 'both', target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false)
RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $$ SELECT @extschema@.adjlist_export(tbl, node, edge_prefix, depth, direction, 'mermaid',
										   target_prefix, sk_is_target) $$;
COMMENT ON FUNCTION to_mermaid(regclass, adjkey, text, integer, text, text, boolean) IS
	'the neighbourhood of a node as a Mermaid flowchart';

-- ---------------------------------------------------------------------
-- query: DynamoDB's Query on a table or an inverted index
-- ---------------------------------------------------------------------

CREATE OR REPLACE FUNCTION query(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL,
	backward boolean DEFAULT false, lim bigint DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (partition_key adjkey, sort_key adjkey, key jsonb, item jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_query'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION query(regclass, adjkey, text, text, text, boolean, bigint, jsonb) IS
	'DynamoDB Query: one partition, an optional sort-key condition, order, limit, exclusive start key';

CREATE OR REPLACE FUNCTION explain_query(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL,
	backward boolean DEFAULT false, lim bigint DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS SETOF text
	AS 'MODULE_PATHNAME', 'adjlist_explain_query'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION explain_query(regclass, adjkey, text, text, text, boolean, bigint, jsonb) IS
	'the plan (EXPLAIN, COSTS OFF) of the statement query() runs for these arguments';

CREATE OR REPLACE FUNCTION query_count(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL,
	backward boolean DEFAULT false, lim bigint DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS bigint
	AS 'MODULE_PATHNAME', 'adjlist_query_count'
	LANGUAGE C STABLE PARALLEL RESTRICTED;
COMMENT ON FUNCTION query_count(regclass, adjkey, text, text, text, boolean, bigint, jsonb) IS
	'DynamoDB Query with Select COUNT: the number of matching items (with lim, of one page; query_count_page also gives the last evaluated key)';

CREATE OR REPLACE FUNCTION query_count_page(
	tbl regclass, partition_value adjkey,
	sort_op text DEFAULT NULL, sort_value text DEFAULT NULL, sort_value2 text DEFAULT NULL,
	backward boolean DEFAULT false, lim bigint DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (count bigint, last_evaluated_key jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_query_count_page'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 1;
COMMENT ON FUNCTION query_count_page(regclass, adjkey, text, text, text, boolean, bigint, jsonb) IS
	'DynamoDB Query with Select COUNT, one page: the count and the last evaluated key (null when the range ended)';

-- ---------------------------------------------------------------------
-- batch_get: DynamoDB's BatchGetItem
-- ---------------------------------------------------------------------

CREATE OR REPLACE FUNCTION batch_get(tbl regclass, keys jsonb)
RETURNS TABLE (pk adjkey, sk adjkey, data jsonb)
	AS 'MODULE_PATHNAME', 'adjlist_batch_get'
	LANGUAGE C STABLE PARALLEL RESTRICTED ROWS 100
	SUPPORT adjlist_graph_rows;
COMMENT ON FUNCTION batch_get(regclass, jsonb) IS
	'DynamoDB BatchGetItem: the items of up to 100 {"pk", "sk"} keys, in request order, missing ones omitted';
