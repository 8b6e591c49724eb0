--
-- predicate_binding: binding a sparse index's predicate from its text
-- (after pg_upgrade, in a restore) runs no role's code with another
-- role's rights, and no role's predicate blocks or breaks another role's
-- DDL (issue 10).
--
-- The predicate is bound as core binds an index predicate: as the base
-- table's owner, in a security-restricted operation, search_path pinned
-- (the planner folds the IMMUTABLE functions it calls on constants).  A
-- predicate bound in another cluster (pg_upgrade; simulated here by
-- changing the system identifier it was bound with, as
-- test/t/019_pg_upgrade.pl finds it) is bound again from its text by the
-- next DDL of any role, and by the readers of its table: that runs none
-- of its code, and an error binding it stays there.
--
-- regress_pb_mallory's predicates call trap(), which makes
-- regress_pb_mallory a superuser when a superuser runs it, and keep(),
-- which fails for any other role.
--
\set VERBOSITY terse
SET client_min_messages = warning;
CREATE ROLE regress_pb_mallory;
CREATE ROLE regress_pb_alice;
CREATE SCHEMA pb_m AUTHORIZATION regress_pb_mallory;
CREATE SCHEMA pb_a AUTHORIZATION regress_pb_alice;
SET ROLE regress_pb_mallory;
GRANT USAGE ON SCHEMA pb_m TO PUBLIC;
CREATE FUNCTION pb_m.escalate() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
		EXECUTE 'ALTER ROLE regress_pb_mallory SUPERUSER';
	END IF;
	RETURN true;
END $$;
CREATE FUNCTION pb_m.trap(int) RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN RETURN pb_m.escalate(); END $$;
CREATE FUNCTION pb_m.keep(int) RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
	IF current_user <> 'regress_pb_mallory' THEN
		RAISE EXCEPTION 'no DDL for you' USING ERRCODE = 'XX000';
	END IF;
	RETURN true;
