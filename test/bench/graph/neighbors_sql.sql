-- pgbench script of test/bench/graph.sh: the same rows as
-- neighbors_adjlist.sql by a hand-written index scan of the base table.
SELECT sk, data FROM edges WHERE pk = :node AND sk ^@ 'FOLLOWS#';
