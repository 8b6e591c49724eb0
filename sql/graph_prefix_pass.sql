--
-- a level's out-edges of a rare edge prefix, read by one pass over the
-- prefix's range of the inverted index (graph_scan_prefix.c:
-- direct_scan_prefix) instead of a descent per node: the same answers as
-- the descents (an uncounted copy, never analyzed) and as SQL, and the
-- pass is taken (the inverted index's btree is scanned once)
--
SELECT setseed(0.31);
-- 200 nodes: many F# edges each (follows), few R# ones (friends); U#0 has
-- 120 friends, a level too small for a pass over the base table's btree
CREATE TABLE pp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO pp SELECT 'U#' || a, 'F#U#' || b, NULL
FROM generate_series(0, 199) a, generate_series(0, 199) b WHERE random() < 0.3;
INSERT INTO pp SELECT 'U#0', 'R#U#' || b, NULL FROM generate_series(1, 120) b;
INSERT INTO pp SELECT 'U#' || a, 'R#U#' || (a * 7 + k * 13) % 200, NULL
FROM generate_series(1, 199) a, generate_series(1, 3) k ON CONFLICT DO NOTHING;
-- rows that are no edge, in the prefix's range: a bare prefix, and a
-- source that is no node of any level
INSERT INTO pp VALUES ('U#5', 'R#', '{}'), ('X#1', 'R#U#3', NULL);
SELECT create_inverted_index('pp');
ANALYZE pp, pp_inverted;

-- the same graph, never counted: its levels are read by a descent per node
CREATE TABLE pps (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))
	WITH (autovacuum_enabled = false);
SELECT create_inverted_index('pps');
ALTER TABLE pps_inverted SET (autovacuum_enabled = false);
INSERT INTO pps SELECT * FROM pp;

SELECT count(*) FILTER (WHERE sk ^@ 'F#') > 64 * 120 AS many_follows,
	   count(*) FILTER (WHERE sk ^@ 'R#') < 64 * 120 AS few_friends
FROM pp;

-- people you may know: the pass, the descents and SQL agree
SELECT count(*) AS ranked, sum(score) AS walks FROM walk_ranked('pp', 'U#0', '{R#,R#}', '{out,out}');
SELECT ARRAY(SELECT ROW(node, score) FROM walk_ranked('pp', 'U#0', '{R#,R#}', '{out,out}'))
	 = ARRAY(SELECT ROW(node, score) FROM walk_ranked('pps', 'U#0', '{R#,R#}', '{out,out}'))
	AS same_as_descents;
WITH f1 AS (SELECT substr(sk::text, 3)::adjkey AS f FROM pp WHERE pk = 'U#0' AND sk ^@ 'R#U#'),
	 w AS (SELECT substr(e.sk::text, 3)::adjkey AS node, count(*) AS score
		   FROM f1 JOIN pp e ON e.pk = f1.f AND e.sk ^@ 'R#U#'
		   WHERE substr(e.sk::text, 3) <> 'U#0' AND substr(e.sk::text, 3)::adjkey NOT IN (SELECT f FROM f1)
		   GROUP BY 1)
SELECT ARRAY(SELECT ROW(node, score) FROM w ORDER BY score DESC, node)
	 = ARRAY(SELECT ROW(node, score) FROM walk_ranked('pp', 'U#0', '{R#,R#}', '{out,out}'))
	AS same_as_sql;
-- three hops, the last over the common prefix; a target prefix
SELECT ARRAY(SELECT ROW(node, score) FROM walk_ranked('pp', 'U#0', '{R#,R#,F#}', '{out,out,out}', lim => 20))
	 = ARRAY(SELECT ROW(node, score) FROM walk_ranked('pps', 'U#0', '{R#,R#,F#}', '{out,out,out}', lim => 20))
	AS three_hops_same;
SELECT ARRAY(SELECT ROW(node, score) FROM walk_ranked('pp', 'U#0', '{R#U#,R#U#}', '{out,out}', target_prefix => 'U#'))
	 = ARRAY(SELECT ROW(node, score) FROM walk_ranked('pps', 'U#0', '{R#U#,R#U#}', '{out,out}', target_prefix => 'U#'))
	AS target_prefix_same;
-- reachable_count reads its levels so too
SELECT reachable_count('pp', 'U#0', 'R#', 3) AS reachable,
	   reachable_count('pp', 'U#0', 'R#', 3) = reachable_count('pps', 'U#0', 'R#', 3) AS same;

-- the pass was taken: one more scan of each btree (the start's descent,
-- the pass), not one per friend (the counts of this session's scans not
-- yet reported include earlier statements: differences, within one
-- transaction, between whose statements they are not reported)
BEGIN;
SELECT pg_stat_get_xact_numscans('pp_pkey'::regclass) AS b0,
	   pg_stat_get_xact_numscans('pp_inverted_pkey'::regclass) AS i0 \gset
SELECT count(*) FROM walk_ranked('pp', 'U#0', '{R#,R#}', '{out,out}');
SELECT pg_stat_get_xact_numscans('pp_pkey'::regclass) - :b0 AS base_scans,
	   pg_stat_get_xact_numscans('pp_inverted_pkey'::regclass) - :i0 AS inverted_scans;
