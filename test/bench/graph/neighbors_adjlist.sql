-- pgbench script of test/bench/graph.sh: the out-edges of :node with their
-- data, by neighbors() (variable -D node=USER#<n>).
SELECT sk, data FROM neighbors('edges', :node, 'FOLLOWS#');
