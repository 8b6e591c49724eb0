--
-- The planner's row estimates of the graph functions (graph_estimate.c):
-- from the table's statistics, within a factor of two of what the calls
-- return on a graph whose nodes have 5 to 40 edges, not ROWS' fixed
-- number; a limit caps them, an edge filter scales them by the share of
-- edges it lets through; a generic plan (the node a parameter) is
-- estimated the same way; a caller who may not read the table, and a table
-- never analyzed, get ROWS' number.
--
SET client_min_messages = warning;
CREATE SCHEMA est;
SET search_path = est, public;

-- 400 users: user i follows (i % 8 + 1) * 5 others; likes 3 posts each
CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO g
SELECT 'USER#' || u, 'FOLLOWS#USER#' || ((u * 7 + k * 13) % 400), NULL
FROM generate_series(0, 399) u, generate_series(1, 40) k
WHERE k <= (u % 8 + 1) * 5
ON CONFLICT DO NOTHING;
INSERT INTO g SELECT 'USER#' || u, 'LIKES#POST#' || (u * 3 + k) % 50, NULL
FROM generate_series(0, 399) u, generate_series(1, 3) k ON CONFLICT DO NOTHING;
SELECT create_inverted_index('g');
ANALYZE g;

-- the planner's rows for a statement
CREATE FUNCTION planned_rows(q text) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::double precision;
END $$;
-- the average of what the calls return, over every user
CREATE FUNCTION average_rows(q text) RETURNS double precision LANGUAGE plpgsql AS $$
DECLARE
	total double precision := 0;
	n double precision;
BEGIN
	FOR u IN 0 .. 399 LOOP
		EXECUTE format('SELECT count(*) FROM (%s) x', replace(q, '$U', quote_literal('USER#' || u))) INTO n;
		total := total + n;
	END LOOP;
	RETURN total / 400;
END $$;

SELECT q AS call,
	   planned_rows(replace(q, '$U', '''USER#1''')) AS planned,
	   round(average_rows(q)::numeric, 1) AS average,
	   planned_rows(replace(q, '$U', '''USER#1''')) BETWEEN average_rows(q) / 2 AND average_rows(q) * 2 AS within_2x
FROM (VALUES
	($$SELECT * FROM neighbors('g', $U, 'FOLLOWS')$$),
	($$SELECT * FROM neighbors('g', $U, 'LIKES#')$$),
	($$SELECT * FROM neighbors('g', $U, '')$$),
	($$SELECT * FROM reverse_neighbors('g', $U, 'FOLLOWS')$$),
	($$SELECT * FROM traverse('g', $U, 'FOLLOWS', 1)$$),
	($$SELECT * FROM query('g', $U, 'begins_with', 'LIKES#')$$),
	($$SELECT * FROM query('g', $U)$$),
	($$SELECT * FROM query('g_inverted', ('FOLLOWS#' || $U)::adjkey)$$)) v(q);

-- deeper traversals grow by the degree, up to the nodes there are
SELECT planned_rows($$SELECT * FROM traverse('g', 'USER#1', 'FOLLOWS', 2)$$) AS depth_2,
	   planned_rows($$SELECT * FROM traverse('g', 'USER#1', 'FOLLOWS', 4)$$) AS depth_4,
	   (SELECT count(*) FROM traverse('g', 'USER#1', 'FOLLOWS', 4)) AS reached_4,
	   planned_rows($$SELECT * FROM traverse('g', 'USER#1', 'FOLLOWS', 3, 'both')$$) AS both_3;
-- limits cap, lists count
SELECT planned_rows($$SELECT * FROM neighbors('g', 'USER#1', 'FOLLOWS', lim => 3)$$) AS lim_3,
	   planned_rows($$SELECT * FROM people_you_may_know('g', 'USER#1', 'FOLLOWS#')$$) AS pymk_default_10,
	   planned_rows($$SELECT * FROM query('g', 'USER#1', lim => 2)$$) AS query_lim_2,
	   planned_rows($$SELECT * FROM query('g', 'USER#1', '=', 'LIKES#POST#1')$$) AS query_eq,
	   planned_rows($$SELECT * FROM batch_get('g', '[{"pk": "USER#1", "sk": "x"}, {"pk": "USER#2", "sk": "y"}, {"pk": "USER#3", "sk": "z"}]')$$) AS batch_3;
