-- Data of test/bench/weighted.sh: a deterministic power-law follower graph.
--
--   edges (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk))
--     pk  'USER#<src>'
--     sk  'FOLLOWS#USER#<dst>'
--     dst = floor(nnodes * random()^3): the lowest ids are in-hubs (user 0
--           alone gets ~2% of the edges of a 1M-edge graph)
--     src = a power-law rank floor(nnodes * random()^2), scattered over the
--           ids by (rank * 1000003 + nnodes / 2 + 7) mod nnodes (a bijection
--           when nnodes is not a multiple of 1000003): out-hubs too, at
--           other ids than the in-hubs, so out- and in-degree are
--           independent and every node has about the same mean out-degree
--   Duplicate and self edges are dropped; the first nedges edges in
--   generation order are kept, stored in that (random) order.
--   Then create_inverted_index('edges'): edges_inverted (sk, pk).
--
-- With :extras (the 1M-edge graph; the 10M-edge scaling run skips them):
--   edges_text (pk text COLLATE "C", sk text COLLATE "C", PRIMARY KEY
--     (pk, sk)) and an index on (sk, pk): the same edges as text, for the
--     hand-written SQL baselines
--   nodes (id, key): the integer id of each node key, and
--   edges_int (id, source, target, cost 1, reverse_cost -1, w), indexed on
--     source and target: the same edges for pgRouting (w: the weight
--     data->>'w' of the edge, for weighted paths, test/bench/weighted.sh)
--
-- And in every graph, the start nodes of the benchmark, chosen from the
-- graph deterministically (bench_nodes, bench_starts), the shortest-path
-- pairs (bench_pairs) and the shape of the graph (graph_info).
--
-- psql variables: nedges, nnodes, seed, extras (true/false).
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SET max_parallel_maintenance_workers = 0;
SET client_min_messages = warning;
SET maintenance_work_mem = '512MB';
SET work_mem = '256MB';

-- Serial plan and setseed(): the same graph on every run.
SELECT setseed(:seed) AS seeded \gset
CREATE TEMP TABLE gen AS
SELECT i, src, dst
FROM (SELECT i,
			 (floor(:nnodes * random() ^ 2)::bigint * 1000003 + :nnodes / 2 + 7) % :nnodes AS src,
			 floor(:nnodes * random() ^ 3)::bigint AS dst
	  FROM generate_series(1, (:nedges * 1.15)::bigint) AS i
	  OFFSET 0) g
WHERE src <> dst;
CREATE TEMP TABLE gedges AS
SELECT min(i) AS i, src, dst FROM gen GROUP BY src, dst
ORDER BY 1 LIMIT :nedges;
DROP TABLE gen;

SELECT count(*) = :nedges AS enough_edges FROM gedges \gset
\if :enough_edges
\else
	\echo 'setup.sql: too few distinct edges'
	SELECT 1/0;
\endif

-- The primary keys are added after the load (a sorted build: much faster
-- than 10M random inserts; the same index either way).
CREATE TABLE edges (pk adjkey, sk adjkey, data jsonb);
ALTER TABLE edges SET (autovacuum_enabled = off);
INSERT INTO edges
SELECT ('USER#' || src)::adjkey, ('FOLLOWS#USER#' || dst)::adjkey, jsonb_build_object('w', i % 100)
FROM gedges ORDER BY i;
ALTER TABLE edges ADD PRIMARY KEY (pk, sk);
SELECT create_inverted_index('edges') AS inverted_index \gset
ALTER TABLE edges_inverted SET (autovacuum_enabled = off);

\if :extras
CREATE TABLE edges_text (pk text COLLATE "C", sk text COLLATE "C");
ALTER TABLE edges_text SET (autovacuum_enabled = off);
INSERT INTO edges_text SELECT pk::text, sk::text FROM edges;
ALTER TABLE edges_text ADD PRIMARY KEY (pk, sk);
CREATE INDEX edges_text_sk_pk ON edges_text (sk, pk);

CREATE TABLE nodes (id bigint PRIMARY KEY, key adjkey NOT NULL UNIQUE);
INSERT INTO nodes
SELECT row_number() OVER (ORDER BY k), k
FROM (SELECT pk AS k FROM edges UNION SELECT key_tail(sk, 1) FROM edges) s;
CREATE TABLE edges_int (id bigint PRIMARY KEY, source bigint NOT NULL, target bigint NOT NULL,
						cost float8 NOT NULL, reverse_cost float8 NOT NULL, w float8 NOT NULL);
