--
-- dependency_drops: what DDL reaches through a dependency, and foreign
-- partitions re-pointed (issue 11).
--
-- 1. A partition of an indexed table dropped not by DROP TABLE but by a
--    cascade (DROP SERVER ... CASCADE or DROP EXTENSION postgres_fdw
--    CASCADE of a foreign partition, DROP FUNCTION ... CASCADE of a
--    function in a sub-partitioned partition's key) would keep its rows in
--    the index, where they can no longer be read at sql_drop: refused
--    (2BP01), naming the partition and its indexed table.  DROP TABLE of
--    the partition (also ... CASCADE), DETACH PARTITION first, or a cascade
--    that drops the base table too are not refused.
-- 2. A column an index uses, dropped by DROP TYPE / DROP DOMAIN ...
--    CASCADE of its type: refused as ALTER TABLE ... DROP COLUMN is,
--    naming the index (55000); the table stays writable.  A column no index
--    uses goes, and a sparse index whose predicate reads the column goes
--    with it, as documented.
-- 3. ALTER FOREIGN TABLE ... OPTIONS (table or column options that say
--    which remote rows it holds) of a foreign partition of an indexed
--    table: refused (0A000); postgres_fdw's options that change no row stay
--    allowed; DETACH, alter, ATTACH re-indexes.
--
-- Each case runs in a subtransaction that dd.run() rolls back, and prints
-- its outcome ("ok" with the problems verify_inverted_index() finds in each
-- index left, or "error <SQLSTATE>" and the message).
--
\set SHOW_CONTEXT never
\set VERBOSITY terse
SET client_min_messages = warning;
DROP SCHEMA IF EXISTS dd CASCADE;
DROP SCHEMA IF EXISTS dd_src CASCADE;
CREATE SCHEMA dd;
CREATE SCHEMA dd_src;

-- (the rows of an index table)
CREATE FUNCTION dd.nrows(idx regclass) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %s', idx) INTO n;
	RETURN n;
END $$;
CREATE FUNCTION dd.state() RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(format('%s: %s rows, %s problems', r.indexrel, dd.nrows(r.indexrel),
									  (SELECT count(*) FROM verify_inverted_index(r.indexrel))),
							   '; ' ORDER BY r.indexrel::text), 'no index')
	FROM adjlist_inverted_indexes r
	WHERE r.baserel::text LIKE 'dd.%'
$$;

