-- pgbench script of test/bench/hot_target.sh: one new follower of the hot
-- target per transaction, increasing source keys (every insert at the right
-- end of the target's index partition).  @TABLE@: the variant's table.
INSERT INTO @TABLE@ (pk, sk) VALUES ('USER#s' || lpad(nextval('hot_src')::text, 12, '0'), 'FOLLOWS#USER#celebrity');