ALTER TABLE edges_int SET (autovacuum_enabled = off);
INSERT INTO edges_int
SELECT row_number() OVER (), s.id, t.id, 1, -1, (e.data->>'w')::float8
FROM edges e JOIN nodes s ON s.key = e.pk JOIN nodes t ON t.key = key_tail(e.sk, 1);
CREATE INDEX edges_int_source ON edges_int (source);
CREATE INDEX edges_int_target ON edges_int (target);
\endif

-- Degrees, for choosing start nodes and for the report.
CREATE TABLE degrees AS
SELECT coalesce(o.node, i.node) AS node, coalesce(o.n, 0) AS out_degree, coalesce(i.n, 0) AS in_degree
FROM (SELECT src AS node, count(*) AS n FROM gedges GROUP BY src) o
FULL JOIN (SELECT dst AS node, count(*) AS n FROM gedges GROUP BY dst) i ON i.node = o.node;

-- Start nodes (role, ord, node, degrees):
--   median    a typical node: the lowest id of the nodes whose out-degree
--             and in-degree are both the medians (else the lowest id with
--             the median out-degree)
--   hub_in    the largest in-degree (ties: lowest id): the largest hub
--   hub_out   the largest out-degree
--   hub_in2, hub_out2   the second largest (for common neighbours)
--   rand      10 nodes with out-degree > 0, drawn with the seed
CREATE TABLE bench_nodes (role text, ord int, node adjkey, out_degree bigint, in_degree bigint);
WITH med AS (
	SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY out_degree) AS mo,
		   percentile_disc(0.5) WITHIN GROUP (ORDER BY in_degree) AS mi
	FROM degrees)
INSERT INTO bench_nodes
SELECT 'median', 1, ('USER#' || node)::adjkey, out_degree, in_degree
FROM (SELECT d.* FROM degrees d, med WHERE d.out_degree = med.mo
	  ORDER BY d.in_degree = med.mi DESC, d.node LIMIT 1) s
UNION ALL
SELECT CASE WHEN r = 1 THEN 'hub_out' ELSE 'hub_out2' END, 1, ('USER#' || node)::adjkey, out_degree, in_degree
FROM (SELECT *, row_number() OVER (ORDER BY out_degree DESC, node) AS r FROM degrees) s WHERE r <= 2
UNION ALL
SELECT CASE WHEN r = 1 THEN 'hub_in' ELSE 'hub_in2' END, 1, ('USER#' || node)::adjkey, out_degree, in_degree
FROM (SELECT *, row_number() OVER (ORDER BY in_degree DESC, node) AS r FROM degrees) s WHERE r <= 2;
SELECT setseed(:seed / 2) AS seeded \gset
INSERT INTO bench_nodes
SELECT 'rand', row_number() OVER (ORDER BY r), ('USER#' || node)::adjkey, out_degree, in_degree
FROM (SELECT node, out_degree, in_degree, random() AS r FROM (SELECT * FROM degrees ORDER BY node) d
	  WHERE out_degree > 0 OFFSET 0) s
ORDER BY r LIMIT 10;

-- The traversal starts: median, hub_in and the 10 random nodes (ord 1..12),
-- and for each a connected target for shortest paths: a node at distance 3
-- (odd ord) or 4 (even ord), the first by hashtext() among those at that
-- distance (traverse() from the start; the driver checks the distance
-- against the SQL and pgRouting answers).
CREATE TABLE bench_starts AS
SELECT row_number() OVER (ORDER BY CASE role WHEN 'median' THEN 0 WHEN 'hub_in' THEN 1 ELSE 2 END, ord)::int AS ord,
	   role, node
FROM bench_nodes WHERE role IN ('median', 'hub_in', 'rand');
CREATE TABLE bench_pairs AS
SELECT s.ord, s.node AS a, t.node AS b, t.depth AS dist
FROM bench_starts s
CROSS JOIN LATERAL (SELECT node, depth FROM traverse('edges', s.node, 'FOLLOWS#', 4)
					WHERE depth = CASE WHEN s.ord % 2 = 1 THEN 3 ELSE 4 END
					ORDER BY hashtext(node::text), node LIMIT 1) t;

CREATE TABLE graph_info AS
SELECT (SELECT count(*) FROM gedges) AS edges,
	   (SELECT count(*) FROM degrees) AS nodes,
	   (SELECT max(out_degree) FROM degrees) AS max_out_degree,
	   (SELECT max(in_degree) FROM degrees) AS max_in_degree,
	   (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY out_degree) FROM degrees) AS median_out_degree,
	   (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY in_degree) FROM degrees) AS median_in_degree;
DROP TABLE gedges;
