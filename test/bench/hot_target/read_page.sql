-- pgbench script of test/bench/hot_target.sh: the first page (100) of the
-- hot target's followers.  @TABLE@: the variant's table.
SELECT neighbor FROM reverse_neighbors('@TABLE@', 'USER#celebrity', 'FOLLOWS#', lim => 100);
