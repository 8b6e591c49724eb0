-- pgbench script of test/bench/graph.sh: the same rows as
-- reverse_adjlist.sql by a hand-written scan of the inverted index table
-- (variable -D sk=FOLLOWS#USER#<n>, the sort key of the edges into the node).
SELECT pk FROM edges_inverted WHERE sk = :sk;
