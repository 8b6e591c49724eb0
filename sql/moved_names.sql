--
-- A DDL statement's names, looked up at adjlist's ddl_command_start, must
-- find what the statement then acts on: a superuser's ddl_command_start
-- event trigger that fires after adjlist's (zz_...) may move search_path,
-- and the command would act on another table than the one adjlist checked.
-- Where either takes part in an inverted index the statement is refused
-- (55000).  And rows written into a partition whose rows left the index at
-- the start of its DETACH or DROP are refused until the command ends.
--
\set VERBOSITY terse
CREATE SCHEMA mn_s1;
CREATE SCHEMA mn_s2;
CREATE TABLE mn_s1.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE mn_s1.g_a PARTITION OF mn_s1.g FOR VALUES IN ('USER#a');
CREATE TABLE mn_s2.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE mn_s2.g_a PARTITION OF mn_s2.g FOR VALUES IN ('USER#a');
CREATE TABLE mn_s1.h (pk adjkey NOT NULL, sk adjkey NOT NULL);
CREATE UNIQUE INDEX h_key ON mn_s1.h (pk, sk);
CREATE TABLE mn_s2.h (pk adjkey NOT NULL, sk adjkey NOT NULL);
CREATE UNIQUE INDEX h_key ON mn_s2.h (pk, sk);
CREATE TABLE mn_s1.u (x int);
CREATE TABLE mn_s2.u (x int);
SELECT create_inverted_index('mn_s2.g', counters => 1);
SELECT create_inverted_index('mn_s2.h', base_key => '{pk,sk}');
INSERT INTO mn_s2.g VALUES ('USER#a', 'FOLLOWS#USER#b', NULL);
INSERT INTO mn_s2.h VALUES ('USER#a', 'FOLLOWS#USER#b');
CREATE FUNCTION public.zz_mn_path() RETURNS event_trigger LANGUAGE plpgsql AS
$$BEGIN PERFORM set_config('search_path', 'mn_s2, public', false); END$$;
CREATE EVENT TRIGGER zz_mn_path ON ddl_command_start EXECUTE FUNCTION public.zz_mn_path();

-- each finds mn_s1's table at adjlist's start, and acts on mn_s2's
SET search_path = mn_s1, public;
ALTER TABLE g ALTER COLUMN sk TYPE adjkey USING (sk::text || 'X')::adjkey;
SET search_path = mn_s1, public;
ALTER TABLE g DISABLE TRIGGER adjlist_sync_ins;
SET search_path = mn_s1, public;
ALTER TABLE g DISABLE TRIGGER USER;
SET search_path = mn_s1, public;
DROP TRIGGER adjlist_sync_del ON g;
SET search_path = mn_s1, public;
ALTER TABLE g_a SET UNLOGGED;
SET search_path = mn_s1, public;
DROP TABLE g_a;
SET search_path = mn_s1, public;
DROP TABLE IF EXISTS mn_nonesuch, g_a;
SET search_path = mn_s1, public;
DROP INDEX h_key;
SET search_path = mn_s1, public;
ALTER TRIGGER adjlist_sync_ins ON g RENAME TO mn_renamed;
SET search_path = mn_s1, public;
ALTER TABLE g_inverted RENAME COLUMN pk TO pk2;
-- a name that found nothing at the start (IF EXISTS), then mn_s2's table
SET search_path = mn_s1, public;
ALTER TABLE IF EXISTS g_inverted ADD COLUMN extra int;
-- tables that take part in no index: allowed
SET search_path = mn_s1, public;
ALTER TABLE u ADD COLUMN y int;
SET search_path = mn_s1, public;
DROP TABLE u;
-- schema-qualified names mean the same whatever search_path is
ALTER TABLE mn_s2.g ADD COLUMN note text;
DROP EVENT TRIGGER zz_mn_path;
SET search_path = public;
SELECT to_regclass('mn_s2.u') IS NULL AS s2_u_dropped, to_regclass('mn_s1.u') IS NOT NULL AS s1_u_kept;
-- (adjlist_sync_route, PostgreSQL 16 on, is left out)
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'mn_s2.g'::regclass
	AND tgname <> 'adjlist_sync_route' ORDER BY 1;
SELECT relname, relpersistence FROM pg_class WHERE oid IN ('mn_s2.g_a'::regclass, 'mn_s1.g_a'::regclass) ORDER BY 1, 2;
SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'mn_s2.h'::regclass;
SELECT attname FROM pg_attribute WHERE attrelid = 'mn_s2.g_inverted'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
INSERT INTO mn_s2.g VALUES ('USER#a', 'FOLLOWS#USER#c', NULL);
DELETE FROM mn_s2.g WHERE sk = 'FOLLOWS#USER#b';
SELECT * FROM verify_inverted_index('mn_s2.g_inverted');
SELECT * FROM verify_inverted_index('mn_s2.h_inverted');

