-- pgbench script of test/bench/graph.sh: common_out_adjlist.sql as a join
-- of the two out-edge lists on the sort key (variables a, b: USER#<n>).
SELECT key_tail(x.sk, 1)
FROM edges x JOIN edges y ON y.sk = x.sk
WHERE x.pk = :a AND y.pk = :b AND x.sk ^@ 'FOLLOWS#'
ORDER BY x.sk;
