--
-- partition_owners: partitions with another owner than their base table,
-- and temporary tables (issue 10).
--
-- 1. A partition may belong to another role than its base table (a
--    superuser created it, or the base table changed owners and its
--    partitions kept theirs).  Whoever may drop, detach or truncate it
--    (core decides) does so, and its rows leave the inverted index;
--    whoever may attach a table does so, and its rows join the index.
--    A role that may not is refused by core, the index untouched.
--    DROP SCHEMA ... CASCADE and DROP OWNED BY that drop partitions (a
--    local or a foreign one, at any depth) of a table that they leave
--    take their rows out of the index as DROP TABLE does (issue 11).
-- 2. Temporary tables take no part in adjlist's catalogs: their table
--    options and registrations are refused, so that none is left behind
--    (with a dangling OID, and dumped) when the session ends.
--
-- Each case of section 1 runs in a subtransaction that po.run() rolls
-- back, and prints its outcome ("ok" or "error <SQLSTATE>") with the rows
-- of the base and index tables and verify_inverted_index()'s count of
-- problems, read as the superuser before the rollback; an error with its
-- message, which says who refused it.
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS po CASCADE;
DROP SCHEMA IF EXISTS po_x CASCADE;
DO $$
DECLARE
	r name;
BEGIN
	FOR r IN SELECT rolname FROM pg_roles WHERE rolname LIKE 'regress\_po\_%' LOOP
		EXECUTE format('DROP OWNED BY %I CASCADE', r);
		EXECUTE format('DROP ROLE %I', r);
	END LOOP;
END $$;
RESET client_min_messages;

CREATE ROLE regress_po_owner;	-- owns the base table
CREATE ROLE regress_po_other;	-- owns some partitions
CREATE ROLE regress_po_new;		-- owns the base table after OWNER TO
CREATE ROLE regress_po_trunc;	-- TRUNCATE on one partition
CREATE ROLE regress_po_nobody;	-- nothing
CREATE SCHEMA po;
GRANT USAGE ON SCHEMA po TO PUBLIC;
GRANT CREATE ON SCHEMA po TO regress_po_owner;

