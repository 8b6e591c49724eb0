-- The write API keeps what it knows about a table per backend (api_table()
-- in write_api_table.c): every change that alters a put or a delete must
-- reach it in the same session.
SET client_min_messages = warning;
CREATE SCHEMA wc;
CREATE TABLE wc.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('wc.g') IS NOT NULL AS indexed;
SELECT put_edge('wc.g', 'u#1', 'f#2', '{"a": 1}');
SELECT delete_edge('wc.g', 'u#1', 'f#2');
SELECT put_edge('wc.g', 'u#1', 'f#3', '{"a": 1}');

-- a column renamed: no payload column any more, then another one named
ALTER TABLE wc.g RENAME COLUMN data TO attrs;
SELECT put_edge('wc.g', 'u#1', 'f#4', '{"a": 2}');
SELECT set_payload_column('wc.g', 'attrs');
SELECT put_edge('wc.g', 'u#1', 'f#4', '{"a": 2}');
SELECT delete_edge('wc.g', 'u#1', 'f#3');
SELECT pk, sk, attrs FROM wc.g ORDER BY 1, 2;

-- in a transaction that rolls back, and after it
BEGIN;
ALTER TABLE wc.g ADD COLUMN data jsonb;
SELECT set_payload_column('wc.g', 'data');
SELECT put_edge('wc.g', 'u#1', 'f#5', '{"a": 3}');
SELECT pk, sk, attrs, data FROM wc.g ORDER BY 1, 2;
ROLLBACK;
SELECT put_edge('wc.g', 'u#1', 'f#5', '{"a": 3}');
SELECT pk, sk, attrs FROM wc.g ORDER BY 1, 2;

-- the schema renamed: the statements name the table qualified
ALTER SCHEMA wc RENAME TO wc2;
SELECT put_edge('wc2.g', 'u#1', 'f#6', '{"a": 4}');
SELECT delete_edge('wc2.g', 'u#1', 'f#4');
ALTER SCHEMA wc2 RENAME TO wc;

-- a column added that the index projects: put returns it to the index
SELECT drop_inverted_index('wc.g_inverted');
SELECT put_edge('wc.g', 'u#1', 'f#7', '{"a": 5}');
ALTER TABLE wc.g ADD COLUMN w int DEFAULT 7;
SELECT create_inverted_index('wc.g', include => ARRAY['w']) IS NOT NULL AS indexed;
SELECT put_edge('wc.g', 'u#1', 'f#7', '{"a": 5}');
SELECT delete_edge('wc.g', 'u#1', 'f#5');
SELECT pk, sk, attrs, w FROM wc.g ORDER BY 1, 2;
SELECT sk, pk, w FROM wc.g_inverted ORDER BY 1, 2;
SELECT count(*) AS problems FROM verify_inverted_index('wc.g_inverted');

-- dropped and made again under the same name
DROP TABLE wc.g;
CREATE TABLE wc.g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT put_edge('wc.g', 'u#1', 'f#8', '{"a": 6}');
SELECT create_inverted_index('wc.g') IS NOT NULL AS indexed;
SELECT put_edge('wc.g', 'u#1', 'f#8', '{"a": 6}');
SELECT delete_edge('wc.g', 'u#1', 'f#8');
SELECT put_edge('wc.g', 'u#2', 'f#9', NULL);
SELECT pk, sk, data FROM wc.g ORDER BY 1, 2;
SELECT sk, pk FROM wc.g_inverted ORDER BY 1, 2;
-- put_edge and delete_edge keep their plans with the table's entry
-- (adjlist_plan_ref()), for the role that prepared them: another role runs
-- its own, under its own privileges and policies, and so does the owner
-- after it.  The rows put_edge's upsert returns are not kept, but still
-- asked for: SELECT on the columns and the SELECT policies apply (42501).
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
GRANT EXECUTE ON FUNCTION pg_temp.err(text) TO PUBLIC;
CREATE ROLE regress_wc_w;
GRANT USAGE ON SCHEMA wc TO regress_wc_w;
GRANT SELECT, INSERT, UPDATE, DELETE ON wc.g TO regress_wc_w;
ALTER TABLE wc.g ENABLE ROW LEVEL SECURITY;
CREATE POLICY s ON wc.g FOR SELECT USING (data IS NULL OR NOT data ? 'hidden');
CREATE POLICY i ON wc.g FOR INSERT WITH CHECK (sk::text <> 'f#no');
CREATE POLICY u ON wc.g FOR UPDATE USING (true);
CREATE POLICY d ON wc.g FOR DELETE USING (sk::text <> 'f#kept');
CREATE FUNCTION pg_temp.calls(who text) RETURNS TABLE (call text, outcome text)
LANGUAGE plpgsql AS $$
BEGIN
	IF who <> '' THEN
		EXECUTE format('SET ROLE %I', who);
	END IF;
	RETURN QUERY SELECT q, pg_temp.err(q) FROM (VALUES
		($q$SELECT put_edge('wc.g', 'u#3', 'f#no', NULL)$q$),
		($q$SELECT put_edge('wc.g', 'u#3', 'f#kept', NULL)$q$),
		($q$SELECT put_edge('wc.g', 'u#3', 'f#hid', '{"hidden": 1}')$q$),
		($q$SELECT put_edge('wc.g', 'u#3', 'f#shown', '{"hidden": 1}')$q$),
		($q$SELECT put_edge('wc.g', 'u#3', 'f#shown', '{"shown": 1}')$q$),
		($q$SELECT delete_edge('wc.g', 'u#3', 'f#kept')$q$)) v(q);
	RESET ROLE;
