-- pgbench script template of test/bench/inverted.sh: delete one existing
-- edge per transaction, by its full key.  The keys are those insert.sql
-- made with the same variables (see there); @TABLE@ is the variant's table.
\set n :n + 1
\set k :client_id * :per + :n - 1
\set src :nusers + permute(:k, :space, :seed)
\set dst int(:nusers * pow(double(hash(:k, :seed) & 2147483647) / 2147483648.0, 3))
DELETE FROM @TABLE@ WHERE pk = ('USER#' || :src)::adjkey AND sk = ('FOLLOWS#USER#' || :dst)::adjkey;