-- an edge filter scales each hop by the share of the table's edges whose
-- data contains it, from the data column's statistics (a tenth of the
-- edges have none, a quarter of the others are red); a filter nothing
-- matches is one row
CREATE TABLE f (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO f
SELECT pk, sk, CASE WHEN h % 10 = 0 THEN NULL
					ELSE jsonb_build_object('c', CASE WHEN h % 4 = 1 THEN 'red' ELSE 'blue' END, 'n', h % 500) END
FROM (SELECT pk, sk, abs(hashtext(sk::text || pk::text)) AS h FROM g) x;
SELECT create_inverted_index('f');
ANALYZE f;
SELECT q AS call,
	   planned_rows(replace(q, '$U', '''USER#1''')) AS planned,
	   round(average_rows(q)::numeric, 1) AS average,
	   planned_rows(replace(q, '$U', '''USER#1''')) BETWEEN average_rows(q) / 2 AND average_rows(q) * 2 AS within_2x
FROM (VALUES
	($$SELECT * FROM neighbors('f', $U, 'FOLLOWS', edge_filter => '{"c": "red"}')$$),
	($$SELECT * FROM neighbors('f', $U, 'FOLLOWS', edge_filter => '{}')$$),
	($$SELECT * FROM reverse_neighbors('f', $U, 'FOLLOWS', edge_filter => '{"c": "blue"}')$$),
	($$SELECT * FROM traverse('f', $U, 'FOLLOWS', 2, edge_filter => '{"c": "red"}')$$),
	($$SELECT * FROM neighbors('f', $U, 'LIKES#', edge_filter => '{"c": "blue"}')$$)) v(q);
SELECT planned_rows($$SELECT * FROM neighbors('f', 'USER#1', 'FOLLOWS', edge_filter => '{"c": "green"}')$$) AS no_match,
	   planned_rows($$SELECT * FROM neighbors('f', 'USER#1', 'FOLLOWS', edge_filter => NULL)$$) =
	   planned_rows($$SELECT * FROM neighbors('f', 'USER#1', 'FOLLOWS')$$) AS null_filter_is_none,
	   planned_rows($$SELECT * FROM neighbors('f', 'USER#1', 'FOLLOWS', lim => 3, edge_filter => '{}')$$) AS lim_3;
-- a join through a graph function is planned with the estimate: the
-- profiles of one user's followees are found by the index
CREATE TABLE profiles (id adjkey PRIMARY KEY, name text);
INSERT INTO profiles SELECT 'USER#' || u, 'user ' || u FROM generate_series(0, 99999) u;
ANALYZE profiles;
EXPLAIN (COSTS OFF)
SELECT p.name FROM neighbors('g', 'USER#1', 'FOLLOWS', lim => 5) n JOIN profiles p ON p.id = n.neighbor;

-- a generic plan: the node does not change the estimate
PREPARE around(adjkey) AS SELECT * FROM neighbors('g', $1, 'FOLLOWS');
SET plan_cache_mode = force_generic_plan;
SELECT planned_rows($$EXECUTE around('USER#1')$$) AS generic_rows;
RESET plan_cache_mode;
DEALLOCATE around;

-- no statistics from a table the caller may not read
CREATE ROLE regress_est_other;
GRANT USAGE ON SCHEMA est TO regress_est_other;
GRANT EXECUTE ON FUNCTION planned_rows(text) TO regress_est_other;
SET ROLE regress_est_other;
SELECT planned_rows($$SELECT * FROM neighbors('est.g', 'USER#1', 'FOLLOWS')$$) AS not_readable;
RESET ROLE;
-- nor under row-level security: the statistics describe hidden rows, and
-- an edge filter matched against them would tell whether a guessed value
-- is common among them (core's planner uses none there either)
CREATE TABLE hidden (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO hidden SELECT 'USER#me', 'F#' || i, '{"k": 1}' FROM generate_series(1, 100) i;
INSERT INTO hidden SELECT 'USER#hidden', 'SECRET#' || i, '{"ssn": "123-45-6789"}' FROM generate_series(1, 3000) i;
ANALYZE hidden;
GRANT SELECT ON hidden TO regress_est_other;
ALTER TABLE hidden ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine ON hidden FOR SELECT TO regress_est_other USING (pk = 'USER#me');
-- the owner (no policy applies): the estimates follow the statistics
SELECT planned_rows($$SELECT * FROM neighbors('est.hidden', 'USER#hidden', '', edge_filter => '{"ssn": "123-45-6789"}')$$) > 100 AS owner_common,
	   planned_rows($$SELECT * FROM neighbors('est.hidden', 'USER#hidden', '', edge_filter => '{"ssn": "000-00-0000"}')$$) < 10 AS owner_rare;
SET ROLE regress_est_other;
SELECT planned_rows($$SELECT * FROM neighbors('est.hidden', 'USER#me', '', edge_filter => '{"ssn": "123-45-6789"}')$$) AS rls_guess,
	   planned_rows($$SELECT * FROM neighbors('est.hidden', 'USER#me', '', edge_filter => '{"ssn": "000-00-0000"}')$$) AS rls_other,
	   planned_rows($$SELECT * FROM neighbors('est.hidden', 'USER#hidden', '')$$) AS rls_hidden_node;
RESET ROLE;
DROP TABLE hidden;
-- an empty, never analyzed table: the default
CREATE TABLE empty (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT planned_rows($$SELECT * FROM neighbors('empty', 'USER#1', 'FOLLOWS')$$) AS empty_table;

-- any max_depth is planned at once, whatever the degree (a fan-out below
-- one, or exactly one, summed level by level took minutes for INT_MAX)
CREATE TABLE sparse (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
INSERT INTO sparse SELECT 'USER#' || u, 'PROFILE' FROM generate_series(1, 1000) u;
INSERT INTO sparse SELECT 'USER#' || u, 'FOLLOWS#USER#' || (u + 1) FROM generate_series(1, 10) u;
ANALYZE sparse;
CREATE TABLE chain (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
INSERT INTO chain SELECT 'USER#' || u, 'FOLLOWS#USER#' || (u + 1) FROM generate_series(1, 1000) u;
ANALYZE chain;
-- (a hang guard, not a timing: planning takes microseconds, the old sum
-- seconds per call)
SET statement_timeout = '2s';
SELECT planned_rows($$SELECT * FROM traverse('sparse', 'USER#1', 'FOLLOWS#', 2147483647)$$) BETWEEN 1 AND 1010 AS sparse_deep;
SELECT planned_rows($$SELECT * FROM traverse('chain', 'USER#1', 'FOLLOWS#', 2147483647)$$) BETWEEN 1 AND 1001 AS chain_deep;
SELECT planned_rows($$SELECT * FROM traverse('chain', 'USER#1', 'FOLLOWS#', 2147483647, 'both')$$) BETWEEN 1 AND 1001 AS chain_both;
SELECT count(*) AS chain_reached FROM traverse('chain', 'USER#1', 'FOLLOWS#', 2147483647, lim => 10);
RESET statement_timeout;

DROP SCHEMA est CASCADE;
DROP ROLE regress_est_other;
