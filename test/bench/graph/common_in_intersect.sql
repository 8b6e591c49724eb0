-- pgbench script of test/bench/graph.sh: common_in_adjlist.sql as an
-- INTERSECT of the two in-edge lists (variables ska, skb: FOLLOWS#USER#<n>).
SELECT pk FROM (
	SELECT pk FROM edges_inverted WHERE sk = :ska
	INTERSECT
	SELECT pk FROM edges_inverted WHERE sk = :skb) s
ORDER BY pk;