COMMIT;
-- but not for a level of few nodes (U#7's friends), nor with an edge
-- filter (it needs the data)
BEGIN;
SELECT pg_stat_get_xact_numscans('pp_inverted_pkey'::regclass) AS i0 \gset
SELECT count(*) > 0 AS some FROM walk_ranked('pp', 'U#7', '{R#,R#}', '{out,out}');
SELECT ARRAY(SELECT ROW(node, score) FROM walk_ranked('pp', 'U#0', '{R#,R#}', '{out,out}', edge_filter => '{}'))
	 = ARRAY(SELECT ROW(node, score) FROM walk_ranked('pps', 'U#0', '{R#,R#}', '{out,out}', edge_filter => '{}'))
	AS filtered_same;
SELECT pg_stat_get_xact_numscans('pp_inverted_pkey'::regclass) - :i0 AS inverted_scans;
COMMIT;

-- reachable_count leaves out, in the pass, the edges to nodes it has
-- reached and all but the first edge to a node of the next level
-- (graph_reader_skip_known): the same counts as SQL and as the descents,
-- from starts whose levels take the pass (U#0's 120 friends) or not (a
-- few friends), at every depth, out and both ways (the in-edges read
-- after the pass), with a target prefix (the target named from the sort
-- key) and with the pass's own rows that are no edge ('R#', 'X#1')
CREATE FUNCTION pg_temp.ref_edges(f jsonb) RETURNS TABLE (a adjkey, b adjkey) LANGUAGE sql AS $$
	SELECT pk, substr(sk::text, 3)::adjkey FROM pp WHERE sk ^@ 'R#' AND length(sk::text) > 2
$$;
\i sql/ref_bfs.psql
CREATE TEMP TABLE known_counts AS
SELECT s, d, dir, reachable_count('pp', s, 'R#', d, dir) AS pass,
	   reachable_count('pps', s, 'R#', d, dir) AS descents,
	   reachable_count('pp', s, 'R#U#', d, dir, target_prefix => 'U#') AS target_prefix,
	   (SELECT count(*) FROM pg_temp.ref_depths(s, d, dir)) AS sql
FROM (SELECT ('U#' || g)::adjkey AS s FROM generate_series(0, 199, 9) g) st,
	 generate_series(0, 4) d, (VALUES ('out'), ('both')) v(dir);
SELECT count(*) AS calls, count(*) FILTER (WHERE pass = sql) AS pass_same,
	   count(*) FILTER (WHERE descents = sql) AS descents_same,
	   count(*) FILTER (WHERE target_prefix = sql) AS target_prefix_same,
	   count(DISTINCT sql) > 10 AS varied
FROM known_counts;
SELECT s, d, dir, pass, descents, target_prefix, sql FROM known_counts
WHERE pass <> sql OR descents <> sql OR target_prefix <> sql ORDER BY 1, 2, 3;
-- U#0's second level by the pass: one scan of each btree (the start's
-- descent, the pass); counted in one transaction, whose counts are not
-- reported (and reset) between its statements
BEGIN;
SELECT pg_stat_get_xact_numscans('pp_pkey'::regclass) AS b0,
	   pg_stat_get_xact_numscans('pp_inverted_pkey'::regclass) AS i0 \gset
SELECT reachable_count('pp', 'U#0', 'R#', 2) = (SELECT count(*) FROM pg_temp.ref_depths('U#0', 2, 'out'))
	AS two_hops_same;
SELECT pg_stat_get_xact_numscans('pp_pkey'::regclass) - :b0 AS base_scans,
	   pg_stat_get_xact_numscans('pp_inverted_pkey'::regclass) - :i0 AS inverted_scans;
COMMIT;

