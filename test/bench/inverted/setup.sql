-- Schema and data of test/bench/inverted.sh.
--
-- Five tables with the same definition, (pk adjkey, sk adjkey, data jsonb,
-- PRIMARY KEY (pk, sk)), that differ only in how the reverse direction
-- (sk, pk) is kept:
--   t_a   nothing (the base table alone)
--   t_b   a second btree index on (sk, pk)
--   t_c   an adjlist inverted index: create_inverted_index('t_c'), which
--         makes the table t_c_inverted (sk, pk) and the C triggers that
--         keep it in sync
--   t_d   a hand-written PL/pgSQL row trigger maintaining t_d_rev (sk, pk),
--         AFTER INSERT OR DELETE OR UPDATE OF pk, sk FOR EACH ROW
--   t_e   PL/pgSQL statement triggers over transition tables maintaining
--         t_e_rev (sk, pk) (measured by the bulk COPY only)
-- Autovacuum is off on every table: the driver vacuums between runs, so
-- that no background vacuum lands in a measured run.
--
-- Then a deterministic power-law follower graph, written once to a CSV file
-- (pk, sk, data) for COPY FROM:
--   pk  'USER#<src>'              src uniform in [0, nusers)
--   sk  'FOLLOWS#USER#<dst>'      dst = floor(nusers * random()^3): the
--                                  lowest ids are hubs (user 0 alone gets
--                                  ~2% of all edges with 100k users)
-- Duplicate and self edges are dropped; the first nedges edges in
-- generation order are kept, in that (random) order.
--
-- psql variables: nedges, nusers, seed, csv (server-side path).
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = warning;

CREATE TABLE t_a (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE t_b (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE t_c (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE t_d (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
CREATE TABLE t_e (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));

-- (b) a second index
CREATE INDEX t_b_sk_pk_idx ON t_b (sk, pk);

-- (c) the adjlist inverted index (partition key sk, sort key pk)
SELECT create_inverted_index('t_c') AS inverted_index \gset

-- (d) the same thing by hand: a PL/pgSQL row trigger, written the way one
-- usually is (and as cheap as it gets): a plain INSERT (no ON CONFLICT,
-- which would cost a speculative insertion per row), DELETE by key, no SET
-- clauses on the function (a GUC save/restore per row).
CREATE TABLE t_d_rev (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
CREATE FUNCTION t_d_rev_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'UPDATE' AND NEW.pk = OLD.pk AND NEW.sk = OLD.sk THEN
		RETURN NULL;
	END IF;
	IF TG_OP IN ('DELETE', 'UPDATE') THEN
		DELETE FROM t_d_rev WHERE sk = OLD.sk AND pk = OLD.pk;
	END IF;
	IF TG_OP IN ('INSERT', 'UPDATE') THEN
		INSERT INTO t_d_rev (sk, pk) VALUES (NEW.sk, NEW.pk);
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER t_d_rev_sync AFTER INSERT OR DELETE OR UPDATE OF pk, sk ON t_d
	FOR EACH ROW EXECUTE FUNCTION t_d_rev_sync();

-- (e) statement triggers over transition tables, plain INSERT as in (d).
-- A trigger with transition tables may have only one event, hence three.
CREATE TABLE t_e_rev (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
CREATE FUNCTION t_e_rev_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO t_e_rev (sk, pk) SELECT sk, pk FROM e_new;
	RETURN NULL;
END $$;
CREATE FUNCTION t_e_rev_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM t_e_rev r USING e_old o WHERE r.sk = o.sk AND r.pk = o.pk;
	RETURN NULL;
END $$;
CREATE FUNCTION t_e_rev_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	DELETE FROM t_e_rev r USING e_old o WHERE r.sk = o.sk AND r.pk = o.pk;
	INSERT INTO t_e_rev (sk, pk) SELECT sk, pk FROM e_new;
	RETURN NULL;
END $$;
CREATE TRIGGER t_e_rev_insert AFTER INSERT ON t_e REFERENCING NEW TABLE AS e_new
	FOR EACH STATEMENT EXECUTE FUNCTION t_e_rev_insert();
CREATE TRIGGER t_e_rev_delete AFTER DELETE ON t_e REFERENCING OLD TABLE AS e_old
	FOR EACH STATEMENT EXECUTE FUNCTION t_e_rev_delete();
CREATE TRIGGER t_e_rev_update AFTER UPDATE ON t_e REFERENCING OLD TABLE AS e_old NEW TABLE AS e_new
	FOR EACH STATEMENT EXECUTE FUNCTION t_e_rev_update();

-- CPU time of this backend in ms (user + system, from /proc; Linux), NULL
-- where it cannot be read.  The driver reports it next to wall-clock time:
-- it does not count time the backend waits for a CPU that other processes
-- of a busy machine hold.
CREATE FUNCTION backend_cpu_ms() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	f text[];
BEGIN
	f := string_to_array(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ');
	RETURN (f[12]::bigint + f[13]::bigint) * 10;	-- fields 14, 15; USER_HZ 100
EXCEPTION WHEN OTHERS THEN
	RETURN NULL;
END $$;

ALTER TABLE t_a SET (autovacuum_enabled = off);
ALTER TABLE t_b SET (autovacuum_enabled = off);
ALTER TABLE t_c SET (autovacuum_enabled = off);
ALTER TABLE t_c_inverted SET (autovacuum_enabled = off);
ALTER TABLE t_d SET (autovacuum_enabled = off);
ALTER TABLE t_d_rev SET (autovacuum_enabled = off);
ALTER TABLE t_e SET (autovacuum_enabled = off);
ALTER TABLE t_e_rev SET (autovacuum_enabled = off);

-- The graph.  Serial plan and setseed(): the same file on every run.
SELECT setseed(:seed) AS seeded \gset
CREATE TEMP TABLE gen AS
SELECT i, src, dst
FROM (SELECT i,
			 floor(:nusers * random())::bigint AS src,
			 floor(:nusers * random() ^ 3)::bigint AS dst
	  FROM generate_series(1, (:nedges * 2)::bigint) AS i
	  OFFSET 0) g
WHERE src <> dst;
CREATE TEMP TABLE edges AS
SELECT min(i) AS i, src, dst FROM gen GROUP BY src, dst
ORDER BY 1 LIMIT :nedges;
DROP TABLE gen;

SELECT count(*) = :nedges AS enough_edges FROM edges \gset
\if :enough_edges
\else
	\echo 'setup.sql: too few distinct edges; raise nusers'
	SELECT 1/0;
\endif

COPY (SELECT 'USER#' || src, 'FOLLOWS#USER#' || dst, jsonb_build_object('w', i % 100)
	  FROM edges ORDER BY i) TO :'csv' WITH (FORMAT csv);

-- the shape of the graph, for the report
CREATE TABLE graph_info AS
SELECT (SELECT count(*) FROM edges) AS edges,
	   (SELECT count(DISTINCT src) FROM edges) AS sources,
	   (SELECT count(DISTINCT dst) FROM edges) AS targets,
	   (SELECT max(c) FROM (SELECT count(*) AS c FROM edges GROUP BY dst) s) AS max_in_degree,
	   (SELECT round(100.0 * count(*) FILTER (WHERE dst < 100) / count(*), 1) FROM edges) AS pct_into_top100;
DROP TABLE edges;