END $$;
CREATE TABLE pb_m.g (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('pb_m.g', predicate => $$pb_m.trap(1) AND sk ^@ 'F#'$$);
CREATE TABLE pb_m.h (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('pb_m.h', predicate => $$pb_m.keep(1) AND sk ^@ 'F#'$$);
RESET ROLE;
SELECT baserel, predicate FROM adjlist_inverted_indexes
WHERE baserel IN ('pb_m.g'::regclass, 'pb_m.h'::regclass) ORDER BY 1;

-- 1. After pg_upgrade, another role's DDL on its own objects: keep()
--    does not make it fail (it used to: keep() ran as regress_pb_alice)
UPDATE adjlist_index_predicates SET system_identifier = system_identifier + 1
WHERE indexrel IN ('pb_m.g_inverted'::regclass, 'pb_m.h_inverted'::regclass);
\c -
\set VERBOSITY terse
SET client_min_messages = warning;
SET ROLE regress_pb_alice;
CREATE FUNCTION pb_a.f() RETURNS int LANGUAGE sql AS 'SELECT 1';
DROP FUNCTION pb_a.f();
CREATE TABLE pb_a.t (a int);
DROP TABLE pb_a.t;
RESET ROLE;
-- (bound again, and written back)
SELECT p.indexrel, p.system_identifier = (SELECT system_identifier FROM pg_control_system()) AS here
FROM adjlist_index_predicates p
WHERE indexrel IN ('pb_m.g_inverted'::regclass, 'pb_m.h_inverted'::regclass) ORDER BY 1;
INSERT INTO pb_m.h VALUES ('A', 'F#a'), ('A', 'X#a');
SELECT sk, pk FROM pb_m.h_inverted;

-- 2. After pg_upgrade, a superuser's unrelated DDL: trap() does not run
--    as the superuser (it used to, and regress_pb_mallory became one)
UPDATE adjlist_index_predicates SET system_identifier = system_identifier + 1
WHERE indexrel IN ('pb_m.g_inverted'::regclass, 'pb_m.h_inverted'::regclass);
\c -
\set VERBOSITY terse
SET client_min_messages = warning;
CREATE FUNCTION public.pb_unrelated() RETURNS int LANGUAGE sql AS 'SELECT 1';
DROP FUNCTION public.pb_unrelated();
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'regress_pb_mallory';
SELECT p.indexrel, p.system_identifier = (SELECT system_identifier FROM pg_control_system()) AS here
FROM adjlist_index_predicates p
WHERE indexrel IN ('pb_m.g_inverted'::regclass, 'pb_m.h_inverted'::regclass) ORDER BY 1;

-- 3. Nor when a superuser reads the table first (the registry's reader
--    binds it in memory), nor when a superuser drops it
UPDATE adjlist_index_predicates SET system_identifier = system_identifier + 1
WHERE indexrel IN ('pb_m.g_inverted'::regclass, 'pb_m.h_inverted'::regclass);
\c -
\set VERBOSITY terse
SET client_min_messages = warning;
INSERT INTO pb_m.g VALUES ('A', 'F#a'), ('A', 'X#a');
SELECT sk, pk FROM pb_m.g_inverted;
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'regress_pb_mallory';
DROP TABLE pb_m.h;
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'regress_pb_mallory';

-- 4. A registry row that a superuser's restore brings (the registry's
--    trigger binds its predicate): bound as the owner, trap() harmless
CREATE TABLE pb_saved AS SELECT * FROM adjlist_inverted_indexes WHERE baserel = 'pb_m.g'::regclass;
ALTER TABLE adjlist_inverted_indexes DISABLE TRIGGER ALL;
DELETE FROM adjlist_inverted_indexes WHERE baserel = 'pb_m.g'::regclass;
DELETE FROM adjlist_index_predicates WHERE indexrel = 'pb_m.g_inverted'::regclass;
ALTER TABLE adjlist_inverted_indexes ENABLE TRIGGER ALL;
INSERT INTO adjlist_inverted_indexes SELECT * FROM pb_saved;
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'regress_pb_mallory';
SELECT count(*) AS bound FROM adjlist_index_predicates WHERE indexrel = 'pb_m.g_inverted'::regclass;

-- 5. The same with pg_restore --disable-triggers: bound when a superuser
--    enables the registry's triggers again
ALTER TABLE adjlist_inverted_indexes DISABLE TRIGGER ALL;
DELETE FROM adjlist_inverted_indexes WHERE baserel = 'pb_m.g'::regclass;
DELETE FROM adjlist_index_predicates WHERE indexrel = 'pb_m.g_inverted'::regclass;
INSERT INTO adjlist_inverted_indexes SELECT * FROM pb_saved;
ALTER TABLE adjlist_inverted_indexes ENABLE TRIGGER ALL;
SELECT rolsuper AS mallory_is_superuser FROM pg_roles WHERE rolname = 'regress_pb_mallory';
SELECT count(*) AS bound FROM adjlist_index_predicates WHERE indexrel = 'pb_m.g_inverted'::regclass;
INSERT INTO pb_m.g VALUES ('B', 'F#b');
SELECT sk, pk FROM pb_m.g_inverted ORDER BY 1, 2;

-- 6. The owner's own code, bound as the owner, runs restricted: what core
--    forbids there (here: a temporary table, which would outlive the
--    binding) is refused
SET ROLE regress_pb_mallory;
CREATE FUNCTION pb_m.leave() RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN CREATE TEMP TABLE pb_left_behind (a int); RETURN true; END $$;
CREATE FUNCTION pb_m.sneaky(int) RETURNS boolean IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN RETURN pb_m.leave(); END $$;
CREATE TABLE pb_m.k (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('pb_m.k', predicate => $$pb_m.sneaky(1)$$);
RESET ROLE;

DROP TABLE pb_saved;
DROP SCHEMA pb_m, pb_a CASCADE;
DROP ROLE regress_pb_mallory, regress_pb_alice;
