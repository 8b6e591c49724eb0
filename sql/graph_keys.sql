--
-- Keys-only one-hop reads (graph_columns.c): a call of neighbors() or
-- reverse_neighbors() in FROM whose data column the query does not read
-- is planned as neighbors_keys() / reverse_neighbors_keys(), the same rows
-- with data NULL, read from the index only; one of which the query reads
-- only the neighbor column (or none) as neighbors_nodes() /
-- reverse_neighbors_nodes(), whose rows have pk and sk NULL too.  Every
-- query that reads data, or might (a whole row, a subquery, a view's
-- SELECT *, an ambiguous call), keeps the original; either way the query
-- returns what it returned before.
--
SET client_min_messages = warning;
CREATE SCHEMA keys;
SET search_path = keys, public;

CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO g SELECT 'USER#1', 'FOLLOWS#USER#' || i, jsonb_build_object('x', i, 'k', i % 2 = 0)
FROM generate_series(1, 6) i;
INSERT INTO g SELECT 'USER#' || i, 'FOLLOWS#USER#1', jsonb_build_object('y', i)
FROM generate_series(2, 5) i;
INSERT INTO g VALUES ('USER#2', 'LIKES#POST#1', '{"z": 1}');
SELECT create_inverted_index('g', include => '{data}');
VACUUM (FREEZE, ANALYZE) g;
VACUUM (FREEZE, ANALYZE) g_inverted;