SET ROLE regress_po_owner;
CREATE TABLE po.ev (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY RANGE (pk);
CREATE TABLE po.ev_a PARTITION OF po.ev FOR VALUES FROM ('A') TO ('H');
SELECT create_inverted_index('po.ev');
RESET ROLE;
-- H..M: the superuser's; M..S: regress_po_other's
CREATE TABLE po.ev_h PARTITION OF po.ev FOR VALUES FROM ('H') TO ('M');
CREATE TABLE po.ev_m PARTITION OF po.ev FOR VALUES FROM ('M') TO ('S');
ALTER TABLE po.ev_m OWNER TO regress_po_other;
-- S..X: two levels, by hash of sk; the middle one and s0 regress_po_other's
CREATE TABLE po.ev_s PARTITION OF po.ev FOR VALUES FROM ('S') TO ('X') PARTITION BY HASH (sk);
CREATE TABLE po.ev_s0 PARTITION OF po.ev_s FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE po.ev_s1 PARTITION OF po.ev_s FOR VALUES WITH (MODULUS 2, REMAINDER 1);
ALTER TABLE po.ev_s OWNER TO regress_po_other;
ALTER TABLE po.ev_s0 OWNER TO regress_po_other;
-- the rest: regress_po_other's default partition
CREATE TABLE po.ev_def PARTITION OF po.ev DEFAULT;
ALTER TABLE po.ev_def OWNER TO regress_po_other;
GRANT TRUNCATE ON po.ev_h TO regress_po_trunc;
CREATE FUNCTION po.state() RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF NOT EXISTS (SELECT FROM adjlist_inverted_indexes WHERE indexrel::text = 'po.ev_inverted') THEN
		RETURN format('no index, %s tables, %s adjlist triggers',
					  (SELECT count(*) FROM pg_class WHERE relnamespace = 'po'::regnamespace AND relkind IN ('r', 'p')),
					  (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
					   WHERE c.relnamespace = 'po'::regnamespace AND t.tgname LIKE 'adjlist%'));
	END IF;
	RETURN format('base %s, index %s, drift %s',
				  (SELECT count(*) FROM po.ev),
				  (SELECT count(*) FROM po.ev_inverted),
				  (SELECT count(*) FROM verify_inverted_index('po.ev_inverted')));
END $$;
CREATE FUNCTION po.run(r name, sql text) RETURNS text LANGUAGE plpgsql AS $$
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
		RAISE EXCEPTION USING ERRCODE = 'PO001', MESSAGE = res || ': ' || po.state();
	EXCEPTION WHEN SQLSTATE 'PO001' THEN
		GET STACKED DIAGNOSTICS res = MESSAGE_TEXT;
		RETURN res;
	END;
END $$;

INSERT INTO po.ev
SELECT p || '#' || i, 'E#' || j, '{}'
FROM unnest(ARRAY['B', 'J', 'N', 'T', 'Z']) p, generate_series(1, 3) i, generate_series(1, 4) j;
-- every partition has rows (s0 and s1 alike)
SELECT tableoid::regclass::text AS partition, count(*) FROM po.ev GROUP BY 1 ORDER BY 1;
SELECT po.state() AS start;

-- the superuser's partition
SELECT po.run(NULL, 'DROP TABLE po.ev_h') AS superuser_drop;
SELECT po.run(NULL, 'TRUNCATE po.ev_h') AS superuser_truncate;
SELECT po.run(NULL, 'ALTER TABLE po.ev DETACH PARTITION po.ev_h') AS superuser_detach;
SELECT po.run('regress_po_owner', 'ALTER TABLE po.ev DETACH PARTITION po.ev_h') AS base_owner_detach;
SELECT po.run('regress_po_trunc', 'TRUNCATE po.ev_h') AS granted_truncate;
SELECT po.run('regress_po_owner', 'TRUNCATE po.ev_h') AS base_owner_truncate;
SELECT po.run('regress_po_owner', 'DROP TABLE po.ev_h') AS base_owner_drop;
-- the base table's owner may read it, but row security hides its rows
SELECT po.run(NULL, 'GRANT SELECT ON po.ev_h TO regress_po_owner; '
				 'ALTER TABLE po.ev_h ENABLE ROW LEVEL SECURITY; DROP TABLE po.ev_h') AS drop_with_rls;

-- another role's partition
SELECT po.run('regress_po_other', 'DROP TABLE po.ev_m') AS other_drop;
SELECT po.run('regress_po_other', 'TRUNCATE po.ev_m') AS other_truncate;
SELECT po.run('regress_po_owner', 'ALTER TABLE po.ev DETACH PARTITION po.ev_m') AS base_owner_detach;
SELECT po.run('regress_po_other', 'ALTER TABLE po.ev DETACH PARTITION po.ev_m') AS other_detach;
SELECT po.run(NULL, 'DROP TABLE po.ev_m') AS superuser_drop;

-- a role that may do none of it
SELECT po.run('regress_po_nobody', 'DROP TABLE po.ev_m') AS nobody_drop;
SELECT po.run('regress_po_nobody', 'TRUNCATE po.ev_m') AS nobody_truncate;
SELECT po.run('regress_po_nobody', 'ALTER TABLE po.ev DETACH PARTITION po.ev_m') AS nobody_detach;
SELECT po.run('regress_po_nobody', 'DROP TABLE po.ev_def') AS nobody_drop_default;

-- two levels: the middle partition, its partitions (hash bounds)
SELECT po.run('regress_po_other', 'DROP TABLE po.ev_s0') AS other_drop_leaf;
SELECT po.run(NULL, 'TRUNCATE po.ev_s1') AS superuser_truncate_leaf;
SELECT po.run('regress_po_other', 'TRUNCATE po.ev_s') AS other_truncate_middle;
SELECT po.run('regress_po_other', 'DROP TABLE po.ev_s') AS other_drop_middle;
SELECT po.run('regress_po_other', 'ALTER TABLE po.ev_s DETACH PARTITION po.ev_s1') AS other_detach_leaf;
SELECT po.run('regress_po_owner', 'ALTER TABLE po.ev DETACH PARTITION po.ev_s') AS base_owner_detach_middle;
SELECT po.run('regress_po_owner', 'ALTER TABLE po.ev_s DETACH PARTITION po.ev_s1') AS base_owner_detach_leaf;

-- the default partition
SELECT po.run('regress_po_other', 'DROP TABLE po.ev_def') AS other_drop_default;
SELECT po.run('regress_po_other', 'TRUNCATE po.ev_def') AS other_truncate_default;
SELECT po.run('regress_po_owner', 'ALTER TABLE po.ev DETACH PARTITION po.ev_def') AS base_owner_detach_default;

-- the index or the base table, by its owner: the other roles' partitions lose
-- adjlist's triggers (and go with the base table)
SELECT po.run('regress_po_owner', $$SELECT drop_inverted_index('po.ev_inverted')$$) AS base_owner_drop_index;
SELECT po.run('regress_po_owner', 'DROP TABLE po.ev_inverted') AS base_owner_drop_index_table;
SELECT po.run('regress_po_owner', 'DROP TABLE po.ev') AS base_owner_drop_base;

-- attaching the superuser's table, with rows
CREATE TABLE po.ev_x (LIKE po.ev INCLUDING ALL);
INSERT INTO po.ev_x VALUES ('X#1', 'E#1', '{}'), ('X#2', 'E#1', '{}');
SELECT po.run(NULL, 'ALTER TABLE po.ev_def RENAME TO ev_old; '
				 'ALTER TABLE po.ev DETACH PARTITION po.ev_old; '
				 'ALTER TABLE po.ev ATTACH PARTITION po.ev_x FOR VALUES FROM (''X'') TO (''Y'')') AS superuser_attach;
DROP TABLE po.ev_x;

-- still refused: DETACH ... CONCURRENTLY
ALTER TABLE po.ev DETACH PARTITION po.ev_m CONCURRENTLY;

-- after ALTER TABLE base OWNER TO: the old owner's partition
ALTER TABLE po.ev OWNER TO regress_po_new;
SELECT po.run('regress_po_owner', 'DROP TABLE po.ev_a') AS old_owner_drop;
SELECT po.run('regress_po_owner', 'TRUNCATE po.ev_a') AS old_owner_truncate;
SELECT po.run('regress_po_new', 'ALTER TABLE po.ev DETACH PARTITION po.ev_a') AS new_owner_detach;
SELECT po.run('regress_po_owner', 'ALTER TABLE po.ev DETACH PARTITION po.ev_a') AS old_owner_detach;

-- and for real, outside a subtransaction
SET ROLE regress_po_owner;
DROP TABLE po.ev_a;
RESET ROLE;
SET ROLE regress_po_other;
TRUNCATE po.ev_def;
RESET ROLE;
ALTER TABLE po.ev DETACH PARTITION po.ev_h;
DROP TABLE po.ev_h;
SELECT po.state() AS finish;

--
-- 2. Temporary tables (with the detail of each refusal)
--
\set VERBOSITY default
CREATE TEMP TABLE tt (pk adjkey, sk adjkey, attrs jsonb, exp timestamptz, PRIMARY KEY (pk, sk));
SELECT set_payload_column('tt', 'attrs');
SELECT set_ttl('tt', 'exp');
SELECT count(*) AS options_of_temp_tables
FROM adjlist_table_options o JOIN pg_class c ON c.oid = o.tbl
WHERE c.relpersistence = 't';
SELECT set_payload_column('tt', NULL);
SELECT set_ttl('tt', NULL);
-- registrations that adjlist did not write (as pg_restore writes them)
CREATE TEMP TABLE tt_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL, PRIMARY KEY (sk, pk));
CREATE TABLE po.perm (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
CREATE TABLE po.perm_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL, PRIMARY KEY (sk, pk));
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
VALUES ('tt_inverted', 'tt', '{sk,pk}', 2, '{pk,sk}');
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
VALUES ('tt_inverted', 'po.perm', '{sk,pk}', 2, '{pk,sk}');
INSERT INTO adjlist_inverted_indexes (indexrel, baserel, columns, nkeys, base_key)
VALUES ('po.perm_inverted', 'tt', '{sk,pk}', 2, '{pk,sk}');
SELECT count(*) AS temp_registrations
FROM adjlist_inverted_indexes r JOIN pg_class c ON c.oid IN (r.indexrel, r.baserel)
WHERE c.relpersistence = 't';
DROP TABLE tt, tt_inverted;