--
-- A row written into a partition being detached or dropped, after its rows
-- left the index at the start: refused, for any write (an insert, a delete
-- or an update out of it would leave the index or its counts wrong).
--
CREATE TABLE mn_l (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE mn_l_a PARTITION OF mn_l FOR VALUES IN ('USER#a');
CREATE SCHEMA mn_p;
CREATE TABLE mn_p.mn_l_s PARTITION OF mn_l FOR VALUES IN ('S');
CREATE TABLE mn_l_log PARTITION OF mn_l DEFAULT;
SELECT create_inverted_index('mn_l', counters => 1);
INSERT INTO mn_l VALUES ('USER#a', 'FOLLOWS#USER#b'), ('USER#x', 'FOLLOWS#USER#b'),
	('USER#y', 'FOLLOWS#USER#b'), ('S', 'FOLLOWS#USER#b');
CREATE TABLE mn_audit_mode (what text);
CREATE FUNCTION public.zz_mn_audit() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE m text := (SELECT what FROM mn_audit_mode);
BEGIN
	IF m = 'insert' THEN
		INSERT INTO mn_l VALUES ('LOG', ('DDL#' || tg_tag)::adjkey);
	ELSIF m = 'insert-s' THEN
		INSERT INTO mn_l VALUES ('S', ('DDL#' || tg_tag)::adjkey);
	ELSIF m = 'delete' THEN
		DELETE FROM mn_l WHERE pk = 'USER#x';
	ELSIF m = 'update' THEN
		UPDATE mn_l SET pk = 'USER#a', sk = 'FOLLOWS#USER#q' WHERE pk = 'USER#y';
	ELSIF m = 'direct' THEN
		INSERT INTO mn_l_log VALUES ('LOG', 'DDL#direct');
	ELSIF m = 'other' THEN
		INSERT INTO mn_l VALUES ('USER#a', ('DDL#' || tg_tag)::adjkey);
	END IF;
END$$;
CREATE EVENT TRIGGER zz_mn_audit ON ddl_command_start
	WHEN TAG IN ('ALTER TABLE', 'DROP TABLE', 'DROP SCHEMA')
	EXECUTE FUNCTION public.zz_mn_audit();
INSERT INTO mn_audit_mode VALUES ('insert');
ALTER TABLE mn_l DETACH PARTITION mn_l_log;
DROP TABLE mn_l_log;
UPDATE mn_audit_mode SET what = 'delete';
ALTER TABLE mn_l DETACH PARTITION mn_l_log;
UPDATE mn_audit_mode SET what = 'update';
DROP TABLE mn_l_log;
UPDATE mn_audit_mode SET what = 'direct';
ALTER TABLE mn_l DETACH PARTITION mn_l_log;
UPDATE mn_audit_mode SET what = 'insert-s';
DROP SCHEMA mn_p CASCADE;
SELECT * FROM verify_inverted_index('mn_l_inverted');
-- a savepoint rolled back takes the window with it
BEGIN;
UPDATE mn_audit_mode SET what = 'insert';
SAVEPOINT a;
ALTER TABLE mn_l DETACH PARTITION mn_l_log;
ROLLBACK TO a;
INSERT INTO mn_l VALUES ('LOG', 'DDL#after');
COMMIT;
-- writes into the other partitions go on; after the command, so do the log's
UPDATE mn_audit_mode SET what = 'other';
ALTER TABLE mn_l DETACH PARTITION mn_l_log;
UPDATE mn_audit_mode SET what = 'none';
INSERT INTO mn_l_log VALUES ('LOG', 'DDL#later');
ALTER TABLE mn_l ATTACH PARTITION mn_l_log DEFAULT;
SELECT * FROM verify_inverted_index('mn_l_inverted');
UPDATE mn_audit_mode SET what = 'other';
DROP TABLE mn_l_log;
SELECT pk, sk FROM mn_l ORDER BY 1, 2;
SELECT * FROM verify_inverted_index('mn_l_inverted');
DROP EVENT TRIGGER zz_mn_audit;

-- a ddl_command_end event trigger that fires before adjlist's (aaa_...) and
-- writes into the partition DETACH has just detached: the table no longer
-- belongs to the index (its triggers go at adjlist's end), so the write is
-- its own
CREATE TABLE mn_e (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
CREATE TABLE mn_e_a PARTITION OF mn_e FOR VALUES IN ('USER#a');
CREATE TABLE mn_e_log PARTITION OF mn_e DEFAULT;
SELECT create_inverted_index('mn_e', counters => 1);
INSERT INTO mn_e VALUES ('USER#a', 'F#1'), ('LOG', 'DDL#0');
CREATE FUNCTION public.aaa_mn_end() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO public.mn_e_log VALUES ('LOG', 'DDL#end'); END $$;
CREATE EVENT TRIGGER aaa_mn_end ON ddl_command_end WHEN TAG IN ('ALTER TABLE')
	EXECUTE FUNCTION public.aaa_mn_end();
ALTER TABLE mn_e DETACH PARTITION mn_e_log;
DROP EVENT TRIGGER aaa_mn_end;
SELECT pk, sk FROM mn_e_log ORDER BY 1, 2;
SELECT count(*) AS triggers_left FROM pg_trigger WHERE tgrelid = 'mn_e_log'::regclass AND tgname LIKE 'adjlist%';
SELECT * FROM verify_inverted_index('mn_e_inverted');
DROP TABLE mn_e, mn_e_log;
DROP FUNCTION public.aaa_mn_end();

SET client_min_messages = warning;
DROP SCHEMA mn_s1, mn_s2, mn_p CASCADE;
DROP TABLE mn_l, mn_audit_mode;
DROP FUNCTION public.zz_mn_path(), public.zz_mn_audit();
RESET client_min_messages;
