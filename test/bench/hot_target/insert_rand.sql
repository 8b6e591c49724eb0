-- pgbench script of test/bench/hot_target.sh: one new follower of the hot
-- target per transaction, scattered source keys (a bijection of the
-- sequence, see setup.sql).  @TABLE@: the variant's table.
INSERT INTO @TABLE@ (pk, sk) VALUES ('USER#r' || lpad((nextval('hot_src') * 982451653 % 1000000000000)::text, 12, '0'), 'FOLLOWS#USER#celebrity');
