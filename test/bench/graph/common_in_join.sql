-- pgbench script of test/bench/graph.sh: common_in_adjlist.sql as a join of
-- the two in-edge lists of the inverted index table on the source
-- (variables ska, skb: FOLLOWS#USER#<n>, the sort keys of edges into a, b).
SELECT x.pk
FROM edges_inverted x JOIN edges_inverted y ON y.pk = x.pk
WHERE x.sk = :ska AND y.sk = :skb
ORDER BY x.pk;
