-- pgbench script of test/bench/graph.sh: the nodes that follow both :a and
-- :b, in key order, by common_neighbors(..., 'in').
SELECT * FROM common_neighbors('edges', :a, :b, 'FOLLOWS#', 'in');
