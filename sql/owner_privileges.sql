--
-- owner_privileges: what adjlist does for DDL and TRUNCATE needs no
-- privilege of the base table's owner (issue 10, "dropping or altering a
-- table is never blocked for someone allowed to do it").
--
-- The index of a member (a partition) that is truncated, dropped,
-- detached or attached, and the index of a truncated base table, follow
-- it whatever the owner may do: its rows are read in C and the index
-- tables emptied by OID, so that an owner without USAGE on its schema, or
-- one that revoked its own SELECT on its table, blocks nobody (a
-- superuser, the partition's owner); and no row-level security, forced or
-- not, hides a row whose index row would stay behind.
--
-- Each case runs in a subtransaction that op_x.run() rolls back, and prints
-- its outcome ("ok" or "error <SQLSTATE> <message>") with the rows of the
-- base and index tables, verify_inverted_index()'s count of problems and
-- the sum of the out-degree counters (the index rows, when right), read
-- as the superuser before the rollback.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS op_x, op_b, op_p, op_r, op_t CASCADE;
DO $$
DECLARE
	r name;
BEGIN
	FOR r IN SELECT rolname FROM pg_roles WHERE rolname LIKE 'regress\_op\_%' LOOP
		EXECUTE format('DROP OWNED BY %I CASCADE', r);
		EXECUTE format('DROP ROLE %I', r);
	END LOOP;
END $$;
RESET client_min_messages;

CREATE ROLE regress_op_owner;	-- owns the base tables
CREATE ROLE regress_op_part;	-- owns a partition and its schema
CREATE SCHEMA op_x;				-- the helpers
GRANT USAGE ON SCHEMA op_x TO PUBLIC;
CREATE SCHEMA op_b;				-- the base tables: the owner loses USAGE on it
GRANT USAGE, CREATE ON SCHEMA op_b TO regress_op_owner;
CREATE SCHEMA op_p AUTHORIZATION regress_op_part;
CREATE SCHEMA op_r;				-- tables whose owner revokes its own SELECT
GRANT USAGE, CREATE ON SCHEMA op_r TO regress_op_owner;

CREATE FUNCTION op_x.state(ix regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	base regclass := (SELECT baserel FROM adjlist_inverted_indexes WHERE indexrel = ix);
	cnt regclass := (SELECT counterrel FROM adjlist_inverted_indexes WHERE indexrel = ix);
	nbase bigint;
	nindex bigint;
	nout bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', base) INTO nbase;
	EXECUTE format('SELECT count(*) FROM %s', ix) INTO nindex;
	EXECUTE format('SELECT coalesce(sum(n), 0) FROM %s WHERE direction = ''out''', cnt) INTO nout;
	RETURN format('base %s, index %s, drift %s, out-degrees %s',
				  nbase, nindex, (SELECT count(*) FROM verify_inverted_index(ix)), nout);
END $$;
CREATE FUNCTION op_x.run(r name, sql text, ix regclass) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	res text;
BEGIN
	BEGIN
		IF r IS NOT NULL THEN
			EXECUTE format('SET LOCAL ROLE %I', r);
		END IF;
		BEGIN
			EXECUTE sql;
			res := 'ok';
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
			res := 'error ' || st || ' ' || msg;
		END;
		RESET ROLE;
		-- verify_inverted_index() reads as the owner: its privileges back
		GRANT USAGE ON SCHEMA op_b TO regress_op_owner;
		GRANT SELECT ON ALL TABLES IN SCHEMA op_b, op_r TO regress_op_owner;
		RAISE EXCEPTION USING ERRCODE = 'OP001', MESSAGE = res || ': ' || op_x.state(ix);
	EXCEPTION WHEN SQLSTATE 'OP001' THEN
		GET STACKED DIAGNOSTICS res = MESSAGE_TEXT;
		RETURN res;
	END;
END $$;

-- A plain table, and a partitioned one with a sparse index (w > 0): its
-- partition B the owner's, A regress_op_part's in another schema, with its
-- columns in another order and a dropped one; Z, not attached yet, too.
SET ROLE regress_op_owner;
CREATE TABLE op_b.h (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('op_b.h', counters => 1);
INSERT INTO op_b.h SELECT 'H#' || i, 'E#' || j FROM generate_series(1, 3) i, generate_series(1, 2) j;
CREATE TABLE op_b.g (pk adjkey, sk adjkey, w int NOT NULL, PRIMARY KEY (pk, sk))
	PARTITION BY LIST (pk);
CREATE TABLE op_b.g_b PARTITION OF op_b.g FOR VALUES IN ('B');
SELECT create_inverted_index('op_b.g', predicate => 'w > 0', counters => 1);
CREATE TABLE op_r.h (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('op_r.h', counters => 1);
INSERT INTO op_r.h VALUES ('A', 'B'), ('A', 'C');
RESET ROLE;
CREATE TABLE op_p.ga (junk int, w int NOT NULL, sk adjkey NOT NULL, pk adjkey NOT NULL);
ALTER TABLE op_p.ga DROP COLUMN junk;
ALTER TABLE op_p.ga OWNER TO regress_op_part;
ALTER TABLE op_b.g ATTACH PARTITION op_p.ga FOR VALUES IN ('A');
CREATE TABLE op_p.gz (sk adjkey, pk adjkey NOT NULL, w int NOT NULL, PRIMARY KEY (pk, sk));
ALTER TABLE op_p.gz OWNER TO regress_op_part;
INSERT INTO op_b.g SELECT p, 'E#' || j, j % 3 FROM unnest('{A,B}'::text[]) p, generate_series(1, 6) j;
INSERT INTO op_p.gz (pk, sk, w) SELECT 'Z', 'E#' || j, j % 3 FROM generate_series(1, 6) j;
SELECT tableoid::regclass::text AS partition, count(*), count(*) FILTER (WHERE w > 0) AS indexed
FROM op_b.g GROUP BY 1 ORDER BY 1;
SELECT op_x.state('op_b.h_inverted') AS plain, op_x.state('op_b.g_inverted') AS partitioned,
	   op_x.state('op_r.h_inverted') AS revoked;

-- 1. The owner lost USAGE on the schema of its tables (a DBA took it over).
REVOKE USAGE, CREATE ON SCHEMA op_b FROM regress_op_owner;
SELECT op_x.run(NULL, 'TRUNCATE op_b.h', 'op_b.h_inverted') AS superuser_truncate_plain;
-- the index table still being read: its rows are deleted instead
SELECT op_x.run(NULL, 'DO $d$ DECLARE r record; BEGIN FOR r IN SELECT * FROM op_b.h_inverted LOOP '
					  'TRUNCATE op_b.h; EXIT; END LOOP; END $d$', 'op_b.h_inverted') AS superuser_truncate_in_use;
SELECT op_x.run(NULL, 'TRUNCATE op_b.g', 'op_b.g_inverted') AS superuser_truncate_base;
SELECT op_x.run(NULL, 'TRUNCATE op_p.ga', 'op_b.g_inverted') AS superuser_truncate;
SELECT op_x.run('regress_op_part', 'TRUNCATE op_p.ga', 'op_b.g_inverted') AS part_owner_truncate;
SELECT op_x.run(NULL, 'TRUNCATE op_b.g_b', 'op_b.g_inverted') AS superuser_truncate_owners;
SELECT op_x.run(NULL, 'DROP TABLE op_p.ga', 'op_b.g_inverted') AS superuser_drop;
SELECT op_x.run('regress_op_part', 'DROP TABLE op_p.ga', 'op_b.g_inverted') AS part_owner_drop;
SELECT op_x.run(NULL, 'DROP TABLE op_b.g_b', 'op_b.g_inverted') AS superuser_drop_owners;
SELECT op_x.run(NULL, 'ALTER TABLE op_b.g DETACH PARTITION op_p.ga', 'op_b.g_inverted') AS superuser_detach;
SELECT op_x.run(NULL, 'ALTER TABLE op_b.g ATTACH PARTITION op_p.gz FOR VALUES IN (''Z'')',
				'op_b.g_inverted') AS superuser_attach;
SELECT op_x.run(NULL, 'DROP SCHEMA op_p CASCADE', 'op_b.g_inverted') AS superuser_drop_schema;
SELECT op_x.run('regress_op_part', 'DROP SCHEMA op_p CASCADE', 'op_b.g_inverted') AS part_owner_drop_schema;
SELECT op_x.run(NULL, 'DROP OWNED BY regress_op_part', 'op_b.g_inverted') AS superuser_drop_owned;
SELECT op_x.run('regress_op_part', 'DROP OWNED BY regress_op_part', 'op_b.g_inverted') AS part_owner_drop_owned;
GRANT USAGE ON SCHEMA op_b TO regress_op_owner;

-- 2. The owner revoked its own privileges on its tables.
SET ROLE regress_op_owner;
REVOKE ALL ON op_r.h FROM regress_op_owner;
REVOKE ALL ON op_b.g, op_b.g_b FROM regress_op_owner;
RESET ROLE;
SELECT op_x.run(NULL, 'TRUNCATE op_r.h', 'op_r.h_inverted') AS superuser_truncate_plain;
SELECT op_x.run(NULL, 'TRUNCATE op_b.g', 'op_b.g_inverted') AS superuser_truncate_base;
SELECT op_x.run(NULL, 'TRUNCATE op_b.g_b', 'op_b.g_inverted') AS superuser_truncate;
SELECT op_x.run(NULL, 'TRUNCATE op_p.ga', 'op_b.g_inverted') AS superuser_truncate_other;
SELECT op_x.run('regress_op_part', 'DROP TABLE op_p.ga', 'op_b.g_inverted') AS part_owner_drop;
SELECT op_x.run(NULL, 'DROP TABLE op_b.g_b', 'op_b.g_inverted') AS superuser_drop;
SELECT op_x.run(NULL, 'ALTER TABLE op_b.g DETACH PARTITION op_b.g_b', 'op_b.g_inverted') AS superuser_detach;
SELECT op_x.run(NULL, 'ALTER TABLE op_b.g ATTACH PARTITION op_p.gz FOR VALUES IN (''Z'')',
				'op_b.g_inverted') AS superuser_attach;
SELECT op_x.run(NULL, 'DROP OWNED BY regress_op_part', 'op_b.g_inverted') AS superuser_drop_owned;
GRANT ALL ON op_b.g, op_b.g_b, op_r.h TO regress_op_owner;

-- 3. Row-level security forced on the base table and its partitions, with
-- policies that hide most rows from everyone, the owner included: the
-- index still covers every row, and every row leaves it.
ALTER TABLE op_b.g ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
ALTER TABLE op_b.g_b ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
ALTER TABLE op_p.ga ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
ALTER TABLE op_p.gz ENABLE ROW LEVEL SECURITY, FORCE ROW LEVEL SECURITY;
CREATE POLICY few ON op_b.g USING (sk = 'E#1');
CREATE POLICY few ON op_b.g_b USING (sk = 'E#1');
CREATE POLICY few ON op_p.ga USING (sk = 'E#1');
CREATE POLICY few ON op_p.gz USING (sk = 'E#1');
SET ROLE regress_op_owner;
SELECT count(*) AS owner_sees FROM op_b.g;
RESET ROLE;
SELECT op_x.run(NULL, 'ALTER TABLE op_b.g DETACH PARTITION op_b.g_b', 'op_b.g_inverted') AS rls_detach;
SELECT op_x.run(NULL, 'ALTER TABLE op_b.g DETACH PARTITION op_p.ga', 'op_b.g_inverted') AS rls_detach_other;
SELECT op_x.run(NULL, 'DROP TABLE op_b.g_b', 'op_b.g_inverted') AS rls_drop;
SELECT op_x.run('regress_op_part', 'DROP TABLE op_p.ga', 'op_b.g_inverted') AS rls_part_owner_drop;
SELECT op_x.run(NULL, 'TRUNCATE op_b.g_b', 'op_b.g_inverted') AS rls_truncate;
SELECT op_x.run('regress_op_part', 'TRUNCATE op_p.ga', 'op_b.g_inverted') AS rls_part_owner_truncate;
SELECT op_x.run(NULL, 'TRUNCATE op_b.g', 'op_b.g_inverted') AS rls_truncate_base;
SELECT op_x.run(NULL, 'ALTER TABLE op_b.g ATTACH PARTITION op_p.gz FOR VALUES IN (''Z'')',
				'op_b.g_inverted') AS rls_attach;

-- Triggers of an index table (here a user's, which says who runs it) fire
-- when adjlist writes the row, as the base table's owner with adjlist's
-- search_path: also when DDL on a partition (by a superuser, or by the
-- partition's owner) writes the index, and with the index table in use by
-- a cursor (its rows then deleted, not truncated)
CREATE SCHEMA op_t AUTHORIZATION regress_op_owner;
GRANT USAGE ON SCHEMA op_t TO regress_op_part;
SET ROLE regress_op_owner;
CREATE TABLE op_t.g (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE op_t.g1 PARTITION OF op_t.g FOR VALUES IN ('a');
CREATE TABLE op_t.g2 PARTITION OF op_t.g FOR VALUES IN ('b');
CREATE TABLE op_t.g3 PARTITION OF op_t.g FOR VALUES IN ('c');
SELECT create_inverted_index('op_t.g');
CREATE FUNCTION op_t.who() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE '% %/% as % (search_path %)', TG_OP, coalesce(NEW.pk, OLD.pk),
		coalesce(NEW.sk, OLD.sk), current_user, current_setting('search_path');
	RETURN NULL;
END $$;
CREATE TRIGGER who AFTER INSERT OR DELETE ON op_t.g_inverted
	FOR EACH ROW EXECUTE FUNCTION op_t.who();
INSERT INTO op_t.g VALUES ('a', 'x'), ('b', 'y'), ('c', 'z');
RESET ROLE;
ALTER TABLE op_t.g2 OWNER TO regress_op_part;
SET ROLE regress_op_part;
TRUNCATE op_t.g2;
RESET ROLE;
TRUNCATE op_t.g1;
DROP TABLE op_t.g3;
INSERT INTO op_t.g VALUES ('a', 'x2');
ALTER TABLE op_t.g DETACH PARTITION op_t.g1;
ALTER TABLE op_t.g ATTACH PARTITION op_t.g1 FOR VALUES IN ('a');
SET session_replication_role = replica;
INSERT INTO op_t.g VALUES ('b', 'y2');
RESET session_replication_role;
SELECT rebuild_inverted_index('op_t.g_inverted');
BEGIN;
DECLARE c CURSOR FOR SELECT * FROM op_t.g_inverted;
FETCH 1 FROM c;
TRUNCATE op_t.g;
COMMIT;
SELECT count(*) AS rows, (SELECT count(*) FROM verify_inverted_index('op_t.g_inverted')) AS drift
FROM op_t.g_inverted;
-- a trigger function with SET clauses (or SECURITY DEFINER) keeps state
-- with its lookup: the rows of one statement fire it in turn, through
-- every path that writes the index
DROP TRIGGER who ON op_t.g_inverted;
CREATE FUNCTION op_t.quiet() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = op_t AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER quiet AFTER INSERT OR UPDATE OR DELETE ON op_t.g_inverted
	FOR EACH ROW EXECUTE FUNCTION op_t.quiet();
CREATE FUNCTION op_t.pass() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
	SET search_path = op_t AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
	RETURN NEW;
END $$;
CREATE TRIGGER pass BEFORE INSERT OR UPDATE OR DELETE ON op_t.g_inverted
	FOR EACH ROW EXECUTE FUNCTION op_t.pass();
INSERT INTO op_t.g SELECT 'a', 'q' || i FROM generate_series(1, 5) i;
UPDATE op_t.g SET sk = sk || 'u' WHERE sk IN ('q4', 'q5');
DELETE FROM op_t.g WHERE sk IN ('q1', 'q2', 'q3');
TRUNCATE op_t.g1;
INSERT INTO op_t.g SELECT 'a', 'q' || i FROM generate_series(1, 5) i;
BEGIN;
ALTER TABLE op_t.g DETACH PARTITION op_t.g1;
ROLLBACK;
BEGIN;
DROP TABLE op_t.g1;
ROLLBACK;
SELECT count(*) AS rows, (SELECT count(*) FROM verify_inverted_index('op_t.g_inverted')) AS drift
FROM op_t.g_inverted;

-- nothing above stayed
SELECT op_x.state('op_b.h_inverted') AS plain, op_x.state('op_b.g_inverted') AS partitioned,
	   op_x.state('op_r.h_inverted') AS revoked;

SET client_min_messages = warning;
DROP SCHEMA op_x, op_b, op_p, op_r, op_t CASCADE;
DROP OWNED BY regress_op_owner, regress_op_part CASCADE;
DROP ROLE regress_op_owner, regress_op_part;
RESET client_min_messages;
