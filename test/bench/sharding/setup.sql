-- Coordinator set-up of the sharding benchmark.  psql variables:
-- :s1host :s1port :s2host :s2port (the shards), :n (edges).
CREATE EXTENSION IF NOT EXISTS adjlist;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER shard0 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'s1host', port :'s1port', dbname 'postgres', extensions 'adjlist');
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'s2host', port :'s2port', dbname 'postgres', extensions 'adjlist');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard0;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1;

-- sharded: base by pk, index by its own partition key, foreign partitions
CREATE TABLE edges (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb) PARTITION BY HASH (pk);
CREATE FOREIGN TABLE edges_0 PARTITION OF edges FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard0 OPTIONS (table_name 'edges_part');
CREATE FOREIGN TABLE edges_1 PARTITION OF edges FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard1 OPTIONS (table_name 'edges_part');
CREATE TABLE edges_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL) PARTITION BY HASH (sk);
CREATE FOREIGN TABLE edges_inverted_0 PARTITION OF edges_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard0 OPTIONS (table_name 'rev_part');
CREATE FOREIGN TABLE edges_inverted_1 PARTITION OF edges_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard1 OPTIONS (table_name 'rev_part');

-- single server: the same tables, local
CREATE TABLE single (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));

INSERT INTO edges SELECT 'USER#' || g, 'FOLLOWS#USER#' || (g * 7 % :n), NULL FROM generate_series(1, :n) g;
INSERT INTO single SELECT 'USER#' || g, 'FOLLOWS#USER#' || (g * 7 % :n), NULL FROM generate_series(1, :n) g;
SELECT create_inverted_index('edges', base_key => '{pk,sk}', existing => true);
SELECT create_inverted_index('single');
ANALYZE;
