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

DROP SCHEMA graph_sec CASCADE;
DROP ROLE regress_graph_owner;
DROP ROLE regress_graph_reader;
DROP ROLE regress_graph_nobody;
