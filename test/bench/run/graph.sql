-- Data of test/bench/run.sh: a seeded R-MAT graph, loaded side by side as
-- adjlist, as text keys under COLLATE "C", and as integers.
--
-- R-MAT (Chakrabarti, Zhan, Faloutsos 2004): every edge picks, at each of
-- SCALE levels, one quadrant of the adjacency matrix with probabilities
-- a, b, c, d = 146, 49, 48, 13 out of 256 (0.57, 0.19, 0.19, 0.05, the
-- Graph500 values); the picks give the bits of its source and target ids.
-- SCALE = round(log2(nedges / 8)): 2^17 ids for 1M edges, 2^20 for 10M.
-- The quadrant of level l of edge i is byte l % 8 of
-- hashint8extended(i, seed + l / 8): no random(), so the graph does not
-- depend on the plan or on the order rows are produced in.  Ids are
-- scattered by the bijection id -> (id * 2654435761 + 12345) mod 2^SCALE,
-- so the hubs are not the lowest ids.  Self loops and repeated pairs are
-- dropped; the first nedges distinct edges by i are kept.
--
-- Edges, in one table (the single-table design):
--   USER#<src>  FOLLOWS#USER#<dst>   the R-MAT edges, data {"w": i % 100}
--   USER#<a>    FRIEND#USER#<b>      both ways for every mutual FOLLOWS pair
--   USER#<u>    LIKES#POST#<p>       every 10th edge's source likes a post
--                                    drawn from a power law
--
-- Variants (with :full; without it, only the adjlist one, for the
-- 10M-edge scale run):
--   edges      pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk);
--              create_inverted_index('edges', include => '{data}'):
--              edges_inverted (sk, pk, data), the GSI with ALL projection
--   t_edges    the same rows as text COLLATE "C", PRIMARY KEY (pk, sk)
--              and a btree on (sk, pk): the best hand-written layout
--   i_follows  (src bigint, dst bigint) PRIMARY KEY (src, dst), btree
--              (dst, src); i_friends the same for FRIEND#: the integer
--              copy for the traversal baselines
--   pgr_edges  (id, source, target, cost) for pgRouting, when installed
--
-- Start nodes (bench_nodes: role, ord, id, node), chosen from the graph:
--   median        the median out-degree, in-degree nearest the median
--                 in-degree (ties: by hash)
--   out_hub(2)    the largest (second largest) out-degree
--   in_hub(2)     the largest (second largest) in-degree
--   rand 1..6     nodes with out-degree > 0, by hash
--   cn_b          a node of about the median out-degree that shares an
--                 out-neighbour with median (for common_neighbors)
--   friend_median, friend_hub   the median (with a friend of a friend)
--                 and the largest FRIEND# degree
-- bench_starts: the traversal starts (median, out_hub, rand) with a
-- shortest-path target each, at distance 3 (odd ord) or 4 (even ord),
-- found by traverse() and picked by hash.
--
-- psql variables: nedges, seed, full (true/false).
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SET max_parallel_maintenance_workers = 0;
SET client_min_messages = warning;
SET maintenance_work_mem = '512MB';
SET work_mem = '256MB';

SELECT greatest(8, round(log(2, :nedges / 8.0)))::int AS scale \gset
-- one hash gives the quadrants of 8 levels; the id bits as expressions
SELECT string_agg(format('hashint8extended(i, %s) AS h%s', :seed + k, k), ', ') AS hash_cols
FROM generate_series(0, (:scale - 1) / 8) k \gset
SELECT string_agg(format('((((h%s >> %s) & 255) >= 195)::int << %s)', l / 8, 8 * (l % 8), l), ' | ') AS src_bits,
	   string_agg(format('(((((h%1$s >> %2$s) & 255) BETWEEN 146 AND 194) OR (((h%1$s >> %2$s) & 255) >= 243))::int << %3$s)',
						 l / 8, 8 * (l % 8), l), ' | ') AS dst_bits
FROM generate_series(0, :scale - 1) l \gset

CREATE TEMP TABLE gen AS
SELECT i, (((:src_bits)::bigint * 2654435761 + 12345) & ((1::bigint << :scale) - 1)) AS src,
		  (((:dst_bits)::bigint * 2654435761 + 12345) & ((1::bigint << :scale) - 1)) AS dst