-- a level too small for the pass by its nodes alone (600 < the prefix's
-- rows / 64) whose nodes turn out to have many edges (200 each): after
-- its first 256 descents reachable_count reads the rest of it by the pass
-- (graph_reader.c: scan_level_sorted); the same counts as the descents
-- (an uncounted copy) and as SQL
CREATE TABLE pq (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO pq SELECT 'U#0', 'R#U#' || b, NULL FROM generate_series(1, 600) b;
-- (each friend's own: a friend read by neither way would be missed)
INSERT INTO pq SELECT 'U#' || a, 'R#V#' || (a * 200 + k), NULL
FROM generate_series(1, 600) a, generate_series(1, 200) k;
INSERT INTO pq SELECT 'U#' || a, 'R#U#' || (a * 7 + k) % 3000, NULL
FROM generate_series(601, 2999) a, generate_series(1, 2) k ON CONFLICT DO NOTHING;
-- other edges: the prefix's range is less than the whole index
INSERT INTO pq SELECT 'U#' || a, 'F#U#' || (a + k) % 3000, NULL
FROM generate_series(0, 2999) a, generate_series(1, 7) k;
SELECT create_inverted_index('pq');
ANALYZE pq, pq_inverted;
CREATE TABLE pqs (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))
	WITH (autovacuum_enabled = false);
INSERT INTO pqs SELECT * FROM pq;
SELECT create_inverted_index('pqs');
ALTER TABLE pqs_inverted SET (autovacuum_enabled = false);
SELECT count(*) FILTER (WHERE sk ^@ 'R#') > 64 * 600 AS many_rows FROM pq;
BEGIN;
SELECT pg_stat_get_xact_numscans('pq_pkey'::regclass) AS b0,
	   pg_stat_get_xact_numscans('pq_inverted_pkey'::regclass) AS i0 \gset
SELECT reachable_count('pq', 'U#0', 'R#', 2) AS two_hops;
-- the start's descent and 256 of its friends', then the pass
SELECT pg_stat_get_xact_numscans('pq_pkey'::regclass) - :b0 AS base_scans,
	   pg_stat_get_xact_numscans('pq_inverted_pkey'::regclass) - :i0 AS inverted_scans;
COMMIT;
CREATE OR REPLACE FUNCTION pg_temp.ref_edges(f jsonb) RETURNS TABLE (a adjkey, b adjkey) LANGUAGE sql AS $$
	SELECT pk, substr(sk::text, 3)::adjkey FROM pq WHERE sk ^@ 'R#'
$$;
SELECT d, dir, reachable_count('pq', 'U#0', 'R#', d, dir) AS pass,
	   reachable_count('pq', 'U#0', 'R#', d, dir) = reachable_count('pqs', 'U#0', 'R#', d, dir)
		AS same_as_descents,
	   reachable_count('pq', 'U#0', 'R#', d, dir) = (SELECT count(*) FROM pg_temp.ref_depths('U#0', d, dir))
		AS same_as_sql
FROM generate_series(1, 3) d, (VALUES ('out'), ('both')) v(dir) ORDER BY 1, 2;

-- targets with many in-edges (T#1..T#3: 400 each) whose edges the pass
-- leaves out (known, or handed over once): after 128 of them it descends
-- again past the target instead of reading the rest
-- (graph_scan_prefix.c: prefix_jump), but not in a SERIALIZABLE
-- transaction; the same counts as the descents and as SQL
CREATE TABLE pj (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO pj SELECT 'U#0', 'R#U#' || b, NULL FROM generate_series(1, 100) b;
INSERT INTO pj SELECT 'U#' || a, 'R#T#' || t, NULL FROM generate_series(1, 400) a, generate_series(1, 3) t;
INSERT INTO pj SELECT 'U#' || a, 'R#W#' || a, NULL FROM generate_series(1, 400) a;
INSERT INTO pj SELECT 'T#' || t, 'R#Z#' || t, NULL FROM generate_series(1, 3) t;
INSERT INTO pj SELECT 'W#' || a, 'R#U#' || (a + 150), NULL FROM generate_series(1, 100) a;
INSERT INTO pj SELECT 'U#' || a, 'F#U#' || (a + k) % 400, NULL
FROM generate_series(0, 399) a, generate_series(1, 8) k;
SELECT create_inverted_index('pj');
ANALYZE pj, pj_inverted;
CREATE TABLE pjs (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))
	WITH (autovacuum_enabled = false);
INSERT INTO pjs SELECT * FROM pj;
SELECT create_inverted_index('pjs');
ALTER TABLE pjs_inverted SET (autovacuum_enabled = false);
CREATE OR REPLACE FUNCTION pg_temp.ref_edges(f jsonb) RETURNS TABLE (a adjkey, b adjkey) LANGUAGE sql AS $$
	SELECT pk, substr(sk::text, 3)::adjkey FROM pj WHERE sk ^@ 'R#'
$$;
-- U#0's friends by the pass: a scan of the inverted index and a descent
-- past each of T#1..T#3 (each friend's first edge to it handed over); in a
-- SERIALIZABLE transaction the scan alone (the counts at 3 hops and more
-- below take the descents past targets known before the level too)
BEGIN;
SELECT pg_stat_get_xact_numscans('pj_inverted_pkey'::regclass) AS i0 \gset
SELECT reachable_count('pj', 'U#0', 'R#', 2) AS two_hops;
SELECT pg_stat_get_xact_numscans('pj_inverted_pkey'::regclass) - :i0 AS inverted_scans;
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT pg_stat_get_xact_numscans('pj_inverted_pkey'::regclass) AS i0 \gset
SELECT reachable_count('pj', 'U#0', 'R#', 2) AS two_hops_serializable;
SELECT pg_stat_get_xact_numscans('pj_inverted_pkey'::regclass) - :i0 AS inverted_scans;
COMMIT;
SELECT d, dir, reachable_count('pj', 'U#0', 'R#', d, dir) AS pass,
	   reachable_count('pj', 'U#0', 'R#', d, dir) = reachable_count('pjs', 'U#0', 'R#', d, dir)
		AS same_as_descents,
	   reachable_count('pj', 'U#0', 'R#', d, dir) = (SELECT count(*) FROM pg_temp.ref_depths('U#0', d, dir))
		AS same_as_sql
FROM generate_series(1, 5) d, (VALUES ('out'), ('both')) v(dir) ORDER BY 1, 2;
