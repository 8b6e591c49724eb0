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
DROP SCHEMA owner_settings CASCADE;
DROP ROLE regress_settings_owner;
