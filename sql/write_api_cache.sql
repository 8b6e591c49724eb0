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
DROP SCHEMA wc CASCADE;
