-- Shard set-up of test/bench/hot_target.sh (run on both shard servers):
-- the real tables behind the coordinator's foreign partitions, one
-- base/index pair per variant (plain: no write sharding; ws: write_shards).
-- Autovacuum is off on them: the driver vacuums between rounds.
CREATE EXTENSION adjlist;
CREATE TABLE fdw_plain_part (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE fdw_plain_rev  (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
CREATE TABLE fdw_ws_part    (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE fdw_ws_rev     (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
ALTER TABLE fdw_plain_part SET (autovacuum_enabled = off);
ALTER TABLE fdw_plain_rev  SET (autovacuum_enabled = off);
ALTER TABLE fdw_ws_part    SET (autovacuum_enabled = off);
ALTER TABLE fdw_ws_rev     SET (autovacuum_enabled = off);
