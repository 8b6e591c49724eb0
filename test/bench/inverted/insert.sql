-- pgbench script template of test/bench/inverted.sh: one new edge per
-- transaction.  @TABLE@ is replaced by the variant's table.
--
-- Variables (-D): n (0: the per-client counter, kept across transactions),
-- per (transactions per client), space (clients * per), nusers, seed.
-- Edge k = client_id * per + n - 1 is unique per run:
--   src  nusers + permute(k): a new user, at a pseudo-random place of the
--        primary key (so inserts spread over the btree, not append at its end)
--   dst  floor(nusers * u^3) with u from hash(k): the same power law as the
--        preloaded graph, so the reverse index gets hot hub partitions
-- delete.sql computes the same keys, so it deletes exactly these edges.
\set n :n + 1
\set k :client_id * :per + :n - 1
\set src :nusers + permute(:k, :space, :seed)
\set dst int(:nusers * pow(double(hash(:k, :seed) & 2147483647) / 2147483648.0, 3))
INSERT INTO @TABLE@ (pk, sk, data) VALUES ('USER#' || :src, 'FOLLOWS#USER#' || :dst, '{"w": 1}');