FROM (SELECT i, :hash_cols FROM generate_series(1, (:nedges * 1.25)::bigint) i) g;
CREATE TEMP TABLE gedges AS
SELECT i, src, dst
FROM (SELECT min(i) AS i, src, dst FROM gen WHERE src <> dst GROUP BY src, dst) s
ORDER BY i LIMIT :nedges;
DROP TABLE gen;
SELECT count(*) = :nedges AS enough_edges FROM gedges \gset
\if :enough_edges
\else
	\echo 'graph.sql: too few distinct edges: raise the 1.25 above'
	SELECT 1/0;
\endif
CREATE INDEX ON gedges (src, dst);
ANALYZE gedges;

-- every edge of the graph: (ord, src, sk, data), ord the load order
CREATE TEMP TABLE gall AS
SELECT i AS ord, src, 'FOLLOWS#USER#' || dst AS sk, jsonb_build_object('w', i % 100) AS data
FROM gedges
UNION ALL
SELECT :nedges + row_number() OVER (ORDER BY a.i), a.src, 'FRIEND#USER#' || a.dst, NULL
FROM gedges a JOIN gedges b ON b.src = a.dst AND b.dst = a.src
UNION ALL
SELECT 2 * :nedges + min(i), src, 'LIKES#POST#' || post, jsonb_build_object('at', min(i))
FROM (SELECT i, src, floor((:nedges / 20) * ((hashint8extended(i, :seed + 100) & 65535) / 65536.0) ^ 3)::bigint AS post
	  FROM gedges WHERE i % 10 = 0) l
GROUP BY src, post;
CREATE INDEX ON gall (src);
ANALYZE gall;

-- the primary keys after the load: a sorted build, not random inserts
CREATE TABLE edges (pk adjkey, sk adjkey, data jsonb);
INSERT INTO edges SELECT ('USER#' || src)::adjkey, sk::adjkey, data FROM gall ORDER BY ord;
ALTER TABLE edges ADD PRIMARY KEY (pk, sk);
SELECT create_inverted_index('edges', include => '{data}') AS inverted_index \gset

\if :full
CREATE TABLE t_edges (pk text COLLATE "C", sk text COLLATE "C", data jsonb);
INSERT INTO t_edges SELECT 'USER#' || src, sk, data FROM gall ORDER BY ord;
ALTER TABLE t_edges ADD PRIMARY KEY (pk, sk);
CREATE INDEX t_edges_sk_pk ON t_edges (sk, pk);

CREATE TABLE i_follows (src bigint, dst bigint);
INSERT INTO i_follows SELECT src, dst FROM gedges ORDER BY i;
ALTER TABLE i_follows ADD PRIMARY KEY (src, dst);
CREATE INDEX i_follows_dst_src ON i_follows (dst, src);
CREATE TABLE i_friends (src bigint, dst bigint);
INSERT INTO i_friends SELECT src, substr(sk, 13)::bigint FROM gall WHERE sk LIKE 'FRIEND#%' ORDER BY ord;
ALTER TABLE i_friends ADD PRIMARY KEY (src, dst);
CREATE INDEX i_friends_dst_src ON i_friends (dst, src);

SELECT count(*) > 0 AS has_pgrouting FROM pg_extension WHERE extname = 'pgrouting' \gset
\if :has_pgrouting
CREATE TABLE pgr_edges (id bigint PRIMARY KEY, source bigint NOT NULL, target bigint NOT NULL, cost float8 NOT NULL);
INSERT INTO pgr_edges SELECT i, src, dst, 1 FROM gedges ORDER BY i;
\endif
\endif

-- degrees of FOLLOWS# and FRIEND#
CREATE TABLE degrees AS
SELECT coalesce(o.id, i.id) AS id, coalesce(o.n, 0) AS out_degree, coalesce(i.n, 0) AS in_degree
FROM (SELECT src AS id, count(*) AS n FROM gedges GROUP BY src) o
FULL JOIN (SELECT dst AS id, count(*) AS n FROM gedges GROUP BY dst) i ON i.id = o.id;
CREATE TEMP TABLE fdeg AS
SELECT src AS id, count(*) AS n FROM gall WHERE sk LIKE 'FRIEND#%' GROUP BY src;

CREATE TABLE bench_nodes (role text, ord int, id bigint, node text);
WITH med AS (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY out_degree) AS mo
			 FROM degrees WHERE out_degree > 0),
	 medi AS (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY in_degree) AS mi
			  FROM degrees WHERE in_degree > 0)
