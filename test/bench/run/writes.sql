-- Tables of the write benchmarks of test/bench/run.sh, apart from the read
-- graph so that writing does not change what the reads measure.
--
--   w_adj   pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk), with
--           create_inverted_index('w_adj'): w_adj_inverted (sk, pk)
--   w_b     the same as text COLLATE "C" with a second btree on (sk, pk)
--   h_base  text COLLATE "C" (pk, sk, data), PRIMARY KEY (pk, sk), and
--   h_rev   (sk, pk) PRIMARY KEY (sk, pk): the two tables a hand-written
--           transaction writes to keep its own reverse table
--   w_cii   adjkey (pk, sk, data), PRIMARY KEY (pk, sk), without an index:
--           the base of create_inverted_index and of CREATE TABLE AS
-- and the CSV file :'csv' of the FOLLOWS# edges of the graph (pk, sk,
-- data) in load order, that COPY reads.  w_adj and w_b are left empty (the
-- COPY benchmark fills them); the others get the FOLLOWS# edges.
--
-- psql variables: csv.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET maintenance_work_mem = '512MB';
SET max_parallel_maintenance_workers = 0;

COPY (SELECT pk, sk, data FROM edges WHERE sk ^@ 'FOLLOWS#') TO :'csv' WITH (FORMAT csv);

CREATE TABLE w_adj (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('w_adj') AS w_adj_inverted \gset
CREATE TABLE w_b (pk text COLLATE "C", sk text COLLATE "C", data jsonb, PRIMARY KEY (pk, sk));
CREATE INDEX w_b_sk_pk ON w_b (sk, pk);

CREATE TABLE h_base (pk text COLLATE "C", sk text COLLATE "C", data jsonb);
COPY h_base FROM :'csv' WITH (FORMAT csv);
ALTER TABLE h_base ADD PRIMARY KEY (pk, sk);
CREATE TABLE h_rev (sk text COLLATE "C", pk text COLLATE "C");
INSERT INTO h_rev SELECT sk, pk FROM h_base;
ALTER TABLE h_rev ADD PRIMARY KEY (sk, pk);

CREATE TABLE w_cii (pk adjkey, sk adjkey, data jsonb);
COPY w_cii FROM :'csv' WITH (FORMAT csv);
ALTER TABLE w_cii ADD PRIMARY KEY (pk, sk);

ALTER TABLE w_adj SET (autovacuum_enabled = off);
ALTER TABLE w_adj_inverted SET (autovacuum_enabled = off);
ALTER TABLE w_b SET (autovacuum_enabled = off);
ALTER TABLE h_base SET (autovacuum_enabled = off);
ALTER TABLE h_rev SET (autovacuum_enabled = off);
ALTER TABLE w_cii SET (autovacuum_enabled = off);
VACUUM (FREEZE, ANALYZE) h_base, h_rev, w_cii;
