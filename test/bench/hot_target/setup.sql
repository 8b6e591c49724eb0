-- Coordinator set-up of test/bench/hot_target.sh.  psql variables:
-- :s1host :s1port :s2host :s2port (the shards), :preload (followers of the
-- hot target loaded before the runs), :others (edges to other targets),
-- :shards (write_shards of the write-sharded variants).
--
-- Four base tables, each with an inverted index (sk, pk):
--   hot_plain, hot_ws   local (one server: parts A and C)
--   fdw_plain, fdw_ws   hash-partitioned by pk, index hash-partitioned by
--                       sk, every partition a postgres_fdw foreign table
--                       on one of the two shards (part B)
-- *_plain: create_inverted_index(tbl); *_ws: ... write_shards => :shards.
-- Each holds the same preloaded data: :preload followers of the hot target
-- FOLLOWS#USER#celebrity with scattered source keys, and :others edges to
-- 1000 other targets.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS adjlist;
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER shard0 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'s1host', port :'s1port', dbname 'postgres', extensions 'adjlist');
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'s2host', port :'s2port', dbname 'postgres', extensions 'adjlist');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard0;
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1;

-- Source keys of the new followers, made by the pgbench scripts from this
-- sequence (one for all tables; the two patterns differ by prefix, so no
-- key repeats within a table):
--   increasing  'USER#s' || lpad(v, 12, '0')
--   scattered   'USER#r' || lpad(v * 982451653 % 10^12, 12, '0')
--               (982451653 is prime, so coprime to 10^12: a bijection,
--               no duplicates, consecutive values far apart in key order)
-- Preloaded followers are 'USER#p' || the scattered form of 1..:preload.
CREATE SEQUENCE hot_src;

-- one server
CREATE TABLE hot_plain (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE hot_ws    (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));

-- postgres_fdw: base by pk, index by its partition key, foreign partitions
CREATE TABLE fdw_plain (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb) PARTITION BY HASH (pk);
CREATE FOREIGN TABLE fdw_plain_0 PARTITION OF fdw_plain FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard0 OPTIONS (table_name 'fdw_plain_part');
CREATE FOREIGN TABLE fdw_plain_1 PARTITION OF fdw_plain FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard1 OPTIONS (table_name 'fdw_plain_part');
CREATE TABLE fdw_plain_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL) PARTITION BY HASH (sk);
CREATE FOREIGN TABLE fdw_plain_inverted_0 PARTITION OF fdw_plain_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard0 OPTIONS (table_name 'fdw_plain_rev');
CREATE FOREIGN TABLE fdw_plain_inverted_1 PARTITION OF fdw_plain_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard1 OPTIONS (table_name 'fdw_plain_rev');

CREATE TABLE fdw_ws (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb) PARTITION BY HASH (pk);
CREATE FOREIGN TABLE fdw_ws_0 PARTITION OF fdw_ws FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard0 OPTIONS (table_name 'fdw_ws_part');
CREATE FOREIGN TABLE fdw_ws_1 PARTITION OF fdw_ws FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard1 OPTIONS (table_name 'fdw_ws_part');
CREATE TABLE fdw_ws_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL) PARTITION BY HASH (sk);
CREATE FOREIGN TABLE fdw_ws_inverted_0 PARTITION OF fdw_ws_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard0 OPTIONS (table_name 'fdw_ws_rev');
CREATE FOREIGN TABLE fdw_ws_inverted_1 PARTITION OF fdw_ws_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard1 OPTIONS (table_name 'fdw_ws_rev');

-- the same data in all four, loaded before the index (create_inverted_index backfills it)
CREATE TEMP TABLE preload AS
SELECT ('USER#p' || lpad((g::bigint * 982451653 % 1000000000000)::text, 12, '0'))::adjkey AS pk,
	   'FOLLOWS#USER#celebrity'::adjkey AS sk
FROM generate_series(1, :preload) g
UNION ALL
SELECT ('USER#o' || g)::adjkey, ('FOLLOWS#USER#' || (g % 1000))::adjkey
FROM generate_series(1, :others) g;
INSERT INTO hot_plain SELECT pk, sk, NULL FROM preload;
INSERT INTO hot_ws    SELECT pk, sk, NULL FROM preload;
INSERT INTO fdw_plain SELECT pk, sk, NULL FROM preload;
INSERT INTO fdw_ws    SELECT pk, sk, NULL FROM preload;
DROP TABLE preload;

SELECT create_inverted_index('hot_plain');
SELECT create_inverted_index('hot_ws', write_shards => :shards);
-- a parent over foreign partitions has no primary key: name the key, and
-- register the index table made above
SELECT create_inverted_index('fdw_plain', base_key => '{pk,sk}', existing => true);
SELECT create_inverted_index('fdw_ws', base_key => '{pk,sk}', existing => true, write_shards => :shards);

ALTER TABLE hot_plain SET (autovacuum_enabled = off);
ALTER TABLE hot_ws SET (autovacuum_enabled = off);
ALTER TABLE hot_plain_inverted SET (autovacuum_enabled = off);
ALTER TABLE hot_ws_inverted SET (autovacuum_enabled = off);
VACUUM ANALYZE hot_plain, hot_ws, hot_plain_inverted, hot_ws_inverted;
ANALYZE fdw_plain, fdw_ws, fdw_plain_inverted, fdw_ws_inverted;
