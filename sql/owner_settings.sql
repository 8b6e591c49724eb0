--
-- Code of a table's owner that adjlist runs as that owner (a sparse
-- index's predicate, when a writer adds an edge, and when the index is
-- verified or rebuilt) leaves no setting behind in the caller's session:
-- a SET it makes (search_path, to plant objects the caller would then
-- resolve) is undone when adjlist switches back to the caller.
--
SET client_min_messages = warning;
CREATE ROLE regress_settings_owner;
CREATE SCHEMA owner_settings AUTHORIZATION regress_settings_owner;
GRANT USAGE ON SCHEMA owner_settings TO PUBLIC;
SET ROLE regress_settings_owner;
CREATE FUNCTION owner_settings.leak(k text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
	PERFORM set_config('search_path', 'owner_settings, pg_catalog', false);
	PERFORM set_config('application_name', 'set by the owner', false);
	RETURN true;
END $$;
CREATE TABLE owner_settings.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('owner_settings.g', predicate => 'owner_settings.leak(sk::text)');
GRANT INSERT, SELECT ON owner_settings.g TO PUBLIC;
RESET ROLE;

SET search_path = public;
SET application_name = 'the caller''s';
-- a write runs the predicate as the owner
INSERT INTO owner_settings.g VALUES ('USER#a', 'FOLLOWS#USER#b', '{}');
SELECT current_setting('search_path') AS search_path, current_setting('application_name') AS application_name;
-- and so do verify and rebuild
SET search_path = public;
SET application_name = 'the caller''s';
SELECT count(*) AS problems FROM verify_inverted_index('owner_settings.g_inverted');
SELECT current_setting('search_path') AS search_path, current_setting('application_name') AS application_name;
SET search_path = public;
SET application_name = 'the caller''s';
SELECT rebuild_inverted_index('owner_settings.g_inverted') IS NOT NULL AS rebuilt;
SELECT current_setting('search_path') AS search_path, current_setting('application_name') AS application_name;
-- the index is exact
SELECT pk, sk FROM owner_settings.g_inverted;

RESET application_name;

-- A writer that is not the owner: the index table's own code, here a range
-- type's subtype_diff that a GiST index of the index table calls (code
-- adjlist cannot see from the table), runs as the owner with search_path
-- pinned, so an operator the writer put first on its path never runs
-- with the owner's rights.
CREATE ROLE regress_settings_writer;
CREATE SCHEMA owner_settings_w AUTHORIZATION regress_settings_writer;
SET ROLE regress_settings_owner;
CREATE FUNCTION owner_settings.span_diff(a float8, b float8) RETURNS float8
	LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN a - b; END $$;
CREATE TYPE owner_settings.span AS RANGE (subtype = float8, subtype_diff = owner_settings.span_diff);
CREATE TABLE owner_settings.private (secret text);
INSERT INTO owner_settings.private VALUES ('the owner''s');
CREATE TABLE owner_settings.r (pk adjkey, sk adjkey, r owner_settings.span, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('owner_settings.r', include => '{r}');
INSERT INTO owner_settings.r
SELECT 'N#' || i, 'E#N#' || i, owner_settings.span(i, i + 1) FROM generate_series(1, 3000) i;
CREATE INDEX ON owner_settings.r_inverted USING gist (r);
GRANT INSERT ON owner_settings.r TO regress_settings_writer;
SET ROLE regress_settings_writer;
CREATE FUNCTION owner_settings_w.minus(float8, float8) RETURNS float8 LANGUAGE plpgsql AS $$
BEGIN
	IF current_user = 'regress_settings_owner' THEN
		EXECUTE 'GRANT SELECT ON owner_settings.private TO regress_settings_writer';
	END IF;
	RETURN pg_catalog.float8mi($1, $2);
END $$;
CREATE OPERATOR owner_settings_w.- (LEFTARG = float8, RIGHTARG = float8, FUNCTION = owner_settings_w.minus);
GRANT USAGE ON SCHEMA owner_settings_w TO PUBLIC;
RESET ROLE;
-- a new session, where the owner's function was never planned
\c
SET client_min_messages = warning;
SET ROLE regress_settings_writer;
SET search_path = owner_settings_w, pg_catalog;
INSERT INTO owner_settings.r VALUES ('N#x', 'E#N#x', owner_settings.span(5, 6));
RESET search_path;
SELECT * FROM owner_settings.private;
RESET ROLE;
SELECT count(*) AS problems FROM verify_inverted_index('owner_settings.r_inverted');

DROP SCHEMA owner_settings CASCADE;
DROP SCHEMA owner_settings_w CASCADE;
DROP ROLE regress_settings_owner;
DROP ROLE regress_settings_writer;