-- DROP SCHEMA ... CASCADE and DROP OWNED BY of partitions of a table they
-- leave, with counters.  regress_po_owner owns the base table po.g; the
-- schema po_x is regress_po_other's, and holds: g2, a leaf; g3, partitioned,
-- whose g3b is in po (and goes with g3); g6, a foreign partition with two
-- rows (postgres_fdw, a loopback to tables of po_src); and gb, another base
-- table with an index (which goes
-- with it).  In po, regress_po_other owns g4, and g5, partitioned, whose
-- g5a is the superuser's; g7, the superuser's, is foreign too (po.g stays
-- a table that cannot have a unique key, base_key).
CREATE EXTENSION postgres_fdw;
DO $$ BEGIN
	EXECUTE format('CREATE SERVER po_files FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L, host %L)',
				   current_database(), current_setting('port'),
				   coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'));
END $$;
CREATE USER MAPPING FOR PUBLIC SERVER po_files OPTIONS (password_required 'false');
CREATE SCHEMA po_src;
CREATE TABLE po_src.g6 (pk adjkey, sk adjkey, v int);
INSERT INTO po_src.g6 VALUES ('USER#f1', 'FOLLOWS#USER#b', 6), ('USER#f2', 'FOLLOWS#USER#b', 6);
CREATE TABLE po_src.g7 (pk adjkey, sk adjkey, v int);
INSERT INTO po_src.g7 VALUES ('USER#f7', 'FOLLOWS#USER#b', 7);
GRANT USAGE ON SCHEMA po_src TO PUBLIC;
GRANT SELECT ON po_src.g6, po_src.g7 TO PUBLIC;
CREATE SCHEMA po_x AUTHORIZATION regress_po_other;
SET ROLE regress_po_owner;
CREATE TABLE po.g (pk adjkey, sk adjkey, v int) PARTITION BY LIST (v);
CREATE TABLE po.g1 PARTITION OF po.g FOR VALUES IN (1);
RESET ROLE;
CREATE TABLE po_x.g2 PARTITION OF po.g FOR VALUES IN (2);
CREATE TABLE po_x.g3 PARTITION OF po.g FOR VALUES IN (3, 30) PARTITION BY LIST (v);
CREATE TABLE po_x.g3a PARTITION OF po_x.g3 FOR VALUES IN (3);
CREATE TABLE po.g3b PARTITION OF po_x.g3 FOR VALUES IN (30);
CREATE TABLE po.g4 PARTITION OF po.g FOR VALUES IN (4);
ALTER TABLE po.g4 OWNER TO regress_po_other;
CREATE TABLE po.g5 PARTITION OF po.g FOR VALUES IN (5, 50) PARTITION BY LIST (v);
ALTER TABLE po.g5 OWNER TO regress_po_other;
CREATE TABLE po.g5a PARTITION OF po.g5 FOR VALUES IN (50);
CREATE FOREIGN TABLE po_x.g6 PARTITION OF po.g FOR VALUES IN (6) SERVER po_files
	OPTIONS (schema_name 'po_src', table_name 'g6');
CREATE FOREIGN TABLE po.g7 PARTITION OF po.g FOR VALUES IN (7) SERVER po_files
	OPTIONS (schema_name 'po_src', table_name 'g7');
CREATE TABLE po_x.gb (pk adjkey, sk adjkey, v int, PRIMARY KEY (pk, sk, v)) PARTITION BY LIST (v);
CREATE TABLE po_x.gb1 PARTITION OF po_x.gb FOR VALUES IN (1);
INSERT INTO po_x.gb VALUES ('USER#a', 'FOLLOWS#USER#b', 1);
SELECT create_inverted_index('po_x.gb', counters => 1);
INSERT INTO po.g SELECT 'USER#' || v || '_' || i, 'FOLLOWS#USER#b', v
FROM unnest(ARRAY[1, 2, 3, 30, 4, 50]) v, generate_series(1, 3) i;
-- (by the superuser: regress_po_owner may not read them all)
SELECT create_inverted_index('po.g', counters => 1, base_key => '{pk,sk}');
CREATE FUNCTION po.gstate() RETURNS text LANGUAGE sql AS $$
	SELECT format('base %s, index %s, drift %s, partitions %s',
				  (SELECT count(*) FROM po.g), (SELECT count(*) FROM po.g_inverted),
				  (SELECT count(*) FROM verify_inverted_index('po.g_inverted')),
				  (SELECT string_agg(c.relname, ',' ORDER BY c.relname)
				   FROM pg_partition_tree('po.g') t JOIN pg_class c ON c.oid = t.relid
				   WHERE t.level > 0))
$$;
SELECT po.gstate() AS g_start;
-- refused: RESTRICT, and a role that does not own the schema; a rollback
DROP SCHEMA po_x;
SET ROLE regress_po_nobody;
DROP SCHEMA po_x CASCADE;
RESET ROLE;
BEGIN;
DROP SCHEMA po_x CASCADE;
SELECT po.gstate() AS g_dropped_schema;
ROLLBACK;
SELECT po.gstate() AS g_rolled_back;
-- for real, by the schema's owner
SET client_min_messages = warning;
SET ROLE regress_po_other;
DROP SCHEMA po_x CASCADE;
RESET ROLE;
RESET client_min_messages;
SELECT po.gstate() AS g_after_drop_schema;
-- DROP OWNED BY the partitions' owner (also of po.ev_m, ev_s and ev_def)
SELECT po.state() AS ev_before_drop_owned;
SET ROLE regress_po_nobody;
\set VERBOSITY terse
-- (terse: 16 and later add a DETAIL)
DROP OWNED BY regress_po_other;
\set VERBOSITY default
RESET ROLE;
SET ROLE regress_po_other;
DROP OWNED BY regress_po_other;
RESET ROLE;
SELECT po.gstate() AS g_after_drop_owned;
SELECT po.state() AS ev_after_drop_owned;
SELECT count(*) AS gb_registrations FROM adjlist_inverted_indexes WHERE indexrel::text LIKE '%gb_inverted';

--
-- Cleanup
--
DROP SCHEMA po CASCADE;
DROP USER MAPPING FOR PUBLIC SERVER po_files;
DROP SERVER po_files;
DROP EXTENSION postgres_fdw;
DROP SCHEMA po_src CASCADE;
DROP OWNED BY regress_po_owner, regress_po_other, regress_po_new, regress_po_trunc, regress_po_nobody;
DROP ROLE regress_po_owner, regress_po_other, regress_po_new, regress_po_trunc, regress_po_nobody;
