-- pgbench script of test/bench/graph.sh: common_out_adjlist.sql as an
-- INTERSECT of the two out-edge lists (variables a, b: USER#<n>).
SELECT n FROM (
	SELECT key_tail(sk, 1) AS n FROM edges WHERE pk = :a AND sk ^@ 'FOLLOWS#'
	INTERSECT
	SELECT key_tail(sk, 1) FROM edges WHERE pk = :b AND sk ^@ 'FOLLOWS#') s
ORDER BY n;
