--
-- shortest_path_weighted: Dijkstra's algorithm over a number in the edges'
-- data; exact answers on a small road map, in every direction and on every
-- read path, ties, limits, and every error with its SQLSTATE
--
\set SHOW_CONTEXT never
CREATE TABLE roads (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO roads VALUES
	('CITY#A', 'PROFILE', '{"name": "not an edge"}'),
	('CITY#A', 'ROAD#CITY#B', '{"km": 4, "toll": false}'),
	('CITY#A', 'ROAD#CITY#C', '{"km": 2, "toll": false}'),
	('CITY#C', 'ROAD#CITY#B', '{"km": 1, "toll": true}'),
	('CITY#B', 'ROAD#CITY#D', '{"km": 5, "toll": false}'),
	('CITY#C', 'ROAD#CITY#D', '{"km": 8, "toll": false}'),
	('CITY#C', 'ROAD#CITY#E', '{"km": 10, "toll": false}'),
	('CITY#D', 'ROAD#CITY#E', '{"km": 2, "toll": false}'),
	('CITY#E', 'ROAD#CITY#F', '{"km": 0}'),						-- a weight of zero
	('CITY#F', 'ROAD#CITY#A', '{"km": 1.5e0}'),					-- back to the start
	('CITY#G', 'ROAD#CITY#H', '{"km": 1}'),						-- another component
	-- ties: A -> T costs 2 by P and by Q (P is settled first: its key is
	-- smaller); A -> U costs 2 directly and by P (the direct edge is read first)
	('CITY#A', 'ROAD#CITY#Q', '{"km": 1}'),
	('CITY#A', 'ROAD#CITY#P', '{"km": 1}'),
	('CITY#Q', 'ROAD#CITY#T', '{"km": 1}'),
	('CITY#P', 'ROAD#CITY#T', '{"km": 1}'),
	('CITY#A', 'ROAD#CITY#U', '{"km": 2}'),
	('CITY#P', 'ROAD#CITY#U', '{"km": 1}'),
	-- other edge types: other weights, or none
	('CITY#A', 'RAIL#CITY#E', '{"minutes": 30}'),
	('CITY#E', 'RAIL#CITY#H', '{"minutes": 45.5}');
SELECT create_inverted_index('roads');
-- the same map through an index projecting data, and partitioned (SQL path)
CREATE TABLE roads_i (LIKE roads INCLUDING ALL);
INSERT INTO roads_i SELECT * FROM roads;
SELECT create_inverted_index('roads_i', include => '{data}');
CREATE TABLE roads_p (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE roads_p0 PARTITION OF roads_p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE roads_p1 PARTITION OF roads_p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO roads_p SELECT * FROM roads;
SELECT create_inverted_index('roads_p');

-- the cheapest path, not the one of fewest hops
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#D', 'ROAD#', 'km');
SELECT shortest_path('roads', 'CITY#A', 'CITY#D', 'ROAD#') AS fewest_hops;
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', 'km');
-- a weight of zero; the start itself; nodes out of reach give no row
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#F', 'ROAD#', 'km');
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#A', 'ROAD#', 'km');
SELECT count(*) AS unreachable FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#G', 'ROAD#', 'km');
SELECT count(*) AS no_such_node FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#nowhere', 'ROAD#', 'km');
-- max_cost: the bound is inclusive
SELECT count(*) AS within_9 FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', 'km', max_cost => 9.99);
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', 'km', max_cost => 10);
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#A', 'ROAD#', 'km', max_cost => 0);
-- edge_filter: no toll roads
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#D', 'ROAD#', 'km', edge_filter => '{"toll": false}');
-- directions: 'in' runs against the edges (in-edges through the inverted
-- index, their weights from the base rows or the index), 'both' either way
SELECT * FROM shortest_path_weighted('roads', 'CITY#E', 'CITY#A', 'ROAD#', 'km', 'in');
SELECT count(*) AS e_to_a_out FROM shortest_path_weighted('roads', 'CITY#E', 'CITY#A', 'ROAD#', 'km')
WHERE cost <> 1.5;
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#F', 'ROAD#', 'km', 'both');
SELECT * FROM shortest_path_weighted('roads', 'CITY#D', 'CITY#A', 'ROAD#', 'km', 'both');
-- ties: always the same path
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#T', 'ROAD#', 'km');
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#U', 'ROAD#', 'km');
SELECT * FROM shortest_path_weighted('roads', 'CITY#T', 'CITY#A', 'ROAD#', 'km', 'in');
-- another edge type and another weight; the default weight is "weight"
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#H', 'RAIL', 'minutes');
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#H', 'RAIL#', 'minutes', 'in');

-- every read path gives the same answers
SELECT src, dst, dir,
	   (SELECT ROW(path, cost) FROM shortest_path_weighted('roads', src, dst, 'ROAD#', 'km', dir)) AS plain,
	   (SELECT ROW(path, cost) FROM shortest_path_weighted('roads_i', src, dst, 'ROAD#', 'km', dir))
		   IS NOT DISTINCT FROM
	   (SELECT ROW(path, cost) FROM shortest_path_weighted('roads', src, dst, 'ROAD#', 'km', dir)) AS same_projected,
	   (SELECT ROW(path, cost) FROM shortest_path_weighted('roads_p', src, dst, 'ROAD#', 'km', dir))
		   IS NOT DISTINCT FROM
	   (SELECT ROW(path, cost) FROM shortest_path_weighted('roads', src, dst, 'ROAD#', 'km', dir)) AS same_partitioned
FROM (VALUES ('CITY#A'::adjkey, 'CITY#E'::adjkey), ('CITY#E', 'CITY#A'), ('CITY#D', 'CITY#T'), ('CITY#B', 'CITY#U')) p(src, dst),
	 (VALUES ('out'), ('in'), ('both')) d(dir)
ORDER BY src, dst, dir;

-- a random graph against Bellman-Ford in PL/pgSQL: every direction, the
-- direct and the SQL read path, with the bidirectional search (an inverted
-- index) and the forward one (none); integer weights 0..5, many ties
SELECT setseed(0.1618);
CREATE TABLE rw (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO rw
SELECT DISTINCT ON (a, b) ('V#' || a)::adjkey, ('R#V#' || b)::adjkey, jsonb_build_object('w', floor(random() * 6)::int)
FROM (SELECT (power(random(), 1.5) * 60)::int AS a, (random() * 60)::int AS b FROM generate_series(1, 260)) x
WHERE a <> b ORDER BY a, b;
SELECT create_inverted_index('rw');
CREATE TABLE rwp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE rwp_0 PARTITION OF rwp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE rwp_1 PARTITION OF rwp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO rwp SELECT * FROM rw;
SELECT create_inverted_index('rwp');
CREATE TABLE rwn (LIKE rw INCLUDING ALL);		-- no inverted index: forward only
INSERT INTO rwn SELECT * FROM rw;
CREATE TEMP TABLE rw_edges AS
SELECT pk AS a, key_tail(sk, 1) AS b, (data->>'w')::float8 AS w FROM rw;
CREATE TEMP TABLE bf (src adjkey, dir text, node adjkey, cost float8, PRIMARY KEY (src, dir, node));
CREATE FUNCTION pg_temp.bellman_ford(s adjkey, d text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO bf VALUES (s, d, s, 0);
	LOOP
		INSERT INTO bf
		SELECT s, d, e.b, min(f.cost + e.w)
		FROM bf f
		JOIN (SELECT a, b, w FROM rw_edges WHERE d IN ('out', 'both')
			  UNION ALL SELECT b, a, w FROM rw_edges WHERE d IN ('in', 'both')) e ON e.a = f.node
		WHERE f.src = s AND f.dir = d
		GROUP BY e.b
		ON CONFLICT (src, dir, node) DO UPDATE SET cost = EXCLUDED.cost WHERE EXCLUDED.cost < bf.cost;
		EXIT WHEN NOT FOUND;
	END LOOP;
END $$;
SELECT count(*) FROM (SELECT pg_temp.bellman_ford(('V#' || i)::adjkey, d)
					  FROM generate_series(0, 56, 4) i, (VALUES ('out'), ('in'), ('both')) v(d)) x;
SELECT tbl, v.dir, count(*) AS pairs, count(r.cost) AS reachable,
	   count(*) FILTER (WHERE r.cost IS DISTINCT FROM b.cost) AS wrong_cost,
	   count(*) FILTER (WHERE r.path[1] <> s OR r.path[cardinality(r.path)] <> t
		   OR r.cost <> (SELECT sum((SELECT min(e.w) FROM rw_edges e
									 WHERE (v.dir <> 'in' AND e.a = r.path[i] AND e.b = r.path[i + 1])
										OR (v.dir <> 'out' AND e.b = r.path[i] AND e.a = r.path[i + 1])))
						 FROM generate_series(1, cardinality(r.path) - 1) i)) AS bad_path
FROM (SELECT ('V#' || i)::adjkey AS s FROM generate_series(0, 56, 4) i) ss
	 CROSS JOIN (SELECT ('V#' || j)::adjkey AS t FROM generate_series(1, 60, 3) j) tt
	 CROSS JOIN (VALUES ('out'), ('in'), ('both')) v(dir)
	 CROSS JOIN (VALUES ('rw'::regclass), ('rwp'), ('rwn')) x(tbl)
	 LEFT JOIN LATERAL shortest_path_weighted(tbl, s, t, 'R#', 'w', v.dir) r ON true
	 LEFT JOIN bf b ON b.src = s AND b.dir = v.dir AND b.node = t
WHERE s <> t AND (tbl <> 'rwn'::regclass OR v.dir = 'out')
GROUP BY tbl, v.dir ORDER BY tbl::text, v.dir;

-- other edge conventions
CREATE TABLE friends (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO friends VALUES ('USER#a', 'FRIEND#b', '{"weight": 3}'), ('USER#b', 'FRIEND#c', '{"weight": 4}'),
						   ('USER#a', 'FRIEND#c', '{"weight": 8}'),
						   ('USER#a', 'USER#c', '{"weight": 1}');
SELECT * FROM shortest_path_weighted('friends', 'USER#a', 'USER#c', 'FRIEND#', target_prefix => 'USER#');
SELECT * FROM shortest_path_weighted('friends', 'USER#a', 'USER#c', 'USER#', sk_is_target => true);

-- NULL arguments: no row; NULL max_cost and edge_filter: no bound, no filter
SELECT count(*) AS null_node FROM shortest_path_weighted('roads', NULL, 'CITY#E', 'ROAD#', 'km');
SELECT count(*) AS null_weight FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', NULL);
SELECT cost FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', 'km', max_cost => NULL, edge_filter => NULL);

-- errors, each with its SQLSTATE
-- an edge the search reads without a number in its weight member (22023)
INSERT INTO roads VALUES ('CITY#B', 'ROAD#CITY#X1', '{"toll": true}'),
						 ('CITY#D', 'ROAD#CITY#X2', '{"km": null}'),
						 ('CITY#E', 'ROAD#CITY#X3', '{"km": "5"}'),
						 ('CITY#F', 'ROAD#CITY#X4', '{"km": -1}'),
						 ('CITY#P', 'ROAD#CITY#X5', NULL),
						 ('CITY#Q', 'ROAD#CITY#X6', '[{"km": 1}]'),
						 ('CITY#T', 'ROAD#CITY#X7', '{"km": 1e400}'),
						 ('CITY#U', 'ROAD#CITY#X8', '{"km": {"value": 1}}');
SELECT * FROM shortest_path_weighted('roads', 'CITY#B', 'CITY#E', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#D', 'CITY#F', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#E', 'CITY#A', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#F', 'CITY#A', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#P', 'CITY#T', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#Q', 'CITY#T', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#U', 'CITY#A', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
-- a number too large for double precision (22003)
SELECT * FROM shortest_path_weighted('roads', 'CITY#T', 'CITY#A', 'ROAD#', 'km');
\echo :LAST_ERROR_SQLSTATE
-- in-edges: the weight of the base row, also when the index has no data
SELECT * FROM shortest_path_weighted('roads', 'CITY#X4', 'CITY#A', 'ROAD#', 'km', 'in');
\echo :LAST_ERROR_SQLSTATE
-- an edge the filter leaves out needs no weight; the edges of the target
-- are never read (P's edge without data is not)
SELECT * FROM shortest_path_weighted('roads', 'CITY#B', 'CITY#E', 'ROAD#', 'km', edge_filter => '{"toll": false}');
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#P', 'ROAD#', 'km');
-- arguments (22023)
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', '');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', 'km', max_cost => -1);
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', 'km', max_cost => 'NaN');
\echo :LAST_ERROR_SQLSTATE
SELECT * FROM shortest_path_weighted('roads', 'CITY#A', 'CITY#E', 'ROAD#', 'km', 'sideways');
\echo :LAST_ERROR_SQLSTATE
-- no inverted index for in-edges (42704); no jsonb column "data" (42703);
-- not a table (42809)
CREATE TABLE oneway (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO oneway VALUES ('N#1', 'E#N#2', '{"weight": 1}');
SELECT * FROM shortest_path_weighted('oneway', 'N#1', 'N#2', 'E#');
SELECT * FROM shortest_path_weighted('oneway', 'N#2', 'N#1', 'E#', direction => 'in');
\echo :LAST_ERROR_SQLSTATE
CREATE TABLE nodata (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT * FROM shortest_path_weighted('nodata', 'N#1', 'N#2', 'E#');
\echo :LAST_ERROR_SQLSTATE
CREATE SEQUENCE not_a_table;
SELECT * FROM shortest_path_weighted('not_a_table', 'N#1', 'N#2', 'E#');
\echo :LAST_ERROR_SQLSTATE
-- privileges (42501): SELECT on the table, or on its keys and data
CREATE ROLE regress_weighted_reader;
CREATE ROLE regress_weighted_keys;
GRANT SELECT ON oneway TO regress_weighted_reader;
GRANT SELECT (pk, sk) ON oneway TO regress_weighted_keys;
SET ROLE regress_weighted_reader;
SELECT * FROM shortest_path_weighted('oneway', 'N#1', 'N#2', 'E#');
SET ROLE regress_weighted_keys;
SELECT * FROM shortest_path_weighted('oneway', 'N#1', 'N#2', 'E#');
\echo :LAST_ERROR_SQLSTATE
RESET ROLE;
DROP OWNED BY regress_weighted_reader, regress_weighted_keys;
DROP ROLE regress_weighted_reader, regress_weighted_keys;

-- limits: a grid of 150 x 150 nodes with weighted edges right and down
CREATE TABLE grid (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO grid
SELECT ('G#' || x || '.' || y)::adjkey, ('E#G#' || (x + dx) || '.' || (y + dy))::adjkey,
	   jsonb_build_object('weight', 1 + (x * 7 + y * 13 + dx) % 5)
FROM generate_series(0, 149) x, generate_series(0, 149) y, (VALUES (1, 0), (0, 1)) d(dx, dy)
WHERE x + dx < 150 AND y + dy < 150;
SELECT create_inverted_index('grid');
SELECT cardinality(path) AS nodes, cost FROM shortest_path_weighted('grid', 'G#0.0', 'G#20.20', 'E#');
SELECT cardinality(path) AS nodes, cost FROM shortest_path_weighted('grid', 'G#20.20', 'G#0.0', 'E#', direction => 'in');
-- adjlist.max_visited caps the nodes reached (54000)
SET adjlist.max_visited = 100;
SELECT * FROM shortest_path_weighted('grid', 'G#0.0', 'G#20.20', 'E#');
\echo :LAST_ERROR_SQLSTATE
-- ... and max_cost keeps the search small enough
SELECT cost FROM shortest_path_weighted('grid', 'G#0.0', 'G#2.2', 'E#', max_cost => 8);
RESET adjlist.max_visited;
-- adjlist.max_memory bounds the node set, costs and heap included (54000)
SET adjlist.max_memory = '64kB';
SELECT * FROM shortest_path_weighted('grid', 'G#0.0', 'G#149.149', 'E#');
\echo :LAST_ERROR_SQLSTATE
RESET adjlist.max_memory;
-- with an inverted index the search runs from both ends; without one it
-- runs forward only: the same costs (of several cheapest paths, each
-- search may pick another, each always the same one)
CREATE TEMP TABLE with_index AS
SELECT a, b, r.path, r.cost
FROM (VALUES ('G#0.0', 'G#20.20'), ('G#3.140', 'G#77.141'), ('G#10.10', 'G#9.9'), ('G#5.5', 'G#5.5')) p(a, b)
LEFT JOIN LATERAL shortest_path_weighted('grid', a::adjkey, b::adjkey, 'E#') r ON true;
SELECT drop_inverted_index('grid_inverted');
SELECT a, b, w.cost, w.path IS NOT DISTINCT FROM r.path AS same_path, w.cost IS NOT DISTINCT FROM r.cost AS same_cost
FROM with_index w
LEFT JOIN LATERAL shortest_path_weighted('grid', a::adjkey, b::adjkey, 'E#') r ON true
ORDER BY a, b;
-- statement_timeout stops one long search from inside (57014): the whole
-- grid, forward, for a target that is not there
SET statement_timeout = '10ms';
SELECT * FROM shortest_path_weighted('grid', 'G#0.0', 'G#nowhere', 'E#');
\echo :LAST_ERROR_SQLSTATE
RESET statement_timeout;
SELECT 1 AS still_usable;

DROP TABLE roads, roads_i, roads_p, rw, rwp, rwn, friends, oneway, nodata, grid;
DROP SEQUENCE not_a_table;