INSERT INTO bench_nodes
SELECT 'median', 1, id, NULL FROM (
	SELECT d.id FROM degrees d, med, medi WHERE d.out_degree = med.mo AND d.in_degree > 0
	ORDER BY abs(d.in_degree - medi.mi), hashint8extended(d.id, :seed) LIMIT 1) s
UNION ALL
SELECT CASE r WHEN 1 THEN 'out_hub' ELSE 'out_hub2' END, 1, id, NULL
FROM (SELECT id, row_number() OVER (ORDER BY out_degree DESC, id) AS r FROM degrees) s WHERE r <= 2
UNION ALL
SELECT CASE r WHEN 1 THEN 'in_hub' ELSE 'in_hub2' END, 1, id, NULL
FROM (SELECT id, row_number() OVER (ORDER BY in_degree DESC, id) AS r FROM degrees) s WHERE r <= 2
UNION ALL
SELECT 'rand', r, id, NULL
FROM (SELECT id, row_number() OVER (ORDER BY hashint8extended(id, :seed + 1), id) AS r
	  FROM degrees WHERE out_degree > 0) s WHERE r <= 6
UNION ALL
SELECT 'friend_median', 1, id, NULL FROM (
	SELECT f.id FROM fdeg f,
		(SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY n) AS m FROM fdeg) m
	WHERE f.n = m.m
	  AND EXISTS (SELECT FROM gall a JOIN gall b ON b.src = substr(a.sk, 13)::bigint
				  WHERE a.src = f.id AND a.sk LIKE 'FRIEND#%' AND b.sk LIKE 'FRIEND#%'
					AND b.sk <> 'FRIEND#USER#' || f.id)
	ORDER BY hashint8extended(f.id, :seed) LIMIT 1) s
UNION ALL
SELECT 'friend_hub', 1, id, NULL FROM (SELECT id FROM fdeg ORDER BY n DESC, id LIMIT 1) s;
INSERT INTO bench_nodes
SELECT 'cn_b', 1, y.src, NULL
FROM bench_nodes m
JOIN gedges x ON x.src = m.id
JOIN gedges y ON y.dst = x.dst AND y.src <> m.id
JOIN degrees d ON d.id = y.src
CROSS JOIN (SELECT out_degree FROM degrees WHERE id = (SELECT id FROM bench_nodes WHERE role = 'median')) md
WHERE m.role = 'median'
ORDER BY abs(d.out_degree - md.out_degree), hashint8extended(y.src, :seed), y.src
LIMIT 1;
UPDATE bench_nodes SET node = 'USER#' || id;

-- traversal starts and shortest-path targets
CREATE TABLE bench_starts AS
SELECT row_number() OVER (ORDER BY CASE role WHEN 'median' THEN 0 WHEN 'out_hub' THEN 1 ELSE 2 END, ord)::int AS ord,
	   role, id, node
FROM bench_nodes WHERE role IN ('median', 'out_hub', 'rand');
ALTER TABLE bench_starts ADD COLUMN target_id bigint, ADD COLUMN target text, ADD COLUMN dist int;
UPDATE bench_starts s SET (target, dist) = (
	SELECT node::text, depth FROM traverse('edges', s.node::adjkey, 'FOLLOWS#', 4) r
	WHERE depth <= CASE WHEN s.ord % 2 = 1 THEN 3 ELSE 4 END
	ORDER BY depth DESC, hashtext(node::text), node LIMIT 1);
UPDATE bench_starts SET target_id = substr(target, 6)::bigint;

CREATE TABLE graph_info AS
SELECT :scale AS scale,
	   (SELECT count(*) FROM gedges) AS follows,
	   (SELECT count(*) FROM gall WHERE sk LIKE 'FRIEND#%') AS friends,
	   (SELECT count(*) FROM gall WHERE sk LIKE 'LIKES#%') AS likes,
	   (SELECT count(*) FROM degrees) AS nodes,
	   (SELECT max(out_degree) FROM degrees) AS max_out_degree,
	   (SELECT max(in_degree) FROM degrees) AS max_in_degree,
	   (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY out_degree) FROM degrees WHERE out_degree > 0) AS median_out_degree,
	   (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY in_degree) FROM degrees WHERE in_degree > 0) AS median_in_degree;
DROP TABLE gall, gedges, fdeg;
