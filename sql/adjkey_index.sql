--
-- begins_with: semantics, btree range scans, generic plans, estimates
--

CREATE TABLE social (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO social VALUES
	('USER#alice', 'PROFILE', '{"name": "Alice"}'),
	('USER#alice', 'FOLLOWS#USER#bob', '{"since": "2023-01-15"}'),
	('USER#alice', 'FOLLOWS#USER#charlie', NULL),
	('USER#alice', 'FRIEND#USER#david', NULL),
	('USER#alice', 'LIKES#POST#12345', NULL),
	('USER#alice', 'LIKES#POST#9', NULL),
	('USER#bob', 'FOLLOWS#USER#alice', NULL),
	('USER#bob', 'PROFILE', NULL),
	('USER#é', 'FOLLOWS#USER#é', NULL),
	('USER#é', 'FOLLOWS#USER#éa', NULL),
	('USER#é', 'FOLLOWS#USER#ê', NULL),
	('USER#é', 'FOLLOWS#USER#f', NULL),
	(E'USER#\U0010FFFF', E'TAG#\U0010FFFF', NULL),
	(E'USER#\U0010FFFF', E'TAG#\U0010FFFF\U0010FFFF', NULL),
	(E'USER#\U0010FFFF', 'TAG#z', NULL),
	(E'USER#\uD7FF', 'X', NULL),
	(E'USER#\uE000', 'X', NULL),
	('USER#', 'X', NULL),
	('USER', 'X', NULL),
	('USES', 'X', NULL);

-- the function and both operators
SELECT begins_with('FOLLOWS#USER#bob'::adjkey, 'FOLLOWS#') AS fn_text,
	   begins_with('FOLLOWS#USER#bob'::adjkey, 'FOLLOWS#'::adjkey) AS fn_key,
	   'FOLLOWS#USER#bob'::adjkey ^@ 'FOLLOWS#'::text AS op_text,
	   'FOLLOWS#USER#bob'::adjkey ^@ 'FOLLOWS#'::adjkey AS op_key,
	   'FOLLOWS#USER#bob'::adjkey ^@ 'FRIEND#' AS op_no,
	   'USER'::adjkey ^@ 'USER#' AS longer_prefix,
	   'USER'::adjkey ^@ 'USER' AS equal_prefix,
	   begins_with('USER'::adjkey, '') AS empty_prefix,
	   begins_with('USER'::adjkey, NULL) AS null_prefix;

-- plans: pk equality and a constant prefix are one index range
EXPLAIN (COSTS OFF)
SELECT sk FROM social WHERE pk = 'USER#alice' AND sk ^@ 'FOLLOWS#';
EXPLAIN (COSTS OFF)
SELECT sk FROM social WHERE pk = 'USER#alice' AND begins_with(sk, 'LIKES#');
EXPLAIN (COSTS OFF)
SELECT sk FROM social WHERE pk = 'USER#alice' AND sk ^@ 'FOLLOWS#'::text;
-- the successor of a prefix ending in a multi-byte character
EXPLAIN (COSTS OFF)
SELECT sk FROM social WHERE pk = 'USER#é' AND sk ^@ 'FOLLOWS#USER#é';
-- U+10FFFF has no successor: the character before it is bumped
EXPLAIN (COSTS OFF)
SELECT sk FROM social WHERE pk = E'USER#\U0010FFFF' AND sk ^@ E'TAG#\U0010FFFF';
-- nothing follows U+10FFFF...: only a lower bound
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT pk FROM social WHERE pk ^@ E'\U0010FFFF';
-- U+D7FF is followed by U+E000 (no surrogates)
EXPLAIN (COSTS OFF)
SELECT pk FROM social WHERE pk ^@ E'USER#\uD7FF';
-- the empty prefix matches everything: no bound at all
EXPLAIN (COSTS OFF)
SELECT pk FROM social WHERE pk ^@ ''::text;
RESET enable_seqscan;

-- a prepared statement under a generic plan keeps the index range
PREPARE out_edges(adjkey, text) AS
	SELECT sk FROM social WHERE pk = $1 AND sk ^@ $2 ORDER BY sk;
PREPARE out_edges_key(adjkey, adjkey) AS
	SELECT sk FROM social WHERE pk = $1 AND sk ^@ $2 ORDER BY sk;
PREPARE out_edges_fn(adjkey, text) AS
	SELECT sk FROM social WHERE pk = $1 AND begins_with(sk, $2) ORDER BY sk;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE out_edges('USER#alice', 'FOLLOWS#');
EXPLAIN (COSTS OFF) EXECUTE out_edges_key('USER#alice', 'FOLLOWS#');
EXPLAIN (COSTS OFF) EXECUTE out_edges_fn('USER#alice', 'FOLLOWS#');
EXECUTE out_edges('USER#alice', 'FOLLOWS#');
EXECUTE out_edges('USER#alice', 'L');
EXECUTE out_edges('USER#alice', '');
EXECUTE out_edges('USER#alice', NULL);
EXECUTE out_edges('USER#é', 'FOLLOWS#USER#é');
EXECUTE out_edges_key('USER#alice', 'FOLLOWS#USER#bob');
EXECUTE out_edges_fn(E'USER#\U0010FFFF', E'TAG#\U0010FFFF');
EXECUTE out_edges_fn(E'USER#\U0010FFFF', E'TAG#\U0010FFFF\U0010FFFF\U0010FFFF');
RESET plan_cache_mode;

-- core's text ^@ loses the index in the same generic plan, for comparison
CREATE TABLE social_text (pk text COLLATE "C", sk text COLLATE "C", PRIMARY KEY (pk, sk));
INSERT INTO social_text SELECT pk, sk FROM social;
PREPARE text_edges(text, text) AS
	SELECT sk FROM social_text WHERE pk = $1 AND sk ^@ $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE text_edges('USER#alice', 'FOLLOWS#');
RESET plan_cache_mode;

-- a prefix from another table: a parameterized inner index scan
CREATE TABLE wanted (node adjkey, prefix text);
INSERT INTO wanted VALUES ('USER#alice', 'FOLLOWS#'), ('USER#alice', 'LIKES#'),
	('USER#é', 'FOLLOWS#USER#é'), ('USER#bob', '');
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT w.prefix, s.sk FROM wanted w JOIN social s ON s.pk = w.node AND s.sk ^@ w.prefix;
SELECT w.prefix, s.sk FROM wanted w JOIN social s ON s.pk = w.node AND s.sk ^@ w.prefix
ORDER BY 1, 2;
RESET enable_hashjoin;
RESET enable_mergejoin;
RESET enable_seqscan;

-- the same answers with and without the index, for every edge case
CREATE TABLE prefixes (p text);
INSERT INTO prefixes VALUES (''), ('U'), ('USER'), ('USER#'), ('USER#alice'),
	('USER#alicex'), ('USES'), ('USER#é'), (E'USER#\U0010FFFF'),
	(E'USER#\U0010FFFF\U0010FFFF'), (E'\U0010FFFF'), (E'USER#\uD7FF'),
	('FOLLOWS#'), ('X'), ('~'), (' '), ('USER#b'), ('USER#bob#');
CREATE TEMP TABLE answers_seq AS
SELECT p, array_agg(s.pk || '/' || s.sk ORDER BY s.pk, s.sk) AS rows
FROM prefixes LEFT JOIN LATERAL (SELECT pk::text, sk::text FROM social WHERE pk ^@ p) s ON true
GROUP BY p;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_hashjoin = off;
SET enable_mergejoin = off;
EXPLAIN (COSTS OFF)
SELECT p, s.pk FROM prefixes LEFT JOIN LATERAL (SELECT pk FROM social WHERE pk ^@ p) s ON true;
CREATE TEMP TABLE answers_idx AS
SELECT p, array_agg(s.pk || '/' || s.sk ORDER BY s.pk, s.sk) AS rows
FROM prefixes LEFT JOIN LATERAL (SELECT pk::text, sk::text FROM social WHERE pk ^@ p) s ON true
GROUP BY p;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_hashjoin;
RESET enable_mergejoin;
SELECT count(*) AS prefixes, count(*) FILTER (WHERE a.rows IS NOT DISTINCT FROM b.rows) AS same
FROM answers_seq a JOIN answers_idx b USING (p);
SELECT p, cardinality(rows) AS n FROM answers_idx ORDER BY convert_to(p, 'UTF8');

-- estimates: the planner sees how selective a prefix is and picks the plan
CREATE TABLE edges (pk adjkey, sk adjkey);
INSERT INTO edges
SELECT 'USER#' || (g % 5000), CASE WHEN g % 10 = 0 THEN 'LIKES#POST#' ELSE 'FOLLOWS#USER#' END || g
FROM generate_series(1, 100000) g;
CREATE INDEX edges_sk ON edges (sk);
ANALYZE edges;
CREATE FUNCTION pg_temp.estimate(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
-- estimate within a factor of 3 of the truth
SELECT q, actual, pg_temp.estimate(q) BETWEEN actual / 3.0 AND actual * 3.0 AS close
FROM (VALUES ('SELECT * FROM edges WHERE sk ^@ ''LIKES#'''),
			 ('SELECT * FROM edges WHERE sk ^@ ''FOLLOWS#'''),
			 ('SELECT * FROM edges WHERE sk ^@ ''FOLLOWS#USER#1'''),
			 ('SELECT * FROM edges WHERE sk ^@ ''FOLLOWS#USER#12'''),
			 ('SELECT * FROM edges WHERE begins_with(sk, ''LIKES#POST#1'')')) v(q),
	 LATERAL (SELECT count(*) AS actual FROM edges WHERE sk ^@ substring(q from '''(.*)''')::text) a;
EXPLAIN (COSTS OFF) SELECT * FROM edges WHERE sk ^@ 'FOLLOWS#USER#123';
EXPLAIN (COSTS OFF) SELECT * FROM edges WHERE sk ^@ 'FOLLOWS#';
SELECT pg_temp.estimate('SELECT * FROM edges WHERE sk ^@ ''''::text') AS all_rows;
SELECT pg_temp.estimate('SELECT * FROM edges WHERE sk ^@ ''NOPE#''') < 10 AS none_estimated_few;

-- the range bounds themselves: bytea, compared with keys byte-wise
SELECT p, encode(adjkey_prefix_lower(p), 'hex') AS lower,
	   encode(adjkey_prefix_upper(p), 'hex') AS upper
FROM (VALUES ('a'), ('FOLLOWS#'), ('é'), (E'\u007F'), (E'\uD7FF'), (E'a\U0010FFFF'),
			 ('中')) v(p);
-- with no successor the upper bound is the byte 0xFF, which no UTF-8 key
-- contains: it sorts after every storable key
SELECT encode(adjkey_prefix_upper(E'\U0010FFFF'), 'hex') AS sentinel,
	   adjkey_prefix_upper('') > repeat(E'\U0010FFFF', 512)::adjkey AS above_longest,
	   adjkey_prefix_upper('') = adjkey_prefix_upper(E'\U0010FFFF') AS same_sentinel;
