--
-- The write API: put_edge, put_edges, delete_edge and delete_node write the
-- table and its inverted indexes in one transaction.  On a local table the
-- triggers keep every index whatever its mode, so plain writes are indexed
-- as well; mode 'api' matters where no trigger runs (Citus), where the API
-- writes the index rows itself.  Also an index table the caller made
-- (existing => true) on a table without a primary key (base_key => ...), as
-- with foreign partitions.
--
\set SHOW_CONTEXT never
CREATE FUNCTION pg_temp.drift(idx regclass) RETURNS bigint LANGUAGE sql AS
	$$ SELECT count(*) FROM verify_inverted_index(idx) $$;

CREATE TABLE api (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO api VALUES ('USER#alice', 'FOLLOWS#USER#bob', NULL);
SELECT create_inverted_index('api', include => '{data}', mode => 'api');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'api'::regclass ORDER BY 1;
-- plain writes are indexed
INSERT INTO api VALUES ('USER#zed', 'FOLLOWS#USER#bob', NULL);
UPDATE api SET data = '{"plain": true}' WHERE pk = 'USER#zed';
SELECT * FROM api_inverted WHERE pk = 'USER#zed';
MERGE INTO api a USING (VALUES ('USER#zed'::adjkey)) v(pk) ON a.pk = v.pk WHEN MATCHED THEN DELETE;
SELECT count(*) AS rows FROM api;
SELECT pg_temp.drift('api_inverted');
SELECT mode, base_key FROM adjlist_inverted_indexes WHERE indexrel = 'api_inverted'::regclass;

SELECT put_edge('api', 'USER#carol', 'FOLLOWS#USER#bob', '{"since": 2024}');
SELECT put_edge('api', 'USER#carol', 'FOLLOWS#USER#bob', '{"since": 2025}');	-- replaces
SELECT put_edges('api', '[{"pk": "USER#dave", "sk": "FOLLOWS#USER#bob"},
						  {"pk": "USER#dave", "sk": "FOLLOWS#USER#carol", "data": {"x": 1}},
						  {"pk": "USER#bob", "sk": "FOLLOWS#USER#carol"}]');
SELECT * FROM api_inverted ORDER BY 1, 2;
SELECT pg_temp.drift('api_inverted');
SELECT delete_edge('api', 'USER#dave', 'FOLLOWS#USER#bob') AS deleted,
	   delete_edge('api', 'USER#dave', 'FOLLOWS#USER#bob') AS again;
SELECT pg_temp.drift('api_inverted');
-- a node and every edge pointing at it
SELECT delete_node('api', 'USER#carol', ARRAY['FOLLOWS#']);
SELECT * FROM api ORDER BY 1, 2;
SELECT * FROM api_inverted ORDER BY 1, 2;
SELECT pg_temp.drift('api_inverted');
-- one transaction: a failure leaves nothing behind
BEGIN;
SELECT put_edge('api', 'USER#erin', 'FOLLOWS#USER#bob');
SELECT put_edge('api', 'USER#erin', NULL);
ROLLBACK;
SELECT count(*) FROM api_inverted WHERE pk = 'USER#erin';
SELECT put_edge('api', 'USER#erin', 'FOLLOWS#USER#bob', '{}');
-- put_edges: member names in any case, and the last of a repeated key wins
SELECT put_edges('api', '[{"PK": "USER#fay", "Sk": "FOLLOWS#USER#bob", "Data": {"v": 1}},
						  {"pk": "USER#fay", "sk": "FOLLOWS#USER#bob", "data": {"v": 2}}]');
SELECT data FROM api WHERE pk = 'USER#fay';
SELECT pg_temp.drift('api_inverted');
SELECT put_edges('api', '{"pk": "USER#x"}');
SELECT put_edges('api', '[{"sk": "FOLLOWS#USER#bob"}]');
SELECT put_edges('api', '[]');
-- TRUNCATE empties the index as well
BEGIN;
TRUNCATE api;
SELECT count(*) AS index_rows FROM api_inverted;
ROLLBACK;
SELECT put_edge('nowhere', 'USER#erin', 'FOLLOWS#USER#bob');
CREATE TABLE api_noidx (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT put_edge('api_noidx', 'USER#erin', 'FOLLOWS#USER#bob');
SELECT create_inverted_index('api', mode => 'sometimes', index_name => 'x');

-- a table without a primary key, and an index table made by the caller
CREATE TABLE nopk (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb);
CREATE TABLE nopk_rev (sk adjkey NOT NULL, pk adjkey NOT NULL);	-- no unique index either
INSERT INTO nopk VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
SELECT create_inverted_index('nopk');
SELECT create_inverted_index('nopk', base_key => '{pk,nope}', index_name => 'nopk_rev', existing => true);
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'nopk_x', existing => true);
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'nopk_rev', existing => true);
SELECT * FROM nopk_rev;
INSERT INTO nopk VALUES ('USER#c', 'FOLLOWS#USER#b', NULL), ('USER#c', 'FOLLOWS#USER#d', NULL);
UPDATE nopk SET sk = 'FOLLOWS#USER#e' WHERE pk = 'USER#c' AND sk = 'FOLLOWS#USER#d';
DELETE FROM nopk WHERE pk = 'USER#a';
SELECT * FROM nopk_rev ORDER BY 1, 2;
SELECT pg_temp.drift('nopk_rev');
CREATE TABLE wrong_rev (sk text, pk adjkey);
SELECT create_inverted_index('nopk', base_key => '{pk,sk}', index_name => 'wrong_rev', existing => true);
-- graph functions read a table without a primary key by its registered key
SELECT neighbor FROM neighbors('nopk', 'USER#c', 'FOLLOWS#');
SELECT neighbor FROM reverse_neighbors('nopk', 'USER#b', 'FOLLOWS#');
SELECT shortest_path('nopk', 'USER#c', 'USER#e', 'FOLLOWS#');
-- a table may have indexes of both modes: plain writes and the API keep both
CREATE TABLE mixed (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('mixed');
SELECT create_inverted_index('mixed', index_name => 'mixed_api', mode => 'api');
INSERT INTO mixed VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
SELECT put_edge('mixed', 'USER#c', 'FOLLOWS#USER#b');
SELECT (SELECT count(*) FROM mixed_inverted) AS by_trigger, (SELECT count(*) FROM mixed_api) AS by_api;
SELECT pg_temp.drift('mixed_inverted'), pg_temp.drift('mixed_api');
-- API mode keeps degree counters too
SELECT create_inverted_index('api', index_name => 'api_counted', mode => 'api', counters => 1);
SELECT put_edge('api', 'USER#gus', 'FOLLOWS#USER#bob');
SELECT put_edge('api', 'USER#gus', 'FOLLOWS#USER#bob', '{"again": true}');	-- not a new edge
SELECT edge_count('api_counted', 'USER#bob', 'FOLLOWS', 'in') AS bob_in,
	   (SELECT count(*) FROM api WHERE sk = 'FOLLOWS#USER#bob') AS recount;
SELECT delete_edge('api', 'USER#gus', 'FOLLOWS#USER#bob');
SELECT edge_count('api_counted', 'USER#bob', 'FOLLOWS', 'in') AS bob_in;
SELECT pg_temp.drift('api_counted');
-- a table Citus distributes: trigger mode is refused, API mode is not.
-- Citus is not installable here; its catalog table is imitated (what
-- adjlist_is_citus_table() reads: pg_dist_partition.logicalrelid).
CREATE TABLE distributed (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SET allow_system_table_mods = on;
CREATE TABLE pg_catalog.pg_dist_partition (logicalrelid regclass);
RESET allow_system_table_mods;
INSERT INTO pg_catalog.pg_dist_partition VALUES ('distributed');
\set VERBOSITY default
SELECT create_inverted_index('distributed');
\set VERBOSITY terse
SELECT create_inverted_index('distributed', mode => 'api');
SELECT put_edge('distributed', 'USER#a', 'FOLLOWS#USER#b');
SELECT neighbor FROM reverse_neighbors('distributed', 'USER#b', 'FOLLOWS#');
SET allow_system_table_mods = on;
DROP TABLE pg_catalog.pg_dist_partition;
RESET allow_system_table_mods;