CREATE FUNCTION dd.run(cmd text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	res text;
BEGIN
	BEGIN
		EXECUTE cmd;
		res := 'ok; ' || dd.state();
		RAISE EXCEPTION 'undo';
	EXCEPTION WHEN OTHERS THEN
		IF res IS NULL THEN
			res := format('error %s: %s', SQLSTATE, SQLERRM);
		END IF;
	END;
	RETURN res;
END $$;

-- a loopback server for foreign partitions
CREATE EXTENSION postgres_fdw;
DO $$ BEGIN
	EXECUTE format('CREATE SERVER dd_loop FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L, host %L)',
				   current_database(), current_setting('port'),
				   coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'));
END $$;
CREATE USER MAPPING FOR PUBLIC SERVER dd_loop OPTIONS (password_required 'false');
CREATE TABLE dd_src.fa (pk adjkey, sk adjkey, v int);
INSERT INTO dd_src.fa VALUES ('USER#f1', 'FOLLOWS#USER#b', 6), ('USER#f2', 'FOLLOWS#USER#b', 6);
CREATE TABLE dd_src.fb (pk adjkey, sk adjkey, v int);
INSERT INTO dd_src.fb VALUES ('USER#f9', 'FOLLOWS#USER#z', 6);

-- dd.g: a local partition, a foreign one, and a sub-partitioned one whose
-- key calls a function of ours
CREATE FUNCTION dd.kf(adjkey) RETURNS text IMMUTABLE LANGUAGE sql AS $$ SELECT left($1::text, 1) $$;
CREATE TABLE dd.g (pk adjkey, sk adjkey, v int) PARTITION BY LIST (v);
CREATE TABLE dd.g1 PARTITION OF dd.g FOR VALUES IN (1);
CREATE TABLE dd.g3 PARTITION OF dd.g FOR VALUES IN (3) PARTITION BY LIST (dd.kf(pk));
CREATE TABLE dd.g3a PARTITION OF dd.g3 FOR VALUES IN ('U');
CREATE FOREIGN TABLE dd.g6 PARTITION OF dd.g FOR VALUES IN (6) SERVER dd_loop
	OPTIONS (schema_name 'dd_src', table_name 'fa');
INSERT INTO dd.g VALUES ('USER#a', 'FOLLOWS#USER#b', 1), ('USER#c', 'FOLLOWS#USER#b', 3);
SELECT create_inverted_index('dd.g', base_key => '{pk,sk}', counters => 1);
SELECT dd.state();

-- ----------------------------------------------------------------------
-- 1. Partitions dropped through a dependency
-- ----------------------------------------------------------------------
-- refused: the foreign partition goes with its server, or its wrapper
SELECT dd.run('DROP SERVER dd_loop CASCADE');
SELECT dd.run('DROP EXTENSION postgres_fdw CASCADE');
-- refused: the sub-partitioned partition goes with its key's function
SELECT dd.run('DROP FUNCTION dd.kf(adjkey) CASCADE');
-- allowed: DROP TABLE of the partition itself takes its rows out first
SELECT dd.run('DROP FOREIGN TABLE dd.g6 CASCADE');
SELECT dd.run('DROP TABLE dd.g3 CASCADE');
-- allowed: detached first (in the same transaction), then the cascade
SELECT dd.run('ALTER TABLE dd.g DETACH PARTITION dd.g6; DROP SERVER dd_loop CASCADE');
SELECT dd.run('ALTER TABLE dd.g DETACH PARTITION dd.g3; DROP FUNCTION dd.kf(adjkey) CASCADE');
-- allowed: a cascade that drops the base table as well (its index goes)
SELECT dd.run('DROP TABLE dd.g CASCADE');
SELECT dd.state();

-- ----------------------------------------------------------------------
-- 2. Columns dropped through a dependency
-- ----------------------------------------------------------------------
CREATE TYPE dd.mood AS ENUM ('ok', 'sad');
CREATE DOMAIN dd.flag AS boolean;
CREATE DOMAIN dd.note AS text;
CREATE TABLE dd.m (pk adjkey, sk adjkey, m dd.mood, f dd.flag, n dd.note,
				   PRIMARY KEY (pk, sk));
INSERT INTO dd.m VALUES ('USER#a', 'FOLLOWS#USER#b', 'ok', true, 'x'),
	('USER#b', 'FOLLOWS#USER#a', 'sad', false, 'y');
SELECT create_inverted_index('dd.m', include => '{m}');
SELECT create_inverted_index('dd.m', index_name => 'm_flagged', predicate => 'f');
SELECT dd.state();
-- refused as ALTER TABLE ... DROP COLUMN is, naming the index
SELECT dd.run('ALTER TABLE dd.m DROP COLUMN m');
SELECT dd.run('DROP TYPE dd.mood CASCADE');
-- a column no index uses goes
SELECT dd.run('DROP DOMAIN dd.note CASCADE');
-- the predicate's column goes, and the sparse index with it
SELECT dd.run('DROP DOMAIN dd.flag CASCADE');
-- the table stays writable, the indexes exact
INSERT INTO dd.m VALUES ('USER#c', 'FOLLOWS#USER#a', 'ok', true, 'z');
DELETE FROM dd.m WHERE pk = 'USER#b';
SELECT dd.state();

-- ----------------------------------------------------------------------
-- 3. Foreign partitions re-pointed by their options
-- ----------------------------------------------------------------------
SELECT dd.run($$ALTER FOREIGN TABLE dd.g6 OPTIONS (SET table_name 'fb')$$);
SELECT dd.run($$ALTER TABLE dd.g6 OPTIONS (SET table_name 'fb')$$);
SELECT dd.run($$ALTER FOREIGN TABLE dd.g6 OPTIONS (DROP schema_name)$$);
SELECT dd.run($$ALTER FOREIGN TABLE dd.g6 ALTER COLUMN sk OPTIONS (ADD column_name 'pk')$$);
SELECT dd.run($$ALTER FOREIGN TABLE dd.g6 OPTIONS (SET table_name 'fb', ADD fetch_size '10')$$);
-- allowed: options that change no row
SELECT dd.run($$ALTER FOREIGN TABLE dd.g6 OPTIONS (ADD fetch_size '10', ADD use_remote_estimate 'false')$$);
-- the way to re-point it: detach, alter, attach again
ALTER TABLE dd.g DETACH PARTITION dd.g6;
ALTER FOREIGN TABLE dd.g6 OPTIONS (SET table_name 'fb');
ALTER TABLE dd.g ATTACH PARTITION dd.g6 FOR VALUES IN (6);
SELECT pk, sk FROM dd.g_inverted ORDER BY pk;
SELECT dd.state();

-- ----------------------------------------------------------------------
-- 4. DROP OWNED BY drops what the role owns itself: not a partition of a
--    role it is a member of (its rows stay indexed), and a superuser
--    role's own partition goes with its rows out of the index
-- ----------------------------------------------------------------------
CREATE ROLE regress_dd_o;
CREATE ROLE regress_dd_member IN ROLE regress_dd_o;
CREATE ROLE regress_dd_admin SUPERUSER;
CREATE TABLE dd.o (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE dd.o_a PARTITION OF dd.o FOR VALUES IN ('a');
CREATE TABLE dd.o_b PARTITION OF dd.o FOR VALUES IN ('b');
CREATE TABLE dd.o_c PARTITION OF dd.o FOR VALUES IN ('c');
SELECT create_inverted_index('dd.o', counters => 1);
INSERT INTO dd.o VALUES ('a', 'E#x'), ('b', 'E#x'), ('c', 'E#x');
ALTER TABLE dd.o_b OWNER TO regress_dd_o;
ALTER TABLE dd.o_c OWNER TO regress_dd_admin;
BEGIN;
DROP OWNED BY regress_dd_member;
INSERT INTO dd.o VALUES ('b', 'E#y');	-- o_b is not being dropped
ROLLBACK;
DROP OWNED BY regress_dd_member;
DROP OWNED BY regress_dd_admin;
SELECT to_regclass('dd.o_b') AS kept, to_regclass('dd.o_c') AS dropped,
	   (SELECT count(*) FROM dd.o) AS rows, (SELECT count(*) FROM dd.o_inverted) AS index_rows,
	   (SELECT count(*) FROM verify_inverted_index('dd.o_inverted')) AS drift;
DROP ROLE regress_dd_member, regress_dd_admin;
DROP TABLE dd.o;
DROP ROLE regress_dd_o;

-- ----------------------------------------------------------------------
-- 5. A foreign partition of an index table (the sharded recipe) dropped
--    through its server: the index would lose its rows, refused
-- ----------------------------------------------------------------------
DO $$ BEGIN
	EXECUTE format('CREATE SERVER dd_loop2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L, host %L)',
				   current_database(), current_setting('port'),
				   coalesce(nullif(split_part(current_setting('unix_socket_directories'), ',', 1), ''), 'localhost'));
END $$;
CREATE USER MAPPING FOR PUBLIC SERVER dd_loop2 OPTIONS (password_required 'false');
CREATE TABLE dd_src.rv (sk adjkey, pk adjkey, PRIMARY KEY (sk, pk));
CREATE TABLE dd.s (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
CREATE TABLE dd.s_inverted (sk adjkey NOT NULL, pk adjkey NOT NULL) PARTITION BY HASH (sk);
CREATE TABLE dd.s_inverted_0 PARTITION OF dd.s_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE FOREIGN TABLE dd.s_inverted_1 PARTITION OF dd.s_inverted FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER dd_loop2 OPTIONS (schema_name 'dd_src', table_name 'rv');
SELECT create_inverted_index('dd.s', index_name => 's_inverted', existing => true);
INSERT INTO dd.s SELECT 'USER#' || i, 'FOLLOWS#USER#' || i FROM generate_series(1, 6) i;
SELECT (SELECT count(*) FROM dd_src.rv) > 0 AS on_the_shard;
SELECT dd.run('DROP SERVER dd_loop2 CASCADE');
SELECT count(*) AS index_rows, (SELECT count(*) FROM verify_inverted_index('dd.s_inverted')) AS drift
FROM dd.s_inverted;
-- and so is DROP TABLE of the index table's partition, but not of the index table
SELECT dd.run('DROP FOREIGN TABLE dd.s_inverted_1');
SELECT dd.run('DROP TABLE dd.s_inverted_0');
SELECT dd.run('DROP TABLE dd.s_inverted_0, dd.s_inverted');
-- allowed: the index dropped first
SELECT drop_inverted_index('dd.s_inverted');
DROP SERVER dd_loop2 CASCADE;
DROP TABLE dd.s, dd_src.rv;

RESET client_min_messages;
SET client_min_messages = warning;
DROP SCHEMA dd CASCADE;
DROP SCHEMA dd_src CASCADE;
DROP USER MAPPING FOR PUBLIC SERVER dd_loop;
DROP SERVER dd_loop;
DROP EXTENSION postgres_fdw;
RESET client_min_messages;
