--
-- graph functions run with the caller's rights: privileges and row-level
-- security give the same answers as a plain SELECT by that caller
--
\set SHOW_CONTEXT never
CREATE ROLE regress_graph_owner;
CREATE ROLE regress_graph_reader;
CREATE ROLE regress_graph_nobody;
CREATE SCHEMA graph_sec AUTHORIZATION regress_graph_owner;
GRANT USAGE ON SCHEMA graph_sec TO regress_graph_reader, regress_graph_nobody;
SET ROLE regress_graph_owner;
CREATE TABLE graph_sec.g (pk adjkey, sk adjkey, data jsonb, secret boolean DEFAULT false,
						  PRIMARY KEY (pk, sk));
INSERT INTO graph_sec.g VALUES
	('USER#a', 'FOLLOWS#USER#b', '{"n": 1}', false),
	('USER#a', 'FOLLOWS#USER#c', '{"n": 2}', true),
	('USER#b', 'FOLLOWS#USER#c', '{"n": 3}', false),
	('USER#c', 'FOLLOWS#USER#d', '{"n": 4}', true),
	('USER#d', 'FOLLOWS#USER#a', '{"n": 5}', false),
	('USER#e', 'FOLLOWS#USER#c', '{"n": 6}', false);
SELECT create_inverted_index('graph_sec.g');
-- the same table, partitioned (the SPI path)
CREATE TABLE graph_sec.gp (pk adjkey, sk adjkey, data jsonb, secret boolean DEFAULT false,
						   PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE graph_sec.gp_0 PARTITION OF graph_sec.gp FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE graph_sec.gp_1 PARTITION OF graph_sec.gp FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO graph_sec.gp SELECT * FROM graph_sec.g;
SELECT create_inverted_index('graph_sec.gp');
GRANT SELECT ON graph_sec.g, graph_sec.gp TO regress_graph_reader;
CREATE TABLE graph_sec.not_graph (id int PRIMARY KEY);
RESET ROLE;

-- no SELECT on the table: every function refuses
SET ROLE regress_graph_nobody;
SELECT * FROM neighbors('graph_sec.g', 'USER#a', 'FOLLOWS#');
SELECT * FROM reverse_neighbors('graph_sec.g', 'USER#c', 'FOLLOWS#');
SELECT * FROM traverse('graph_sec.g', 'USER#a', 'FOLLOWS#', 3);
SELECT shortest_path('graph_sec.g', 'USER#a', 'USER#d', 'FOLLOWS#');
SELECT degree('graph_sec.g', 'USER#c', 'FOLLOWS#', 'in');
SELECT * FROM query('graph_sec.g', 'USER#a');
SELECT * FROM neighbors('graph_sec.gp', 'USER#a', 'FOLLOWS#');
-- nor does it learn anything of a table's shape
SELECT * FROM neighbors('graph_sec.not_graph', 'USER#a', 'FOLLOWS#');
SELECT * FROM query('graph_sec.not_graph', 'USER#a');
RESET ROLE;

-- SELECT on the table is enough, also for in-edges: the reader has no
-- privilege on the index table itself
SET ROLE regress_graph_reader;
SELECT count(*) FROM graph_sec.g_inverted;
SELECT neighbor FROM reverse_neighbors('graph_sec.g', 'USER#c', 'FOLLOWS#');
RESET ROLE;

-- row-level security: the reader sees only rows that are not secret
ALTER TABLE graph_sec.g ENABLE ROW LEVEL SECURITY;
ALTER TABLE graph_sec.gp ENABLE ROW LEVEL SECURITY;
CREATE POLICY not_secret ON graph_sec.g FOR SELECT TO regress_graph_reader USING (NOT secret);
CREATE POLICY not_secret ON graph_sec.gp FOR SELECT TO regress_graph_reader USING (NOT secret);
SET ROLE regress_graph_reader;
SELECT tbl,
	   ARRAY(SELECT neighbor FROM neighbors(tbl, 'USER#a', 'FOLLOWS#')) AS a_out,
	   ARRAY(SELECT sk FROM graph_sec.g WHERE pk = 'USER#a' AND sk ^@ 'FOLLOWS#' ORDER BY sk) AS a_out_select,
	   ARRAY(SELECT neighbor FROM reverse_neighbors(tbl, 'USER#c', 'FOLLOWS#')) AS c_in,
	   ARRAY(SELECT pk FROM graph_sec.g WHERE sk = 'FOLLOWS#USER#c' ORDER BY pk) AS c_in_select,
	   ARRAY(SELECT data FROM reverse_neighbors(tbl, 'USER#c', 'FOLLOWS#')) AS c_in_data,
	   degree(tbl, 'USER#c', 'FOLLOWS#', 'in') AS c_in_degree,
	   has_edge(tbl, 'USER#a', 'USER#c', 'FOLLOWS#') AS a_c_visible,
	   ARRAY(SELECT node FROM traverse(tbl, 'USER#a', 'FOLLOWS#', 5)) AS reach_from_a,
	   shortest_path(tbl, 'USER#a', 'USER#d', 'FOLLOWS#') AS a_to_d,
	   shortest_path(tbl, 'USER#e', 'USER#a', 'FOLLOWS#', direction => 'both') AS e_to_a,
	   ARRAY(SELECT * FROM common_neighbors(tbl, 'USER#a', 'USER#b', 'FOLLOWS#')) AS common_ab,
	   ARRAY(SELECT sort_key FROM query(tbl, 'USER#a')) AS query_a
FROM (VALUES ('graph_sec.g'::regclass), ('graph_sec.gp')) t(tbl);
RESET ROLE;
-- the owner is not subject to the policy
SELECT ARRAY(SELECT neighbor FROM neighbors('graph_sec.g', 'USER#a', 'FOLLOWS#')) AS a_out,
	   ARRAY(SELECT neighbor FROM reverse_neighbors('graph_sec.g', 'USER#c', 'FOLLOWS#')) AS c_in;

-- edge filters under row-level security: every function gives what the
-- reader's own SELECT ... WHERE data @> filter gives, whether the index
-- projects data (gi) or not (g2, read through the base rows), and on a
-- partitioned table (g2p)
SET ROLE regress_graph_owner;
CREATE TABLE graph_sec.g2 (pk adjkey, sk adjkey, data jsonb, secret boolean DEFAULT false,
						   PRIMARY KEY (pk, sk));
INSERT INTO graph_sec.g2
SELECT ('U#' || a)::adjkey, ('L#U#' || b)::adjkey,
	   CASE WHEN (a + b) % 5 = 0 THEN NULL
			ELSE jsonb_build_object('ok', (a * b) % 3 <> 0, 'w', 1 + (a * 7 + b) % 4) END,
	   (a * 3 + b) % 4 = 0
FROM generate_series(1, 12) a, generate_series(1, 12) b WHERE (a * 5 + b * 3) % 7 < 3 AND a <> b;
SELECT create_inverted_index('graph_sec.g2');
CREATE TABLE graph_sec.gi (LIKE graph_sec.g2 INCLUDING ALL);
INSERT INTO graph_sec.gi SELECT * FROM graph_sec.g2;
SELECT create_inverted_index('graph_sec.gi', include => '{data}');
CREATE TABLE graph_sec.g2p (pk adjkey, sk adjkey, data jsonb, secret boolean DEFAULT false,
							PRIMARY KEY (pk, sk)) PARTITION BY HASH (pk);
CREATE TABLE graph_sec.g2p_0 PARTITION OF graph_sec.g2p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE graph_sec.g2p_1 PARTITION OF graph_sec.g2p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO graph_sec.g2p SELECT * FROM graph_sec.g2;
SELECT create_inverted_index('graph_sec.g2p');
GRANT SELECT ON graph_sec.g2, graph_sec.gi, graph_sec.g2p TO regress_graph_reader;
ALTER TABLE graph_sec.g2 ENABLE ROW LEVEL SECURITY;
ALTER TABLE graph_sec.gi ENABLE ROW LEVEL SECURITY;
ALTER TABLE graph_sec.g2p ENABLE ROW LEVEL SECURITY;
CREATE POLICY not_secret ON graph_sec.g2 FOR SELECT TO regress_graph_reader USING (NOT secret);
CREATE POLICY not_secret ON graph_sec.gi FOR SELECT TO regress_graph_reader USING (NOT secret);
CREATE POLICY not_secret ON graph_sec.g2p FOR SELECT TO regress_graph_reader USING (NOT secret);
RESET ROLE;
SET ROLE regress_graph_reader;
-- what the reader sees, filtered, and BFS over it
CREATE TEMP VIEW seen AS
SELECT pk AS a, key_tail(sk, 1) AS b, data FROM graph_sec.g2 WHERE sk ^@ 'L#';
CREATE FUNCTION pg_temp.ref_reach(start adjkey, dir text, f jsonb) RETURNS bigint LANGUAGE sql AS $$
	WITH RECURSIVE e(a, b) AS (
		SELECT a, b FROM seen WHERE data @> f AND dir IN ('out', 'both')
		UNION ALL SELECT b, a FROM seen WHERE data @> f AND dir IN ('in', 'both')),
	r(node, d) AS (SELECT start, 0 UNION SELECT e.b, r.d + 1 FROM r JOIN e ON e.a = r.node WHERE r.d < 4)
	SELECT count(DISTINCT node) - 1 FROM r
$$;
SELECT tbl, f, count(*) AS nodes,
	   sum(degree(tbl, n, 'L#', 'in', edge_filter => f)) AS in_edges_seen,
	   count(*) FILTER (WHERE ARRAY(SELECT ROW(neighbor, data) FROM neighbors(tbl, n, 'L#', edge_filter => f))
		   <> ARRAY(SELECT ROW(b, data) FROM seen WHERE a = n AND data @> f ORDER BY b)) AS wrong_out,
	   count(*) FILTER (WHERE ARRAY(SELECT ROW(neighbor, data) FROM reverse_neighbors(tbl, n, 'L#', edge_filter => f))
		   <> ARRAY(SELECT ROW(a, data) FROM seen WHERE b = n AND data @> f ORDER BY a)) AS wrong_in,
	   count(*) FILTER (WHERE degree(tbl, n, 'L#', edge_filter => f) <> (SELECT count(*) FROM seen WHERE a = n AND data @> f)
		   OR degree(tbl, n, 'L#', 'in', edge_filter => f) <> (SELECT count(*) FROM seen WHERE b = n AND data @> f)) AS wrong_degree,
	   count(*) FILTER (WHERE reachable_count(tbl, n, 'L#', 4, 'out', edge_filter => f) <> pg_temp.ref_reach(n, 'out', f)
		   OR reachable_count(tbl, n, 'L#', 4, 'in', edge_filter => f) <> pg_temp.ref_reach(n, 'in', f)
		   OR reachable_count(tbl, n, 'L#', 4, 'both', edge_filter => f) <> pg_temp.ref_reach(n, 'both', f)) AS wrong_reach,
	   count(*) FILTER (WHERE (SELECT count(*) FROM traverse(tbl, n, 'L#', 4, 'both', edge_filter => f))
		   <> pg_temp.ref_reach(n, 'both', f)) AS wrong_traverse,
	   count(*) FILTER (WHERE ARRAY(SELECT * FROM common_neighbors(tbl, n, 'U#1', 'L#', 'in', edge_filter => f))
		   <> ARRAY(SELECT a FROM seen WHERE b = n AND data @> f INTERSECT
					SELECT a FROM seen WHERE b = 'U#1' AND data @> f ORDER BY 1)) AS wrong_common,
	   count(*) FILTER (WHERE EXISTS (SELECT 1 FROM seen x WHERE x.a = 'U#2' AND x.b = n
									  AND has_edge(tbl, x.a, x.b, 'L#', edge_filter => f)
										  IS DISTINCT FROM coalesce(x.data @> f, false))) AS wrong_has_edge
FROM (VALUES ('graph_sec.g2'::regclass), ('graph_sec.gi'), ('graph_sec.g2p')) t(tbl),
	 (SELECT ('U#' || i)::adjkey AS n FROM generate_series(1, 12) i) ns,
	 (VALUES ('{"ok": true}'::jsonb), ('{}')) v(f)
GROUP BY tbl, f ORDER BY tbl::text, f::text;
-- shortest paths over the edges the reader sees and the filter passes
SELECT tbl,
	   shortest_path(tbl, 'U#1', 'U#11', 'L#', edge_filter => '{"ok": true}') AS bfs,
	   (SELECT ROW(path, cost) FROM shortest_path_weighted(tbl, 'U#1', 'U#11', 'L#', 'w', edge_filter => '{"ok": true}')) AS dijkstra,
	   (SELECT ROW(path, cost) FROM shortest_path_weighted(tbl, 'U#11', 'U#1', 'L#', 'w', 'in', edge_filter => '{"ok": true}')) AS dijkstra_in
FROM (VALUES ('graph_sec.g2'::regclass), ('graph_sec.gi'), ('graph_sec.g2p')) t(tbl);
DROP VIEW seen;
DROP FUNCTION pg_temp.ref_reach(adjkey, text, jsonb);
RESET ROLE;

-- Checked at every call, whatever this session has cached of the table
-- (graph_meta.c keeps its metadata and skips the catalogs while no
-- invalidation arrived; the one-hop calls in FROM and common_neighbors
-- stream without SPI): GRANT, REVOKE, policies, drop_inverted_index() and
-- DROP TABLE after the table was read are seen by the next call.
SET ROLE regress_graph_owner;
CREATE TABLE graph_sec.g3 (pk adjkey, sk adjkey, data jsonb, secret boolean DEFAULT false,
						   PRIMARY KEY (pk, sk));
INSERT INTO graph_sec.g3 SELECT * FROM graph_sec.g;
SELECT create_inverted_index('graph_sec.g3', include => '{data}');
GRANT SELECT ON graph_sec.g3 TO regress_graph_reader;
RESET ROLE;
CREATE FUNCTION pg_temp.outcome(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
BEGIN
	EXECUTE 'SELECT string_agg(x::text, '' '') FROM (' || q || ') x' INTO r;
	RETURN coalesce(r, '(none)');
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM, 'OID [0-9]+', 'OID n');
END
$$;
CREATE TEMP VIEW calls (what, q) AS VALUES
	('out', 'SELECT neighbor, data FROM neighbors(''graph_sec.g3'', ''USER#a'', ''FOLLOWS#'')'),
	('in', 'SELECT neighbor, data FROM reverse_neighbors(''graph_sec.g3'', ''USER#c'', ''FOLLOWS#'')'),
	('in keys', 'SELECT neighbor FROM reverse_neighbors(''graph_sec.g3'', ''USER#c'', ''FOLLOWS#'')'),
	('common', 'SELECT * FROM common_neighbors(''graph_sec.g3'', ''USER#a'', ''USER#b'', ''FOLLOWS#'')'),
	('common in', 'SELECT * FROM common_neighbors(''graph_sec.g3'', ''USER#b'', ''USER#c'', ''FOLLOWS#'', ''in'')');
GRANT SELECT ON calls TO PUBLIC;
SET ROLE regress_graph_reader;
SELECT what, pg_temp.outcome(q) FROM calls;	-- read, and cached
RESET ROLE;
REVOKE SELECT ON graph_sec.g3 FROM regress_graph_reader;
SET ROLE regress_graph_reader;
SELECT what, pg_temp.outcome(q) FROM calls;	-- 42501
RESET ROLE;
-- the keys only, not the data: what reads data is refused
GRANT SELECT (pk, sk) ON graph_sec.g3 TO regress_graph_reader;
SET ROLE regress_graph_reader;
SELECT what, pg_temp.outcome(q) FROM calls;
RESET ROLE;
GRANT SELECT (data, secret) ON graph_sec.g3 TO regress_graph_reader;
SET ROLE regress_graph_reader;
SELECT what, pg_temp.outcome(q) FROM calls;	-- every column: as the table
RESET ROLE;
REVOKE SELECT (pk, sk, data, secret) ON graph_sec.g3 FROM regress_graph_reader;
GRANT SELECT ON graph_sec.g3 TO regress_graph_reader;
-- a policy made after the table was read hides its rows from the next
-- call, and a changed one shows what it now allows
ALTER TABLE graph_sec.g3 ENABLE ROW LEVEL SECURITY;
CREATE POLICY not_secret ON graph_sec.g3 FOR SELECT TO regress_graph_reader USING (NOT secret);
SET ROLE regress_graph_reader;
SELECT what, pg_temp.outcome(q) FROM calls;
RESET ROLE;
ALTER POLICY not_secret ON graph_sec.g3 USING (secret);
SET ROLE regress_graph_reader;
SELECT what, pg_temp.outcome(q) FROM calls;
RESET ROLE;
ALTER TABLE graph_sec.g3 DISABLE ROW LEVEL SECURITY;
SET ROLE regress_graph_reader;
SELECT what, pg_temp.outcome(q) FROM calls;
RESET ROLE;
-- the inverted index dropped, then the table (called by its OID): 42704,
-- then 42P01, as without a cache
SELECT drop_inverted_index('graph_sec.g3_inverted');
SELECT what, pg_temp.outcome(q) FROM calls;
SELECT 'graph_sec.g3'::regclass::oid AS g3_oid \gset
DROP TABLE graph_sec.g3;
SELECT what, pg_temp.outcome(replace(q, '''graph_sec.g3''', :'g3_oid' || '::oid::regclass')) FROM calls;
DROP VIEW calls;
DROP FUNCTION pg_temp.outcome(text);

DROP SCHEMA graph_sec CASCADE;
DROP ROLE regress_graph_owner;
DROP ROLE regress_graph_reader;
DROP ROLE regress_graph_nobody;
