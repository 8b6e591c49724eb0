-- pgbench script of test/bench/hot_target.sh: all of the hot target's
-- followers, counted.  @TABLE@: the variant's table.
SELECT count(*) FROM reverse_neighbors('@TABLE@', 'USER#celebrity', 'FOLLOWS#');
