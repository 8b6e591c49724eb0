--
-- DynamoDB fidelity (issue 15), where an adversarial tester found adjlist
-- more lenient than DynamoDB: the base table's key limits on rows no index
-- holds, import_dynamodb's input that DynamoDB rejects, and
-- put_edge_if(..., expected => '{}') on an item whose data is not an
-- object.  Errors are shown with their SQLSTATE and detail (pg_temp.err).
--
-- a schema of its own: the suites share one database
CREATE SCHEMA dynamo_fidelity;
SET search_path = dynamo_fidelity, public;
CREATE FUNCTION pg_temp.err(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
	ctx text;
BEGIN
	EXECUTE sql;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL,
		ctx = PG_EXCEPTION_CONTEXT;
	RETURN st || ': ' || msg || coalesce(E'\n  detail: ' || nullif(det, ''), '')
		|| coalesce(E'\n  context: ' || nullif(split_part(ctx, E'\n', 1), ''), '');
END $$;

-- ======================================================================
-- 1. Key sizes: a sort key of the base table may have 1024 bytes, whether
--    an index holds its row or not
-- ======================================================================

-- a sparse index (by predicate): a row it does not hold is still checked
CREATE TABLE fs (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('fs', predicate => $$sk ^@ 'FOLLOWS#'$$);
SELECT pg_temp.err($$INSERT INTO fs VALUES ('USER#a', repeat('x', 1025), NULL)$$);
SELECT pg_temp.err($$SELECT put_edge('fs', 'USER#a', repeat('x', 1500)::adjkey)$$);
SELECT pg_temp.err($$SELECT put_edge_if_absent('fs', 'USER#a', repeat('x', 1500)::adjkey)$$);
SELECT pg_temp.err($$SELECT put_edges('fs', jsonb_build_array(jsonb_build_object('pk', 'USER#a', 'sk', repeat('x', 1500))))$$);
-- 1024 bytes is the limit itself; a statement with one bad row writes nothing
INSERT INTO fs VALUES ('USER#a', repeat('y', 1024), NULL);
SELECT pg_temp.err($$INSERT INTO fs VALUES ('USER#b', 'PROFILE', NULL), ('USER#b', repeat('z', 1025), NULL)$$);
SELECT pg_temp.err($$UPDATE fs SET sk = repeat('z', 1025) WHERE pk = 'USER#a'$$);
SELECT pk, octet_length(sk::text) FROM fs ORDER BY 1, 2;
-- a row in the index as well: the same error
SELECT pg_temp.err($$INSERT INTO fs VALUES ('USER#a', 'FOLLOWS#' || repeat('x', 1100), NULL)$$);

-- an index on a derived key: a row whose derived key is NULL is still checked
CREATE TABLE orders (pk adjkey, sk adjkey, data jsonb,
	gsi1pk adjkey GENERATED ALWAYS AS (CASE WHEN sk ^@ 'BILL#' THEN sk END) STORED,
	PRIMARY KEY (pk, sk));
SELECT create_inverted_index('orders', partition_key => 'gsi1pk', index_name => 'orders_by_bill');
SELECT pg_temp.err($$INSERT INTO orders (pk, sk) VALUES ('INVOICE#1', repeat('z', 1500))$$);
SELECT pg_temp.err($$INSERT INTO orders (pk, sk) VALUES ('INVOICE#1', 'BILL#' || repeat('z', 1500))$$);
SELECT count(*) FROM orders;

-- the write API mode keeps the limit too
CREATE TABLE apimode (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('apimode', mode => 'api', predicate => 'false');
SELECT pg_temp.err($$SELECT put_edge('apimode', 'USER#a', repeat('x', 1500)::adjkey)$$);
SELECT count(*) FROM apimode;

-- a table with no inverted index is not adjlist's: nothing checks plain SQL
CREATE TABLE legacy (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO legacy VALUES ('USER#a', repeat('x', 1500), NULL), ('USER#a', 'PROFILE', NULL);
SELECT count(*) FROM legacy;
-- creating an index checks every row, those it will not hold too, and
-- names the row
SELECT pg_temp.err($$SELECT create_inverted_index('legacy')$$);
SELECT pg_temp.err($$SELECT create_inverted_index('legacy', predicate => 'false')$$);
CALL create_inverted_index('legacy', predicate => 'false', concurrently => true);
SELECT indexrel, ready FROM adjlist_inverted_indexes WHERE baserel = 'legacy'::regclass;
SELECT drop_inverted_index('legacy_inverted');
-- import into a table with no index: the write API checks what it writes
SELECT pg_temp.err(format($$SELECT import_dynamodb('legacy', %L)$$,
	E'{"Item":{"pk":{"S":"USER#b"},"sk":{"S":"PROFILE"}}}\n{"Item":{"pk":{"S":"USER#b"},"sk":{"S":"' || repeat('x', 1025) || '"}}}'));
SELECT count(*) FROM legacy WHERE pk = 'USER#b';
DELETE FROM legacy WHERE octet_length(sk::text) > 1024;
SELECT create_inverted_index('legacy', predicate => $$sk ^@ 'FOLLOWS#'$$);
-- rows removed are not checked: a row from before the limit (written here
-- with the triggers off) can be deleted, though not updated
SET session_replication_role = replica;
INSERT INTO legacy VALUES ('USER#a', repeat('x', 1500), NULL);
RESET session_replication_role;
SELECT pg_temp.err($$UPDATE legacy SET data = '{}' WHERE pk = 'USER#a'$$);
DELETE FROM legacy WHERE pk = 'USER#a';
SELECT count(*) FROM legacy;

-- a partition attached to an indexed table brings rows: checked as by a build
CREATE TABLE pt (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk)) PARTITION BY LIST (pk);
SELECT create_inverted_index('pt', predicate => 'false');
CREATE TABLE pt_a (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO pt_a VALUES ('USER#a', repeat('x', 1500), NULL);
SELECT pg_temp.err($$ALTER TABLE pt ATTACH PARTITION pt_a FOR VALUES IN ('USER#a')$$);
SELECT count(*) FROM pt;

-- partition keys: 2048 bytes, the type's own limit; DynamoDB's wording
-- where adjlist sees the key's role (import, write shards)
SELECT pg_temp.err($$INSERT INTO fs VALUES (repeat('p', 2049), 'PROFILE', NULL)$$);
SELECT pg_temp.err(format($$SELECT import_dynamodb('fs', %L)$$,
	'{"Item":{"pk":{"S":"' || repeat('p', 2049) || '"},"sk":{"S":"PROFILE"}}}'));
INSERT INTO fs VALUES (repeat('p', 2048), 'PROFILE', NULL);
SELECT count(*) FROM fs WHERE sk = 'PROFILE';

-- ======================================================================
-- 2. import_dynamodb refuses what DynamoDB refuses, naming the line, and
--    keeps nothing of the call
-- ======================================================================
CREATE TABLE imp (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('imp', counters => 1);
CREATE FUNCTION pg_temp.imp(attr text) RETURNS text LANGUAGE sql AS $$
	SELECT pg_temp.err(format($q$SELECT import_dynamodb('imp', %L)$q$,
		E'{"Item":{"pk":{"S":"A"},"sk":{"S":"ok"}}}\n\n{"Item":{"pk":{"S":"A"},"sk":{"S":"B"},"x":' || attr || '}}'))
$$;
-- binary: base64, padded
SELECT pg_temp.imp('{"B":"not base64!"}');
SELECT pg_temp.imp('{"B":"aGVsbG8"}');
SELECT pg_temp.imp('{"BS":["aGVsbG8=","a b="]}');
-- sets: not empty, no member twice (numbers by value)
SELECT pg_temp.imp('{"SS":[]}');
SELECT pg_temp.imp('{"NS":[]}');
SELECT pg_temp.imp('{"BS":[]}');
SELECT pg_temp.imp('{"SS":["a","b","a"]}');
SELECT pg_temp.imp('{"NS":["1","2","1.0"]}');
SELECT pg_temp.imp('{"BS":["aGVsbG8=","aGVsbG8="]}');
-- numbers: the syntax, 38 significant digits, 1E-130 <= |x| < 1E+126
SELECT pg_temp.imp('{"N":"1.2.3"}');
SELECT pg_temp.imp('{"NS":["1","0x10"]}');
SELECT pg_temp.imp('{"N":"123456789012345678901234567890123456789"}');
SELECT pg_temp.imp('{"N":"1E+126"}');
SELECT pg_temp.imp('{"N":"-1e999999999999"}');
SELECT pg_temp.imp('{"N":"0.1E-130"}');
-- members next to "Item"
SELECT pg_temp.err($$SELECT import_dynamodb('imp', '{"Item":{"pk":{"S":"A"},"sk":{"S":"B"}},"Extra":{"S":"x"}}')$$);
-- nothing was kept: not the good first lines, not their index rows or counts
SELECT (SELECT count(*) FROM imp) AS items, (SELECT count(*) FROM imp_inverted) AS index_rows,
	   edge_count('imp_inverted', 'A', 'ok') AS counted;
-- what DynamoDB accepts goes in
SELECT import_dynamodb('imp', $$
{"Item":{"pk":{"S":"A"},"sk":{"S":"B"},"b":{"B":""},"bs":{"BS":["aGVsbG8=","aGk="]},"ss":{"SS":["a","b"]}}}
{"Item":{"pk":{"S":"A"},"sk":{"S":"C"},"big":{"N":"9.9999999999999999999999999999999999999E+125"},"small":{"N":"-1E-130"}}}
{"Item":{"pk":{"S":"A"},"sk":{"S":"D"},"ns":{"NS":["1","1.5","-0.25e1"]},"zero":{"N":"-0.000"},"wide":{"N":"12345678901234567890123456789012345678000"}}}
$$);
SELECT sk, data - 'big' - 'small' AS data, data->'big' = '9.9999999999999999999999999999999999999E+125' AS big,
	   data->'small' = '-1E-130' AS small FROM imp ORDER BY sk;

-- ======================================================================
-- 3. put_edge_if(..., expected => '{}') asks only that the item exists,
--    whatever its data
-- ======================================================================
CREATE TABLE cond (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('cond', include => '{data}');
INSERT INTO cond VALUES ('A', 'scalar', '5'), ('A', 'array', '[1, 2]'), ('A', 'string', '"s"'),
	('A', 'null', NULL), ('A', 'object', '{"v": 1}');
SELECT sk, put_edge_if('cond', 'A', sk::adjkey, '{"v": 2}', '{}') AS applied
FROM (VALUES ('scalar'), ('array'), ('string'), ('null'), ('object'), ('missing')) v(sk) ORDER BY 1;
SELECT sk, data FROM cond ORDER BY sk;
-- an attribute is still asked for: a scalar or an array has none
UPDATE cond SET data = '5' WHERE sk = 'scalar';
SELECT put_edge_if('cond', 'A', 'scalar', '{"v": 3}', '{"v": 2}') AS attribute_on_scalar;
SELECT delete_edge_if('cond', 'A', 'scalar', '{}') AS deleted_scalar,
	   delete_edge_if('cond', 'A', 'missing', '{}') AS deleted_missing;
SELECT count(*) AS drift FROM verify_inverted_index('cond_inverted');

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA dynamo_fidelity CASCADE;
RESET client_min_messages;
