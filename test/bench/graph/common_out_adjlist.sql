-- pgbench script of test/bench/graph.sh: the nodes both :a and :b follow,
-- in key order, by common_neighbors().
SELECT * FROM common_neighbors('edges', :a, :b, 'FOLLOWS#');
