-- pgbench script of test/bench/graph.sh: the sources of the edges into
-- :node, by reverse_neighbors() (variable -D node=USER#<n>).
SELECT pk FROM reverse_neighbors('edges', :node, 'FOLLOWS#');