END $$;
SELECT * FROM pg_temp.calls('');
SELECT put_edge('wc.g', 'u#3', 'f#kept', NULL), put_edge('wc.g', 'u#3', 'f#hid', NULL);
SELECT * FROM pg_temp.calls('regress_wc_w');
SELECT * FROM pg_temp.calls('');
SELECT pk, sk, data FROM wc.g WHERE pk = 'u#3' ORDER BY 1, 2;
-- privileges changed between two calls of the same role
REVOKE SELECT ON wc.g FROM regress_wc_w;
SELECT * FROM pg_temp.calls('regress_wc_w');
GRANT SELECT (pk, sk) ON wc.g TO regress_wc_w;
SELECT * FROM pg_temp.calls('regress_wc_w');
GRANT SELECT ON wc.g TO regress_wc_w;
SELECT * FROM pg_temp.calls('regress_wc_w');
ALTER TABLE wc.g DISABLE ROW LEVEL SECURITY;
SELECT * FROM pg_temp.calls('regress_wc_w');
SELECT pk, sk, data FROM wc.g WHERE pk = 'u#3' ORDER BY 1, 2;
SELECT sk, pk FROM wc.g_inverted WHERE pk = 'u#3' ORDER BY 1, 2;

-- put_edge leaves out its upsert's RETURNING only where the upsert asks
-- for the same: not where an index projects a generated column (SELECT on
-- it), nor where the upsert sets nothing (DO NOTHING asks for no SELECT)
CREATE TABLE wc.gen (pk adjkey, sk adjkey, data jsonb,
	k text GENERATED ALWAYS AS (data->>'k') STORED, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('wc.gen', include => ARRAY['k']) IS NOT NULL AS indexed;
CREATE TABLE wc.keys (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('wc.keys') IS NOT NULL AS indexed;
GRANT INSERT, UPDATE, SELECT (pk, sk, data) ON wc.gen TO regress_wc_w;
GRANT INSERT, UPDATE ON wc.keys TO regress_wc_w;
CREATE FUNCTION pg_temp.calls2(who text) RETURNS TABLE (call text, outcome text)
LANGUAGE plpgsql AS $$
BEGIN
	IF who <> '' THEN
		EXECUTE format('SET ROLE %I', who);
	END IF;
	RETURN QUERY SELECT q, pg_temp.err(q) FROM (VALUES
		($q$SELECT put_edge('wc.gen', 'u#5', 'f#1', '{"k": "a"}')$q$),
		($q$SELECT put_edge('wc.gen', 'u#5', 'f#1', '{"k": "b"}')$q$),
		($q$SELECT put_edge('wc.keys', 'u#5', 'f#1')$q$),
		($q$SELECT put_edge('wc.keys', 'u#5', 'f#1')$q$)) v(q);
	RESET ROLE;
END $$;
SELECT * FROM pg_temp.calls2('regress_wc_w');
GRANT SELECT (k) ON wc.gen TO regress_wc_w;
GRANT SELECT (pk, sk) ON wc.keys TO regress_wc_w;
SELECT * FROM pg_temp.calls2('regress_wc_w');
SELECT * FROM pg_temp.calls2('');
SELECT pk, sk, data, k FROM wc.gen ORDER BY 1, 2;
SELECT sk, pk, k FROM wc.gen_inverted ORDER BY 1, 2;
SELECT sk, pk FROM wc.keys_inverted ORDER BY 1, 2;

-- the plan cache emptied while the table's entry stays (more plans than it
-- holds: one a role): the plans the entry remembers are not run again
SELECT put_edge('wc.g', 'u#4', 'f#1', '{"a": 1}'), delete_edge('wc.g', 'u#4', 'f#0');
DO $$
BEGIN
	FOR i IN 1..300 LOOP
		EXECUTE format('CREATE ROLE regress_wc_m%s IN ROLE regress_wc_w', i);
		EXECUTE format('SET ROLE regress_wc_m%s', i);
		PERFORM delete_edge('wc.g', 'u#4', 'f#0');
		RESET ROLE;
	END LOOP;
END $$;
SELECT put_edge('wc.g', 'u#4', 'f#2', '{"a": 2}'), delete_edge('wc.g', 'u#4', 'f#1');
SELECT pk, sk, data FROM wc.g WHERE pk = 'u#4' ORDER BY 1, 2;
SELECT sk, pk FROM wc.g_inverted WHERE pk = 'u#4' ORDER BY 1, 2;
SELECT count(*) AS problems FROM verify_inverted_index('wc.g_inverted');
DO $$
BEGIN
	FOR i IN 1..300 LOOP
		EXECUTE format('DROP ROLE regress_wc_m%s', i);
	END LOOP;
END $$;

-- called by the OID of a table dropped since: 42P01, as the read functions
-- (the OID itself left out of the output)
CREATE TABLE wc.gone (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('wc.gone') IS NOT NULL AS indexed;
SELECT 'wc.gone'::regclass::oid AS gone_oid \gset
SELECT put_edge('wc.gone', 'u#1', 'f#1', NULL);
DROP TABLE wc.gone;
SELECT regexp_replace(pg_temp.err(format('SELECT put_edge(%s::regclass, %L, %L)', :gone_oid, 'u#1', 'f#2')), 'OID [0-9]+', 'OID N') AS put_edge,
       regexp_replace(pg_temp.err(format('SELECT delete_edge(%s::regclass, %L, %L)', :gone_oid, 'u#1', 'f#1')), 'OID [0-9]+', 'OID N') AS delete_edge,
       regexp_replace(pg_temp.err(format('SELECT count(*) FROM neighbors(%s::regclass, %L, %L)', :gone_oid, 'u#1', 'f#')), 'OID [0-9]+', 'OID N') AS neighbors;

DROP SCHEMA wc CASCADE;
DROP ROLE regress_wc_w;