-- the one-hop functions the plan of q calls (in FROM or in a select list)
CREATE FUNCTION scans(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	l text;
	found text[] := '{}';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP
		IF l ~ '(Function Call|Output): ' THEN
			found := found || ARRAY(SELECT m[1] FROM regexp_matches(l, '(\w*neighbors\w*)\(', 'g') m);
		END IF;
	END LOOP;
	RETURN array_to_string(found, ', ');
END $$;

-- 1. The plans: node-only when only neighbor is read, keys-only when data
-- is not read, the original when it is.
EXPLAIN (VERBOSE, COSTS OFF) SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#');
EXPLAIN (VERBOSE, COSTS OFF) SELECT neighbor, sk FROM neighbors('g', 'USER#1', 'FOLLOWS#');
EXPLAIN (VERBOSE, COSTS OFF) SELECT neighbor, data FROM neighbors('g', 'USER#1', 'FOLLOWS#');
EXPLAIN (VERBOSE, COSTS OFF) SELECT pk FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#');
EXPLAIN (VERBOSE, COSTS OFF) SELECT pk, data FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#');

CREATE VIEW v_all AS SELECT * FROM neighbors('g', 'USER#1', 'FOLLOWS#');
CREATE VIEW v_keys AS SELECT neighbor, sk FROM neighbors('g', 'USER#1', 'FOLLOWS#');
CREATE TABLE side (k text PRIMARY KEY, v text);
INSERT INTO side SELECT 'USER#' || i, NULL FROM generate_series(1, 6) i;

-- twin: the twin a call of the query becomes ('nodes' when one call is
-- node-only, else 'keys' when one is keys-only); '' when every call keeps
-- the original (reads data, or might: a view or subquery that selects
-- data is planned before its outer query)
CREATE TABLE shapes (n int, q text, twin text);
INSERT INTO shapes VALUES
	(1, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$, 'nodes'),
	(2, $$SELECT neighbor, pk, sk FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$, 'keys'),
	(3, $$SELECT count(*) FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$, 'nodes'),
	(4, $$SELECT count(*) FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#')$$, 'nodes'),
	(5, $$SELECT * FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$, ''),
	(6, $$SELECT n FROM neighbors('g', 'USER#1', 'FOLLOWS#') n$$, ''),
	(7, $$SELECT row_to_json(n) FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#') n$$, ''),
	(8, $$SELECT n.* FROM neighbors('g', 'USER#1', 'FOLLOWS#') n$$, ''),
	(9, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') ORDER BY data->>'x' DESC$$, ''),
	(10, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') WHERE data ? 'x'$$, ''),
	(11, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') WHERE (data->>'k')::boolean$$, ''),
	(12, $$SELECT neighbor, e.key FROM neighbors('g', 'USER#1', 'FOLLOWS#') n, LATERAL jsonb_each(n.data) e$$, ''),
	(13, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') n WHERE EXISTS (SELECT 1 WHERE n.data->>'x' = '3')$$, ''),
	(14, $$SELECT neighbor, (SELECT n.data->>'x') FROM neighbors('g', 'USER#1', 'FOLLOWS#') n$$, ''),
	(15, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') n WHERE neighbor IN (SELECT k FROM side WHERE n.data->>'x' = '2')$$, ''),
	(16, $$SELECT neighbor, s.x FROM neighbors('g', 'USER#1', 'FOLLOWS#') n, LATERAL (SELECT n.data->>'x' AS x) s$$, ''),
	(17, $$SELECT x.data FROM (neighbors('g', 'USER#1', 'FOLLOWS#') n CROSS JOIN (VALUES (1)) v(one)) AS x$$, ''),
	(18, $$SELECT x FROM (neighbors('g', 'USER#1', 'FOLLOWS#') n CROSS JOIN (VALUES (1)) v(one)) AS x$$, ''),
	(19, $$SELECT x.neighbor FROM (neighbors('g', 'USER#1', 'FOLLOWS#') n CROSS JOIN (VALUES (1)) v(one)) AS x$$, 'nodes'),
	(20, $$SELECT n.neighbor, s.k FROM neighbors('g', 'USER#1', 'FOLLOWS#') n JOIN side s ON s.k = n.neighbor::text$$, 'nodes'),
	(21, $$SELECT neighbor FROM v_all$$, ''),
	(22, $$SELECT data FROM v_all$$, ''),
	(23, $$SELECT neighbor FROM v_keys$$, 'keys'),
	(24, $$WITH c AS MATERIALIZED (SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#')) SELECT * FROM c$$, 'nodes'),
	(25, $$WITH c AS (SELECT neighbor, data FROM neighbors('g', 'USER#1', 'FOLLOWS#')) SELECT c.data->>'x' FROM c$$, ''),
	(26, $$SELECT * FROM ROWS FROM (neighbors('g', 'USER#1', 'FOLLOWS#'), generate_series(1, 2)) r(a, b, c, d, e)$$, ''),
	(27, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') WITH ORDINALITY$$, ''),
	(28, $$SELECT (neighbors('g', 'USER#1', 'FOLLOWS#')).data$$, ''),
	(29, $$SELECT n.neighbor, (neighbors('g', 'USER#1', 'FOLLOWS#')).data FROM neighbors('g', 'USER#1', 'FOLLOWS#') n$$, ''),
	(30, $$SELECT a.neighbor, b.data FROM neighbors('g', 'USER#1', 'FOLLOWS#') a JOIN neighbors('g', 'USER#1', 'FOLLOWS#') b USING (neighbor)$$, ''),
	(31, $$SELECT a.neighbor, b.data FROM neighbors('g', 'USER#1', 'FOLLOWS#', lim => 3) a JOIN reverse_neighbors('g', 'USER#1', 'FOLLOWS#') b ON b.neighbor = a.neighbor$$, 'nodes'),
	(32, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') UNION ALL SELECT neighbor FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#')$$, 'nodes'),
	(33, $$SELECT neighbor FROM (SELECT * FROM neighbors('g', 'USER#1', 'FOLLOWS#') UNION ALL SELECT * FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#')) u$$, ''),
	(34, $$SELECT neighbor FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#', edge_filter => '{"y": 3}')$$, 'nodes'),
	(35, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#', edge_filter => '{"k": true}', lim => 2)$$, 'nodes'),
	(36, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#', lim => 2, exclusive_start_key => '{"pk": "USER#1", "sk": "FOLLOWS#USER#2"}')$$, 'nodes'),
	(37, $$SELECT neighbor FROM neighbors(node => 'USER#1', edge_prefix => 'FOLLOWS#', tbl => 'g', backward => true)$$, 'nodes'),
	(38, $$SELECT neighbor, data FROM neighbors('g', 'USER#1', 'FOLLOWS#', edge_filter => '{"k": true}')$$, ''),
	(39, $$SELECT g.pk, n.neighbor FROM g, LATERAL neighbors('g', g.pk, 'FOLLOWS#') n WHERE g.sk = 'FOLLOWS#USER#1'$$, 'nodes'),
	(40, $$SELECT g.pk, n.data FROM g, LATERAL neighbors('g', g.pk, 'FOLLOWS#') n WHERE g.sk = 'FOLLOWS#USER#1'$$, ''),
	(41, $$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#') GROUP BY neighbor, data$$, ''),
	(42, $$SELECT neighbor, count(*) OVER (PARTITION BY data->>'k') FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$, '');

-- the plan of each shape
SELECT n, scans(q), twin,
	   CASE twin WHEN 'nodes' THEN scans(q) ~ '_nodes'
				 WHEN 'keys' THEN scans(q) ~ '_keys' AND scans(q) !~ '_nodes'
				 ELSE scans(q) !~ '_(keys|nodes)' END AS as_expected
FROM shapes ORDER BY n;

-- 2. The same rows as before: each shape run by a role that may execute
-- the keys-only functions, and again by the role once it may not (the
-- planner then keeps the originals).
CREATE ROLE regress_keys_reader;
GRANT USAGE ON SCHEMA keys TO regress_keys_reader;
GRANT SELECT ON g, g_inverted, side, v_all, v_keys, shapes TO regress_keys_reader;
CREATE FUNCTION rows_of(q text) RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	r text[];
BEGIN
	EXECUTE format('SELECT array_agg(t::text ORDER BY t::text) FROM (%s) t', q) INTO r;
	RETURN r;
END $$;
CREATE TABLE results (n int, twins_allowed boolean, plan text, r text[]);
GRANT INSERT ON results TO regress_keys_reader;
SET ROLE regress_keys_reader;
INSERT INTO results SELECT n, true, scans(q), rows_of(q) FROM shapes;
RESET ROLE;
REVOKE EXECUTE ON FUNCTION neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb),
	reverse_neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb),
	neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb),
	reverse_neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) FROM PUBLIC;
SET ROLE regress_keys_reader;
INSERT INTO results SELECT n, false, scans(q), rows_of(q) FROM shapes;
RESET ROLE;
GRANT EXECUTE ON FUNCTION neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb),
	reverse_neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb),
	neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb),
	reverse_neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) TO PUBLIC;
SELECT a.n, a.plan, b.plan AS plan_without_twins, cardinality(a.r) AS rows,
	   a.r IS NOT DISTINCT FROM b.r AS same_rows
FROM results a JOIN results b ON b.n = a.n AND NOT b.twins_allowed
WHERE a.twins_allowed ORDER BY a.n;
-- and what a keys-only function returns: data NULL, the same keys; a
-- node-only function: the same neighbors, pk and sk NULL too
SELECT * FROM neighbors_keys('g', 'USER#1', 'FOLLOWS#');
SELECT * FROM reverse_neighbors_keys('g', 'USER#1', 'FOLLOWS#', edge_filter => '{"y": 4}');
SELECT * FROM neighbors_nodes('g', 'USER#1', 'FOLLOWS#', lim => 3, backward => true);
SELECT * FROM reverse_neighbors_nodes('g', 'USER#1', 'FOLLOWS#', edge_filter => '{"y": 4}');

-- 3. Writes: RETURNING and MERGE read data through the call's columns.
EXPLAIN (VERBOSE, COSTS OFF)
UPDATE side s SET v = n.sk::text FROM neighbors('g', 'USER#1', 'FOLLOWS#') n
WHERE s.k = n.neighbor::text RETURNING s.k, n.data;
UPDATE side s SET v = n.sk::text FROM neighbors('g', 'USER#1', 'FOLLOWS#') n
WHERE s.k = n.neighbor::text RETURNING s.k, n.data;
SELECT scans($$UPDATE side s SET v = n.sk::text FROM neighbors('g', 'USER#1', 'FOLLOWS#') n
WHERE s.k = n.neighbor::text RETURNING s.k$$);
SELECT scans($$UPDATE side s SET v = n.data::text FROM neighbors('g', 'USER#1', 'FOLLOWS#') n
WHERE s.k = n.neighbor::text$$);
SELECT scans($$MERGE INTO side s USING neighbors('g', 'USER#1', 'FOLLOWS#') n ON s.k = n.neighbor::text
WHEN MATCHED THEN UPDATE SET v = n.data->>'x'$$);
SELECT scans($$MERGE INTO side s USING neighbors('g', 'USER#1', 'FOLLOWS#') n ON s.k = n.neighbor::text
WHEN MATCHED THEN UPDATE SET v = n.sk::text$$);
MERGE INTO side s USING neighbors('g', 'USER#1', 'FOLLOWS#') n ON s.k = n.neighbor::text
WHEN MATCHED THEN UPDATE SET v = n.data->>'x';
SELECT * FROM side ORDER BY k;

-- 4. Parameters: prepared statements (custom and generic plans), PL/pgSQL.
PREPARE p(adjkey) AS SELECT neighbor FROM reverse_neighbors('g', $1, 'FOLLOWS#');
PREPARE pd(adjkey) AS SELECT neighbor, data FROM reverse_neighbors('g', $1, 'FOLLOWS#');
SET plan_cache_mode = force_custom_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p('USER#1');
EXECUTE p('USER#1');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE p('USER#1');
EXECUTE p('USER#1');
EXPLAIN (VERBOSE, COSTS OFF) EXECUTE pd('USER#1');
EXECUTE pd('USER#1');
RESET plan_cache_mode;
CREATE FUNCTION followers(u adjkey) RETURNS TABLE (f adjkey, d jsonb) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY SELECT neighbor, NULL::jsonb FROM reverse_neighbors('g', u, 'FOLLOWS#');
	RETURN QUERY SELECT neighbor, data FROM reverse_neighbors('g', u, 'FOLLOWS#');
END $$;
SELECT * FROM followers('USER#1');

-- 5. The heap is not read: a frozen table's out-edges with data fetch its
-- heap pages, keys only none (the visibility map's page at most).
CREATE TABLE big (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO big SELECT 'USER#1', 'FOLLOWS#USER#' || i, jsonb_build_object('pad', repeat('x', 400))
FROM generate_series(1, 400) i;
VACUUM (FREEZE, ANALYZE) big;
CREATE FUNCTION heap_blocks() RETURNS bigint LANGUAGE sql AS $$
	SELECT heap_blks_read + heap_blks_hit FROM pg_statio_user_tables WHERE relid = 'keys.big'::regclass
$$;
SELECT pg_stat_force_next_flush();
SELECT heap_blocks() AS b0 \gset
SELECT count(*) FROM neighbors('big', 'USER#1', 'FOLLOWS#');
SELECT pg_stat_force_next_flush();
SELECT heap_blocks() - :b0 <= 2 AS keys_only_reads_no_heap, heap_blocks() AS b1 FROM (SELECT pg_stat_clear_snapshot()) c \gset
SELECT :'keys_only_reads_no_heap' AS keys_only_reads_no_heap;
SELECT count(data) FROM neighbors('big', 'USER#1', 'FOLLOWS#');
SELECT pg_stat_force_next_flush();
SELECT heap_blocks() - :b1 >= 20 AS with_data_reads_heap FROM (SELECT pg_stat_clear_snapshot()) c;

-- 6. Not on the direct path (row-level security: through SPI): the same rows.
ALTER TABLE g ENABLE ROW LEVEL SECURITY;
CREATE POLICY odd ON g FOR SELECT TO regress_keys_reader USING (sk::text NOT LIKE '%2');
SET ROLE regress_keys_reader;
SELECT scans($$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$);
SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT neighbor, data FROM neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#', edge_filter => '{"k": true}');
SELECT count(*) FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT * FROM reverse_neighbors_keys('g', 'USER#1', 'FOLLOWS#');
RESET ROLE;
ALTER TABLE g DISABLE ROW LEVEL SECURITY;

-- 7. Privileges: a twin runs only for who may execute its original; a
-- caller who may not execute the twin is not planned with it.
REVOKE EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) FROM PUBLIC;
SET ROLE regress_keys_reader;
SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT neighbor, sk FROM neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT count(*) FROM neighbors_keys('g', 'USER#1', 'FOLLOWS#');
SELECT count(*) FROM neighbors_nodes('g', 'USER#1', 'FOLLOWS#');
RESET ROLE;
GRANT EXECUTE ON FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) TO PUBLIC;
REVOKE EXECUTE ON FUNCTION neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) FROM PUBLIC;
SET ROLE regress_keys_reader;
SELECT scans($$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$);
SELECT count(*) FROM neighbors('g', 'USER#1', 'FOLLOWS#');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) FROM PUBLIC;
SET ROLE regress_keys_reader;
SELECT scans($$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$);
SELECT count(*) FROM neighbors('g', 'USER#1', 'FOLLOWS#');
RESET ROLE;
GRANT EXECUTE ON FUNCTION neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb),
	neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb) TO PUBLIC;
-- a role that may read pk and sk, not data, reads the rows without data
-- (core asks only for the columns a query names; degree() and traverse()
-- answer the same role); a query that reads data is refused
REVOKE SELECT ON g FROM regress_keys_reader;
GRANT SELECT (pk, sk) ON g TO regress_keys_reader;
SET ROLE regress_keys_reader;
SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT neighbor, sk FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT neighbor, data FROM neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT * FROM neighbors_keys('g', 'USER#1', 'FOLLOWS#', edge_filter => '{"k": true}');
RESET ROLE;

-- The original a twin takes its privileges from is found once per backend
-- and found again when functions change: renamed away, the twin has none.
SELECT count(*) FROM neighbors_nodes('g', 'USER#1', 'FOLLOWS#');
BEGIN;
ALTER FUNCTION neighbors(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb)
	RENAME TO neighbors_renamed;
SELECT count(*) FROM neighbors_nodes('g', 'USER#1', 'FOLLOWS#');
ROLLBACK;
SELECT count(*) FROM neighbors_nodes('g', 'USER#1', 'FOLLOWS#');

-- 8. The row estimate of a keys-only or node-only call is its original's.
CREATE FUNCTION planned_rows(q text) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision;
END $$;
SELECT scans(a) AS a, scans(b) AS b, planned_rows(a) = planned_rows(b) AS same_estimate,
	   planned_rows(a) <> 100 AS from_statistics
FROM (VALUES ($$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$,
			   $$SELECT neighbor, data FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$),
			 ($$SELECT neighbor FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#')$$,
			  $$SELECT neighbor, data FROM reverse_neighbors('g', 'USER#1', 'FOLLOWS#')$$)) q(a, b);

-- A function someone else created under a twin's name (a catalog without
-- the twin, in a schema others may create in) is never called in place of
-- the original: a twin is a C function of the original's owner.
BEGIN;
SET LOCAL client_min_messages = error;
ALTER EXTENSION adjlist DROP FUNCTION neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb);
ALTER EXTENSION adjlist DROP FUNCTION neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb);
DROP FUNCTION neighbors_keys(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb);
DROP FUNCTION neighbors_nodes(regclass, adjkey, text, bigint, adjkey, boolean, text, boolean, jsonb, jsonb);
CREATE ROLE regress_keys_impostor;
GRANT CREATE ON SCHEMA public TO regress_keys_impostor;
SET ROLE regress_keys_impostor;
CREATE FUNCTION public.neighbors_keys(tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb) LANGUAGE sql
AS $$ SELECT 'IMPOSTOR'::adjkey, 'X'::adjkey, 'Y'::adjkey, NULL::jsonb $$;
CREATE FUNCTION public.neighbors_nodes(tbl regclass, node adjkey, edge_prefix text,
	lim bigint DEFAULT NULL, after adjkey DEFAULT NULL, backward boolean DEFAULT false,
	target_prefix text DEFAULT '', sk_is_target boolean DEFAULT false,
	edge_filter jsonb DEFAULT NULL, exclusive_start_key jsonb DEFAULT NULL)
RETURNS TABLE (neighbor adjkey, pk adjkey, sk adjkey, data jsonb) LANGUAGE sql
AS $$ SELECT 'IMPOSTOR'::adjkey, NULL::adjkey, NULL::adjkey, NULL::jsonb $$;
RESET ROLE;
SELECT scans($$SELECT neighbor FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$) AS node_only,
	   scans($$SELECT neighbor, sk FROM neighbors('g', 'USER#1', 'FOLLOWS#')$$) AS keys_only;
SELECT count(*) AS rows, count(*) FILTER (WHERE neighbor = 'IMPOSTOR') AS impostor
FROM neighbors('g', 'USER#1', 'FOLLOWS#');
SELECT count(*) AS rows, count(*) FILTER (WHERE neighbor = 'IMPOSTOR' OR sk = 'Y') AS impostor
FROM (SELECT neighbor, sk FROM neighbors('g', 'USER#1', 'FOLLOWS#')) n;
ROLLBACK;

RESET search_path;
DROP SCHEMA keys CASCADE;
DROP OWNED BY regress_keys_reader;
DROP ROLE regress_keys_reader;

