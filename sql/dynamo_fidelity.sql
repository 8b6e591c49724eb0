--
-- DynamoDB fidelity (issue 15), where an adversarial tester found adjlist
-- more lenient than DynamoDB: the base table's key limits on rows no index
-- holds, import_dynamodb's input that DynamoDB rejects, and
-- put_edge_if(..., expected => '{}') on an item whose data is not an
-- object; then limits that counted rows naming no edge, start keys of
-- tables keyed by more than (pk, sk), the expiry column in import and
-- export, and arguments DynamoDB refuses.  Errors are shown with their
-- SQLSTATE and detail (pg_temp.err).
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
-- the same without a predicate: the backfill checks every row it reads and
-- names it as the one-transaction build does; a rebuild that would complete
-- the failed build is a build, and refuses the row the same way
CALL create_inverted_index('legacy', concurrently => true);
SELECT pg_temp.err($$SELECT rebuild_inverted_index('legacy_inverted')$$);
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

-- rows older than the limits, which an index holds: a row written with the
-- triggers off, then put in the index by rebuild_inverted_index (which
-- mirrors the table, as a replica applying both tables has it).  Removing
-- such a row checks nothing, by any writer and on any kind of index, nor
-- does an update that shortens its key; an update that keeps its key
-- fails.  verify_inverted_index reports the row (too_long) rather than
-- failing.  Rows: a long sort key (1), a long partition key, which is the
-- default index's sort key (2), an edge to it (3), another long sort key (4).
CREATE FUNCTION pg_temp.old_rows(tbl regclass) RETURNS void LANGUAGE plpgsql AS $f$
BEGIN
	PERFORM set_config('session_replication_role', 'replica', true);
	EXECUTE format($$INSERT INTO %s (pk, sk, data) VALUES ('USER#a', repeat('x', 1500), '{}'),
		(repeat('p', 1100), 'FOLLOWS#b', '{}'), ('USER#c', 'FOLLOWS#' || repeat('p', 1100), '{}'),
		('USER#d', repeat('y', 1500), '{}') ON CONFLICT DO NOTHING$$, tbl);
	PERFORM set_config('session_replication_role', 'origin', true);
	PERFORM rebuild_inverted_index(indexrel) FROM adjlist_inverted_indexes WHERE baserel = tbl;
END $f$;
CREATE FUNCTION pg_temp.verify(tbl regclass) RETURNS text LANGUAGE sql AS $$
	SELECT coalesce(string_agg(format('%s %s', v.problem, CASE WHEN v.problem = 'too_long'
		THEN v.expected::text || ' ' || v.actual::text ELSE left(v.key::text, 30) END), '; '
		ORDER BY v.problem, v.expected::text, v.actual::text), 'clean')
	FROM adjlist_inverted_indexes i, verify_inverted_index(i.indexrel) v WHERE i.baserel = tbl
$$;
CREATE FUNCTION pg_temp.old_rows_removed(tbl regclass) RETURNS TABLE (step text, result text)
LANGUAGE plpgsql AS $f$
BEGIN
	PERFORM pg_temp.old_rows(tbl);
	step := 'verify, old rows'; result := pg_temp.verify(tbl); RETURN NEXT;
	step := 'update keeping the key';
	result := pg_temp.err(format($$UPDATE %s SET data = '{"v": 1}' WHERE pk = 'USER#a'$$, tbl)); RETURN NEXT;
	step := 'update shortening sk';
	result := pg_temp.err(format($$UPDATE %s SET sk = 'SHORT' WHERE pk = 'USER#a'$$, tbl)); RETURN NEXT;
	step := 'update shortening pk';
	result := pg_temp.err(format($$UPDATE %s SET pk = 'USER#p' WHERE sk = 'FOLLOWS#b'$$, tbl)); RETURN NEXT;
	step := 'delete';
	result := pg_temp.err(format($$DELETE FROM %s WHERE pk IN ('USER#c', 'USER#d')$$, tbl)); RETURN NEXT;
	step := 'verify, shortened'; result := pg_temp.verify(tbl); RETURN NEXT;
	PERFORM pg_temp.old_rows(tbl);
	step := 'delete_edge';
	result := pg_temp.err(format($$SELECT delete_edge(%L, 'USER#a', repeat('x', 1500)::adjkey)$$, tbl)); RETURN NEXT;
	step := 'delete_edge_if';
	result := pg_temp.err(format($$SELECT delete_edge_if(%L, 'USER#d', repeat('y', 1500)::adjkey, '{}')$$, tbl)); RETURN NEXT;
	step := 'delete_node';
	result := pg_temp.err(format($$SELECT delete_node(%L, repeat('p', 1100)::adjkey, ARRAY['FOLLOWS#'])$$, tbl)); RETURN NEXT;
	step := 'verify, removed'; result := pg_temp.verify(tbl); RETURN NEXT;
	EXECUTE format($$SELECT string_agg(format('%%s %%s', left(pk::text, 9), left(sk::text, 9)), ', ' ORDER BY pk, sk)
		FROM %s$$, tbl) INTO result;
	step := 'rows left'; RETURN NEXT;
END $f$;
CREATE TABLE old_plain (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('old_plain');
SELECT * FROM pg_temp.old_rows_removed('old_plain');
CREATE TABLE old_proj (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('old_proj', include => '{data}');
SELECT * FROM pg_temp.old_rows_removed('old_proj');
CREATE TABLE old_shard (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('old_shard', write_shards => 4);
SELECT * FROM pg_temp.old_rows_removed('old_shard');
CREATE TABLE old_part (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('old_part', partitions => 2);
SELECT * FROM pg_temp.old_rows_removed('old_part');
-- a row the index does not hold (the triggers were off, no rebuild): the
-- same; and with a write-sharded index, a row whose shard key cannot be
-- (2047 bytes and its suffix) is one the index cannot hold
SET session_replication_role = replica;
INSERT INTO old_plain VALUES ('USER#z', repeat('x', 1500), NULL);
INSERT INTO old_shard VALUES ('USER#z', repeat('x', 2047), NULL);
RESET session_replication_role;
SELECT pg_temp.verify('old_plain') AS plain, pg_temp.verify('old_shard') AS shard;
SELECT pg_temp.err($$UPDATE old_plain SET sk = 'SHORT' WHERE pk = 'USER#z'$$) AS shorten,
	   pg_temp.err($$DELETE FROM old_shard WHERE pk = 'USER#z'$$) AS delete_sharded;
SELECT pg_temp.verify('old_plain') AS plain, pg_temp.verify('old_shard') AS shard;

-- import_dynamodb checks the limits of the table's indexes on each line
-- too, naming it: a 1025-byte partition key is the default index's sort
-- key; with a sparse index, only on a line the index would hold
CREATE TABLE imp_plain (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('imp_plain');
SELECT pg_temp.err(format($$SELECT import_dynamodb('imp_plain', %L)$$,
	E'{"Item":{"pk":{"S":"A"},"sk":{"S":"7"}}}\n{"Item":{"pk":{"S":"B"},"sk":{"S":"7"}}}\n'
	'{"Item":{"pk":{"S":"' || repeat('x', 1025) || E'"},"sk":{"S":"x"}}}\n{"Item":{"pk":{"S":"C"},"sk":{"S":"7"}}}'));
CREATE TABLE imp_sparse (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('imp_sparse', predicate => $$sk ^@ 'FOLLOWS#' AND data ? 'on'$$);
SELECT pg_temp.err(format($$SELECT import_dynamodb('imp_sparse', %L)$$,
	E'{"Item":{"pk":{"S":"A"},"sk":{"S":"FOLLOWS#B"},"on":{"N":"1"}}}\n'
	'{"Item":{"pk":{"S":"' || repeat('x', 1025) || E'"},"sk":{"S":"PROFILE"},"on":{"N":"1"}}}\n'
	'{"Item":{"pk":{"S":"' || repeat('y', 1025) || E'"},"sk":{"S":"FOLLOWS#B"}}}')) AS not_held;
SELECT pg_temp.err(format($$SELECT import_dynamodb('imp_sparse', %L)$$,
	E'{"Item":{"pk":{"S":"A"},"sk":{"S":"FOLLOWS#B"},"on":{"N":"1"}}}\n'
	'{"Item":{"pk":{"S":"' || repeat('x', 1025) || E'"},"sk":{"S":"FOLLOWS#B"},"on":{"N":"1"}}}')) AS held;
-- a write-sharded index keyed by the base table's partition key: its
-- suffix must fit too
CREATE TABLE imp_shard (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('imp_shard', partition_key => 'pk', sort_key => 'sk', write_shards => 4);
SELECT pg_temp.err(format($$SELECT import_dynamodb('imp_shard', %L)$$,
	E'{"Item":{"pk":{"S":"A"},"sk":{"S":"7"}}}\n{"Item":{"pk":{"S":"' || repeat('x', 2047) || E'"},"sk":{"S":"x"}}}'));
SELECT (SELECT count(*) FROM imp_plain) AS imp_plain, (SELECT count(*) FROM imp_sparse) AS imp_sparse,
	   (SELECT count(*) FROM imp_shard) AS imp_shard;

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

-- ======================================================================
-- 4. A limit counts edges.  An item whose sort key is the bare edge prefix
--    ('FOLLOWS#') names no neighbor, nor does one whose target would be
--    longer than any key (target_prefix 'USER#' + a 2046-byte rest): no
--    page returns them and no limit counts them, read directly (bare) or
--    through SQL (bare_ttl: an expiry column)
-- ======================================================================
CREATE TABLE bare (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO bare VALUES ('USER#a', 'FOLLOWS#', NULL), ('USER#a', 'FOLLOWS#USER#b', NULL),
	('USER#a', 'FOLLOWS#USER#c', NULL), ('N', 'F#', NULL), ('N', 'F#' || repeat('x', 2046), NULL),
	('N', 'F#y', NULL), ('N', 'F#z', NULL);
CREATE TABLE bare_ttl (pk adjkey, sk adjkey, data jsonb, expires bigint, PRIMARY KEY (pk, sk));
INSERT INTO bare_ttl SELECT *, NULL FROM bare;
SELECT set_ttl('bare_ttl', 'expires');
SELECT t,
	   ARRAY(SELECT neighbor FROM neighbors(t, 'USER#a', 'FOLLOWS#', lim => 1)) AS lim1,
	   ARRAY(SELECT neighbor FROM neighbors(t, 'USER#a', 'FOLLOWS#', lim => 2)) AS lim2,
	   ARRAY(SELECT neighbor FROM neighbors(t, 'USER#a', 'FOLLOWS#', lim => 1, backward => true)) AS back1,
	   ARRAY(SELECT neighbor FROM neighbors(t, 'USER#a', 'FOLLOWS#', lim => 3, backward => true)) AS back3,
	   (SELECT count(*) FROM (SELECT neighbor FROM neighbors(t, 'USER#a', 'FOLLOWS#', lim => 1)) n) AS nodes_lim1,
	   degree(t, 'USER#a', 'FOLLOWS#') AS degree,
	   has_edge(t, 'USER#a', 'USER#b', 'FOLLOWS#') AS has_b
FROM (VALUES ('bare'::regclass), ('bare_ttl')) v(t);
-- paged one edge at a time: every edge once, then an empty page
CREATE FUNCTION pg_temp.pages(t regclass, node adjkey, prefix text, target text, back boolean)
RETURNS text[] LANGUAGE plpgsql AS $$
DECLARE
	got text[] := '{}';
	k jsonb;
	r record;
BEGIN
	FOR i IN 1..10 LOOP
		SELECT * INTO r FROM neighbors(t, node, prefix, lim => 1, backward => back, target_prefix => target,
									   exclusive_start_key => k);
		IF NOT FOUND THEN
			RETURN got;
		END IF;
		got := got || r.neighbor::text;
		k := jsonb_build_object('pk', r.pk, 'sk', r.sk);
	END LOOP;
	RETURN got;
END $$;
SELECT t, pg_temp.pages(t, 'USER#a', 'FOLLOWS#', '', false) AS forward,
	   pg_temp.pages(t, 'USER#a', 'FOLLOWS#', '', true) AS backward,
	   pg_temp.pages(t, 'N', 'F#', 'USER#', false) AS long_forward,
	   pg_temp.pages(t, 'N', 'F#', 'USER#', true) AS long_backward,
	   degree(t, 'N', 'F#', 'out', 'USER#', false) AS long_degree,
	   (SELECT count(*) FROM traverse(t, 'N', 'F#', 1, target_prefix => 'USER#')) AS long_traverse
FROM (VALUES ('bare'::regclass), ('bare_ttl')) v(t);
-- query() and query_count() count items (DynamoDB's Query), the bare one too
SELECT query_count('bare', 'USER#a', 'begins_with', 'FOLLOWS#') AS items;

-- ======================================================================
-- 5. A key with more columns than (pk, sk): query() takes back the key it
--    returns (a number for an integer column) and pages through rows that
--    share (pk, sk); neighbors() and reverse_neighbors(), whose cursor is
--    {pk, sk}, refuse a start key there (0A000) rather than skip rows
-- ======================================================================
CREATE TABLE wide (pk adjkey, sk adjkey, v int, data jsonb, PRIMARY KEY (pk, sk, v));
INSERT INTO wide VALUES ('A', 'B', 1, NULL), ('A', 'B', 2, NULL), ('A', 'C', 1, NULL), ('D', 'B', 7, NULL);
SELECT create_inverted_index('wide');
CREATE FUNCTION pg_temp.query_pages(t regclass, part adjkey, back boolean) RETURNS jsonb[]
LANGUAGE plpgsql AS $$
DECLARE
	got jsonb[] := '{}';
	k jsonb;
	r record;
BEGIN
	FOR i IN 1..10 LOOP
		SELECT * INTO r FROM query(t, part, backward => back, lim => 1, exclusive_start_key => k);
		IF NOT FOUND THEN
			RETURN got;
		END IF;
		got := got || r.key;
		k := r.key;
	END LOOP;
	RETURN got;
END $$;
SELECT pg_temp.query_pages('wide', 'A', false) AS forward;
SELECT pg_temp.query_pages('wide', 'A', true) AS backward;
SELECT pg_temp.query_pages('wide_inverted', 'B', false) AS inverted;
SELECT c.*, (SELECT count FROM query_count_page('wide', 'A', lim => 1, exclusive_start_key => c.last_evaluated_key))
	AS next_page
FROM query_count_page('wide', 'A', lim => 1) c;
SELECT pg_temp.err($$SELECT * FROM query('wide', 'A', exclusive_start_key => '{"pk": "A", "sk": "B", "v": "x"}')$$) AS not_an_int;
SELECT pg_temp.err($$SELECT * FROM query('wide', 'A', exclusive_start_key => '{"pk": "A", "sk": "B", "v": null}')$$) AS null_v;
SELECT pg_temp.err($$SELECT * FROM query('wide', 'A', exclusive_start_key => '{"pk": "A", "sk": "B"}')$$) AS no_v;
SELECT count(*) AS out_edges FROM neighbors('wide', 'A', '', sk_is_target => true);
SELECT pg_temp.err($$SELECT * FROM neighbors('wide', 'A', '', sk_is_target => true, lim => 1,
	exclusive_start_key => '{"pk": "A", "sk": "B"}')$$) AS neighbors_page;
SELECT pg_temp.err($$SELECT * FROM reverse_neighbors('wide', 'B', '', sk_is_target => true, lim => 1,
	after => 'A')$$) AS reverse_page;

-- key columns after (pk, sk) whose type's btree operator class is declared
-- on another type (varchar: text; a domain: its base type; an enum, an
-- array, a composite: anyenum, anyarray, record), and char(n), whose start
-- key value must keep its length: query() orders a partition by its
-- primary key index's operator classes and takes back the key it returns,
-- page by page, forward and backward, on the table and on its index
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE TYPE color AS ENUM ('red', 'green', 'blue');
CREATE TYPE pair AS (a int, b text);
CREATE TABLE k_varchar (pk adjkey, sk adjkey, v varchar(10), data jsonb, PRIMARY KEY (pk, sk, v));
CREATE TABLE k_domain (pk adjkey, sk adjkey, v posint, data jsonb, PRIMARY KEY (pk, sk, v));
CREATE TABLE k_enum (pk adjkey, sk adjkey, v color, data jsonb, PRIMARY KEY (pk, sk, v));
CREATE TABLE k_array (pk adjkey, sk adjkey, v int[], data jsonb, PRIMARY KEY (pk, sk, v));
CREATE TABLE k_composite (pk adjkey, sk adjkey, v pair, data jsonb, PRIMARY KEY (pk, sk, v));
CREATE TABLE k_char (pk adjkey, sk adjkey, v char(3), data jsonb, PRIMARY KEY (pk, sk, v));
CREATE TABLE k_two (pk adjkey, sk adjkey, c color, v varchar, data jsonb, PRIMARY KEY (pk, sk, c, v));
INSERT INTO k_varchar SELECT 'A', 'B#' || s, v, '{}' FROM unnest('{1,2}'::int[]) s, unnest('{x,y,z}'::text[]) v;
INSERT INTO k_domain SELECT 'A', 'B#' || s, v, '{}' FROM unnest('{1,2}'::int[]) s, unnest('{3,10,200}'::int[]) v;
INSERT INTO k_enum SELECT 'A', 'B#' || s, v, '{}' FROM unnest('{1,2}'::int[]) s, unnest(enum_range(NULL::color)) v;
INSERT INTO k_array SELECT 'A', 'B#' || s, v::int[], '{}' FROM unnest('{1,2}'::int[]) s, unnest('{"{1,2}","{1,10}","{3}"}'::text[]) v;
INSERT INTO k_composite SELECT 'A', 'B#' || s, v::pair, '{}' FROM unnest('{1,2}'::int[]) s, unnest('{"(1,b)","(1,a b)","(2,a)"}'::text[]) v;
INSERT INTO k_char SELECT 'A', 'B#' || s, v, '{}' FROM unnest('{1,2}'::int[]) s, unnest('{a,ab,b}'::text[]) v;
INSERT INTO k_two SELECT 'A', 'B#' || s, c, v, '{}' FROM unnest('{1,2}'::int[]) s, unnest('{blue,red}'::color[]) c,
	unnest('{x,y}'::text[]) v;
CREATE TABLE k_sharded (LIKE k_two INCLUDING INDEXES);
INSERT INTO k_sharded SELECT * FROM k_two;
SELECT t, create_inverted_index(t, write_shards => CASE WHEN t = 'k_sharded'::regclass THEN 3 ELSE 0 END)
	IS NOT NULL AS indexed
FROM unnest('{k_varchar,k_domain,k_enum,k_array,k_composite,k_char,k_two,k_sharded}'::regclass[]) t;
-- the pages of a query, concatenated; query_count_page counts each one
-- and ends it at the key query() gave last
CREATE FUNCTION pg_temp.pages(t regclass, part adjkey, back boolean, size bigint) RETURNS jsonb[]
LANGUAGE plpgsql AS $$
DECLARE
	got jsonb[] := '{}';
	page jsonb[];
	k jsonb;
	n bigint;
	lek jsonb;
BEGIN
	FOR i IN 1..100 LOOP
		page := ARRAY(SELECT q.key FROM query(t, part, backward => back, lim => size, exclusive_start_key => k) q);
		SELECT c.count, c.last_evaluated_key INTO n, lek
		FROM query_count_page(t, part, backward => back, lim => size, exclusive_start_key => k) c;
		-- the key to go on from, when the limit ended the page
		k := CASE WHEN n = size THEN page[n] END;
		IF n <> cardinality(page) OR lek IS DISTINCT FROM k THEN
			RAISE EXCEPTION 'query_count_page gives % and %, query() %', n, lek, page;
		END IF;
		got := got || page;
		IF k IS NULL THEN
			RETURN got;
		END IF;
	END LOOP;
	RAISE EXCEPTION 'more than 100 pages';
END $$;
-- the order: the type's (an enum's declared order, numbers as numbers)
SELECT t, (SELECT string_agg(q.sort_key || ' ' || (q.key ->> 'v'), ', ') FROM query(t, 'A') q) AS forward
FROM unnest('{k_varchar,k_domain,k_enum,k_array,k_composite,k_char}'::regclass[]) t;
SELECT string_agg(concat_ws(' ', q.sort_key, q.key ->> 'c', q.key ->> 'v'), ', ') AS two_columns_backward
FROM query('k_two', 'A', backward => true) q;
-- (pages of 1, 2 and 4 items, forward and backward; k_sharded's index has
-- three write shards)
SELECT t, p, bool_and(w = pg_temp.pages(t, p, back, size)) AS pages_are_whole, min(cardinality(w)) AS n,
	   min(query_count(t, p)) AS counted
FROM (VALUES ('A'::adjkey, ''), ('B#2', '_inverted')) tp(p, suffix),
	 unnest('{k_varchar,k_domain,k_enum,k_array,k_composite,k_char,k_two,k_sharded}'::text[]) b(base),
	 LATERAL (SELECT (base || suffix)::regclass) r(t),
	 (VALUES (false), (true)) d(back), (VALUES (1::bigint), (2), (4)) s(size),
	 LATERAL (SELECT ARRAY(SELECT q.key FROM query(t, p, backward => back) q)) a(w)
GROUP BY t, p
ORDER BY t::text COLLATE "C";
-- a start key written by hand, as query() gives it
SELECT key FROM query('k_array', 'A', 'begins_with', 'B#1', exclusive_start_key => '{"pk": "A", "sk": "B#1", "v": [1, 2]}');
SELECT key FROM query('k_composite', 'A', 'begins_with', 'B#1', backward => true,
	exclusive_start_key => '{"pk": "A", "sk": "B#1", "v": {"a": 2, "b": "a"}}');
SELECT key FROM query('k_char', 'A', '=', 'B#1', exclusive_start_key => '{"pk": "A", "sk": "B#1", "v": "ab "}');
SELECT key FROM query('k_enum', 'A', '=', 'B#2', lim => 1, exclusive_start_key => '{"pk": "A", "sk": "B#2", "v": "red"}');
SELECT * FROM query_count_page('k_varchar_inverted', 'B#1', lim => 2);
-- a value the column's type does not read is its error, as the start key's
SELECT split_part(pg_temp.err(format($$SELECT * FROM query(%L, 'A', exclusive_start_key => %L)$$, t, k)), E'\n', 1)
	AS bad_value
FROM (VALUES ('k_domain', '{"pk": "A", "sk": "B#1", "v": 0}'), ('k_enum', '{"pk": "A", "sk": "B#1", "v": "pink"}'),
			 ('k_array', '{"pk": "A", "sk": "B#1", "v": {"a": 1}}'),
			 ('k_array', '{"pk": "A", "sk": "B#1", "v": ["x"]}'),
			 ('k_composite', '{"pk": "A", "sk": "B#1", "v": {"a": "x"}}')) v(t, k);
-- the primary key index is read in its order (no sort); the varchar key is
-- compared as text, its operators' type
SET enable_seqscan = off;
-- (an InitPlan's value is $0 up to PostgreSQL 16, (InitPlan 1).col1 from 17)
SELECT regexp_replace(regexp_replace(e, ' \(returns \$0\)', ''), '\(InitPlan 1\)\.col1', '$0', 'g') AS plan
FROM explain_query('k_varchar', 'A', lim => 2, exclusive_start_key => '{"pk": "A", "sk": "B#1", "v": "y"}') e;
SELECT * FROM explain_query('k_enum_inverted', 'B#1', backward => true, lim => 2);
RESET enable_seqscan;

-- the operator class of the primary key, not the type's default: a
-- default class of color added after k_enum's key was made (descending)
-- does not change k_enum's order; a table keyed after it is in its order
CREATE FUNCTION color_desc_cmp(color, color) RETURNS int LANGUAGE sql IMMUTABLE STRICT
	AS 'SELECT pg_catalog.enum_cmp($2, $1)';
CREATE FUNCTION color_desc_lt(color, color) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1 > $2';
CREATE FUNCTION color_desc_le(color, color) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1 >= $2';
CREATE FUNCTION color_desc_eq(color, color) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1 = $2';
CREATE FUNCTION color_desc_ge(color, color) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1 <= $2';
CREATE FUNCTION color_desc_gt(color, color) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS 'SELECT $1 < $2';
CREATE OPERATOR <<< (LEFTARG = color, RIGHTARG = color, FUNCTION = color_desc_lt);
CREATE OPERATOR <<= (LEFTARG = color, RIGHTARG = color, FUNCTION = color_desc_le);
CREATE OPERATOR === (LEFTARG = color, RIGHTARG = color, FUNCTION = color_desc_eq);
CREATE OPERATOR >>= (LEFTARG = color, RIGHTARG = color, FUNCTION = color_desc_ge);
CREATE OPERATOR >>> (LEFTARG = color, RIGHTARG = color, FUNCTION = color_desc_gt);
CREATE OPERATOR CLASS color_desc_ops DEFAULT FOR TYPE color USING btree AS
	OPERATOR 1 <<<, OPERATOR 2 <<=, OPERATOR 3 ===, OPERATOR 4 >>=, OPERATOR 5 >>>,
	FUNCTION 1 color_desc_cmp(color, color);
CREATE TABLE k_desc (pk adjkey, sk adjkey, v color, data jsonb, PRIMARY KEY (pk, sk, v));
INSERT INTO k_desc SELECT * FROM k_enum;
SELECT t, (SELECT string_agg(q.sort_key || ' ' || (q.key ->> 'v'), ', ') FROM query(t, 'A') q) AS forward,
	   ARRAY(SELECT q.key FROM query(t, 'A') q) = pg_temp.pages(t, 'A', false, 2) AS pages_are_whole,
	   ARRAY(SELECT q.key FROM query(t, 'A', backward => true) q) = pg_temp.pages(t, 'A', true, 2) AS backward_too
FROM unnest('{k_enum,k_desc}'::regclass[]) t;
SELECT key FROM query('k_desc', 'A', '=', 'B#1', exclusive_start_key => '{"pk": "A", "sk": "B#1", "v": "blue"}');
SET enable_seqscan = off;
SELECT regexp_replace(regexp_replace(e, ' \(returns \$0\)', ''), '\(InitPlan 1\)\.col1', '$0', 'g') AS plan
FROM explain_query('k_desc', 'A', lim => 2, exclusive_start_key => '{"pk": "A", "sk": "B#1", "v": "blue"}') e;
RESET enable_seqscan;
-- (a primary key cannot name another class than the default: PostgreSQL
-- refuses one over an index of text_pattern_ops)
CREATE TABLE k_pattern (pk adjkey, sk adjkey, v text, data jsonb);
CREATE UNIQUE INDEX k_pattern_key ON k_pattern (pk, sk, v text_pattern_ops);
SELECT split_part(pg_temp.err('ALTER TABLE k_pattern ADD PRIMARY KEY USING INDEX k_pattern_key'), E'\n', 1) AS pattern_ops;
DROP TABLE k_desc, k_pattern;
DROP OPERATOR CLASS color_desc_ops USING btree;
DROP OPERATOR FAMILY color_desc_ops USING btree;

-- ======================================================================
-- 6. The expiry column (set_ttl) is the TTL attribute: import writes a
--    number (N, epoch seconds) into it and not into the data, export
--    writes it back; another type is an ordinary attribute (DynamoDB's TTL
--    ignores it), kept in the data
-- ======================================================================
CREATE TABLE sess (pk adjkey, sk adjkey, data jsonb, expires bigint, PRIMARY KEY (pk, sk));
CREATE TABLE sess_tz (pk adjkey, sk adjkey, data jsonb, expires timestamptz, PRIMARY KEY (pk, sk));
SELECT set_ttl(t, 'expires') FROM (VALUES ('sess'::regclass), ('sess_tz')) v(t);
SELECT create_inverted_index('sess_tz', include => '{data}');
SELECT t, import_dynamodb(t, $$
{"Item":{"pk":{"S":"U#a"},"sk":{"S":"SESSION#1"},"expires":{"N":"1000"}}}
{"Item":{"pk":{"S":"U#a"},"sk":{"S":"SESSION#2"},"expires":{"N":"4102444800"},"device":{"S":"tv"}}}
{"Item":{"pk":{"S":"U#a"},"sk":{"S":"SESSION#3"},"expires":{"S":"never"}}}
{"Item":{"pk":{"S":"U#a"},"sk":{"S":"SESSION#4"}}}
$$) FROM (VALUES ('sess'::regclass), ('sess_tz')) v(t);
SELECT sk, data, expires FROM sess ORDER BY sk;
SELECT sk, data, extract(epoch FROM expires) AS expires FROM sess_tz ORDER BY sk;
SELECT sk, pk, extract(epoch FROM expires) AS expires FROM sess_tz_inverted ORDER BY sk;
SELECT t, (SELECT array_agg(sort_key::text) FROM query(t, 'U#a')) AS live,
	   sweep_expired(t) AS swept
FROM (VALUES ('sess'::regclass), ('sess_tz')) v(t);
SELECT * FROM export_dynamodb('sess');
SELECT (SELECT array_agg(x) FROM export_dynamodb('sess') x) = (SELECT array_agg(x) FROM export_dynamodb('sess_tz') x)
	AS same_export;
-- a put of the item again replaces its expiry; without the attribute it has none
SELECT import_dynamodb('sess_tz', '{"Item":{"pk":{"S":"U#a"},"sk":{"S":"SESSION#2"},"expires":{"N":"4102444801.5"}}}'),
	   import_dynamodb('sess_tz', '{"Item":{"pk":{"S":"U#a"},"sk":{"S":"SESSION#3"},"expires":{"N":"4102444802"}}}'),
	   import_dynamodb('sess', '{"Item":{"pk":{"S":"U#a"},"sk":{"S":"SESSION#2"}}}');
SELECT * FROM export_dynamodb('sess_tz');
SELECT * FROM export_dynamodb('sess');
SELECT count(*) AS drift FROM verify_inverted_index('sess_tz_inverted');
-- an integer column takes no fraction; data naming the column does not export
SELECT pg_temp.err($$SELECT import_dynamodb('sess', '{"Item":{"pk":{"S":"U#a"},"sk":{"S":"X"},"expires":{"N":"1.5"}}}')$$)
	AS fraction;
UPDATE sess_tz SET data = '{"expires": 5}' WHERE sk = 'SESSION#2';
SELECT pg_temp.err($$SELECT * FROM export_dynamodb('sess_tz')$$) AS data_names_expiry;

-- ======================================================================
-- 7. Arguments DynamoDB refuses: a query without its partition value, a
--    sort value without a condition or a second one where only between
--    takes it, and numbers of DynamoDB JSON that are JSON numbers instead
--    of strings (keys over their role's limit: section 8)
-- ======================================================================
CREATE TABLE val (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO val VALUES ('A', 'S#1', NULL), ('A', 'S#2', NULL), ('A', 'T#1', NULL);
SELECT pg_temp.err($$SELECT * FROM query('val', NULL)$$) AS query_null,
	   pg_temp.err($$SELECT query_count('val', NULL)$$) AS count_null,
	   pg_temp.err($$SELECT * FROM query_count_page('val', NULL)$$) AS page_null,
	   pg_temp.err($$SELECT * FROM explain_query('val', NULL)$$) AS explain_null;
SELECT pg_temp.err($$SELECT * FROM query('val', 'A', NULL, 'S#2')$$) AS value_without_op,
	   pg_temp.err($$SELECT * FROM query('val', 'A', NULL, NULL, 'S#2')$$) AS value2_without_op,
	   pg_temp.err($$SELECT * FROM query('val', 'A', '=', 'S#1', 'S#2')$$) AS eq_two_values,
	   pg_temp.err($$SELECT query_count('val', 'A', 'begins_with', 'S#', 'T#')$$) AS begins_two_values;
SELECT count(*) AS between_two_values FROM query('val', 'A', 'between', 'S#1', 'S#2');
SELECT pg_temp.err($$SELECT import_dynamodb('val', '{"Item":{"pk":{"S":"A"},"sk":{"S":"B"},"n":{"N":1}}}')$$) AS n_number,
	   pg_temp.err($$SELECT import_dynamodb('val', '{"Item":{"pk":{"S":"A"},"sk":{"S":"B"},"ns":{"NS":[2]}}}')$$) AS ns_number,
	   pg_temp.err($$SELECT import_dynamodb('val', '{"Item":{"pk":{"S":"A"},"sk":{"S":"B"},"n":{"N":true}}}')$$) AS n_bool;

-- ======================================================================
-- 8. Reads by key check DynamoDB's key limits where adjlist keeps them (a
--    table with an inverted index, and the index's table): a sort-key
--    condition's value, a between bound, a begins_with prefix and a start
--    key's sort key over 1024 bytes are refused by query(), query_count(),
--    query_count_page() and explain_query() as by batch_get(), with the
--    error a write of the key gets.  On a table with no inverted index,
--    which plain SQL fills unchecked, every read takes any key the table
--    can hold, batch_get() as query().
-- ======================================================================
CREATE TABLE lim (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('lim');
INSERT INTO lim VALUES ('P', 'A', NULL), ('P', repeat('x', 1024), NULL);
-- (the table, the partition, the value, and the key columns' names)
CREATE FUNCTION pg_temp.reads(regclass, text, text, text DEFAULT 'pk', text DEFAULT 'sk')
RETURNS TABLE (call text, result text)
LANGUAGE sql AS $$
	SELECT c, pg_temp.err(format(s, $1, $2, $3, $4, $5)) FROM (VALUES
		('query =', $q$SELECT count(*) FROM query(%L, %L, '=', %L)$q$),
		('query <', $q$SELECT count(*) FROM query(%L, %L, '<', %L)$q$),
		('query <=', $q$SELECT count(*) FROM query(%L, %L, '<=', %L)$q$),
		('query >', $q$SELECT count(*) FROM query(%L, %L, '>', %L)$q$),
		('query >=', $q$SELECT count(*) FROM query(%L, %L, '>=', %L)$q$),
		('between, high', $q$SELECT count(*) FROM query(%L, %L, 'between', 'A', %L)$q$),
		('begins_with', $q$SELECT count(*) FROM query(%L, %L, 'begins_with', %L)$q$),
		('query_count', $q$SELECT query_count(%L, %L, '>=', %L)$q$),
		('query_count_page', $q$SELECT count(*) FROM query_count_page(%L, %L, '<=', %L)$q$),
		('explain_query', $q$SELECT count(*) FROM explain_query(%L, %L, '=', %L)$q$),
		('start key', $q$SELECT count(*) FROM query(%1$L, %2$L, exclusive_start_key => jsonb_build_object(%4$L, %2$L, %5$L, %3$L))$q$),
		('count page start key', $q$SELECT count(*) FROM query_count_page(%1$L, %2$L, lim => 1, exclusive_start_key => jsonb_build_object(%4$L, %2$L, %5$L, %3$L))$q$)
	) calls(c, s)
$$;
-- 1025 bytes: every read refuses it, as batch_get does
SELECT call, split_part(result, E'\n  context', 1) AS result FROM pg_temp.reads('lim', 'P', repeat('x', 1025));
SELECT pg_temp.err($$SELECT * FROM batch_get('lim', jsonb_build_array(jsonb_build_object('pk', 'P', 'sk', repeat('x', 1025))))$$)
	AS batch_get;
-- the between bound that is too long may be the low one; a prefix counts its bytes (é is two)
SELECT pg_temp.err($$SELECT count(*) FROM query('lim', 'P', 'between', repeat('x', 1025), repeat('y', 1025))$$) AS low_bound,
	   pg_temp.err($$SELECT count(*) FROM query('lim', 'P', 'begins_with', repeat('é', 513))$$) AS prefix_bytes;
-- 1024 bytes is the limit itself: every read takes it
SELECT call, result FROM pg_temp.reads('lim', 'P', repeat('x', 1024));
SELECT count(*) AS batch_get FROM batch_get('lim', jsonb_build_array(jsonb_build_object('pk', 'P', 'sk', repeat('x', 1024))));
-- the index's table: its sort key is the base table's partition key
INSERT INTO lim VALUES (repeat('p', 1024), 'B', NULL);
SELECT call, split_part(result, E'\n  context', 1) AS result FROM pg_temp.reads('lim_inverted', 'B', repeat('p', 1025), 'sk', 'pk')
WHERE call IN ('query =', 'begins_with', 'start key');
SELECT call, result FROM pg_temp.reads('lim_inverted', 'B', repeat('p', 1024), 'sk', 'pk')
WHERE call IN ('query =', 'begins_with', 'start key');
-- a table with no inverted index holds what plain SQL wrote: batch_get and
-- query read it alike, and a page ends and goes on at such a row
CREATE TABLE nolim (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO nolim VALUES ('A', repeat('s', 1500), NULL), ('A', repeat('t', 1500), NULL);
SELECT call, result FROM pg_temp.reads('nolim', 'A', repeat('s', 1500));
SELECT count(*) AS batch_get FROM batch_get('nolim', jsonb_build_array(jsonb_build_object('pk', 'A', 'sk', repeat('s', 1500))));
SELECT c.count, octet_length(c.last_evaluated_key->>'sk') AS lek_bytes,
	   (SELECT count FROM query_count_page('nolim', 'A', lim => 1, exclusive_start_key => c.last_evaluated_key)) AS next_page
FROM query_count_page('nolim', 'A', lim => 1) c;
-- what adjlist writes into it is still checked; once it has an index its reads are too
SELECT pg_temp.err(format($$SELECT import_dynamodb('nolim', %L)$$,
	'{"Item":{"pk":{"S":"A"},"sk":{"S":"' || repeat('u', 1500) || '"}}}')) AS import;
DELETE FROM nolim;
SELECT create_inverted_index('nolim');
SELECT pg_temp.err($$SELECT count(*) FROM query('nolim', 'A', '=', repeat('s', 1500))$$) AS after_index,
	   pg_temp.err($$SELECT * FROM batch_get('nolim', jsonb_build_array(jsonb_build_object('pk', 'A', 'sk', repeat('s', 1500))))$$)
	AS batch_get_after_index;
SELECT drop_inverted_index('nolim_inverted');
SELECT count(*) AS after_drop FROM query('nolim', 'A', '=', repeat('s', 1500));

-- ======================================================================
-- 9. A TTL number into a time column (timestamptz, timestamp, date) is
--    converted exactly (numeric arithmetic to the microsecond, not
--    float8), so every instant timestamptz holds exports back as the same
--    number; a number DynamoDB takes that the type cannot hold is refused,
--    naming the line, with a numeric column as the way out
-- ======================================================================
CREATE TABLE ttlx (pk adjkey, sk adjkey, data jsonb, exp timestamptz, PRIMARY KEY (pk, sk));
SELECT set_ttl('ttlx', 'exp');
SELECT create_inverted_index('ttlx');
SELECT import_dynamodb('ttlx', $$
{"Item":{"pk":{"S":"U"},"sk":{"S":"1-year-9999"},"exp":{"N":"253402300799.999999"}}}
{"Item":{"pk":{"S":"U"},"sk":{"S":"2-last"},"exp":{"N":"9224318015999.999999"}}}
{"Item":{"pk":{"S":"U"},"sk":{"S":"3-micro"},"exp":{"N":"4102444800.000001"}}}
{"Item":{"pk":{"S":"U"},"sk":{"S":"4-first"},"exp":{"N":"-210866803200"}}}
{"Item":{"pk":{"S":"U"},"sk":{"S":"5-before-1970"},"exp":{"N":"-1.5"}}}
{"Item":{"pk":{"S":"U"},"sk":{"S":"6-rounded"},"exp":{"N":"4102444800.0000005"}}}
{"Item":{"pk":{"S":"U"},"sk":{"S":"7-exponent"},"exp":{"N":"4.1024448E+9"}}}
$$);
SET timezone = 'UTC';
SELECT sk, exp FROM ttlx ORDER BY sk;
RESET timezone;
SELECT * FROM export_dynamodb('ttlx');
-- out of timestamptz's range, either end: refused, naming the line; nothing of the call kept
SELECT pg_temp.err($$SELECT import_dynamodb('ttlx', E'{"Item":{"pk":{"S":"U"},"sk":{"S":"8"}}}\n{"Item":{"pk":{"S":"U"},"sk":{"S":"9"},"exp":{"N":"1E+20"}}}')$$) AS far_future;
SELECT pg_temp.err($$SELECT import_dynamodb('ttlx', '{"Item":{"pk":{"S":"U"},"sk":{"S":"9"},"exp":{"N":"9224318016000"}}}')$$) AS past_the_end,
	   pg_temp.err($$SELECT import_dynamodb('ttlx', '{"Item":{"pk":{"S":"U"},"sk":{"S":"9"},"exp":{"N":"-210866803200.000001"}}}')$$) AS before_the_start;
SELECT count(*) AS items FROM ttlx;
-- a timestamp column: the session's local time, and the same limits (in
-- Tokyo the last UTC instant is past timestamp's end); a date: the day
CREATE TABLE ttlts (pk adjkey, sk adjkey, exp timestamp, PRIMARY KEY (pk, sk));
CREATE TABLE ttld (pk adjkey, sk adjkey, exp date, PRIMARY KEY (pk, sk));
SELECT set_ttl('ttlts', 'exp'), set_ttl('ttld', 'exp');
SET timezone = 'Asia/Tokyo';
SELECT import_dynamodb(t, '{"Item":{"pk":{"S":"U"},"sk":{"S":"1"},"exp":{"N":"253402300799.999999"}}}')
FROM (VALUES ('ttlts'::regclass), ('ttld')) v(t);
SELECT pg_temp.err($$SELECT import_dynamodb('ttlts', '{"Item":{"pk":{"S":"U"},"sk":{"S":"2"},"exp":{"N":"9224318015999.999999"}}}')$$) AS timestamp_end,
	   pg_temp.err($$SELECT import_dynamodb('ttld', '{"Item":{"pk":{"S":"U"},"sk":{"S":"2"},"exp":{"N":"1E+20"}}}')$$) AS date_far;
SELECT (SELECT exp::text FROM ttlts) AS ts, (SELECT exp::text FROM ttld) AS day;
SELECT * FROM export_dynamodb('ttlts');
RESET timezone;
-- a numeric column keeps the number DynamoDB took, whatever it is
CREATE TABLE ttln (pk adjkey, sk adjkey, exp numeric, PRIMARY KEY (pk, sk));
SELECT set_ttl('ttln', 'exp');
SELECT import_dynamodb('ttln', '{"Item":{"pk":{"S":"U"},"sk":{"S":"1"},"exp":{"N":"1E+20"}}}');
SELECT * FROM export_dynamodb('ttln');

-- user code that query() runs before its statement (here a domain's CHECK
-- of a start key's value) cannot ALTER or DROP the table under the call:
-- PostgreSQL refuses, as for a table an active query uses, and the call
-- never answers from a table that changed under it
CREATE TABLE ddl_flag (what text);
CREATE FUNCTION ddl_check(int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE w text;
BEGIN
	IF $1 = 7 THEN
		DELETE FROM ddl_flag RETURNING what INTO w;
		IF w IS NOT NULL THEN EXECUTE w; END IF;
	END IF;
	RETURN true;
END $$;
CREATE DOMAIN ddl_int AS int CHECK (ddl_check(VALUE));
CREATE TABLE k_ddl (pk adjkey, sk adjkey, v ddl_int, w text DEFAULT 'x', PRIMARY KEY (pk, sk, v));
INSERT INTO k_ddl VALUES ('A', 'B', 1), ('A', 'B', 7), ('A', 'C', 3);
CREATE FUNCTION pg_temp.ddl_in_call(stmt text, call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
	INSERT INTO ddl_flag VALUES (stmt);
	r := pg_temp.err(call);
	DELETE FROM ddl_flag;		-- (the error took the check's DELETE back)
	RETURN r;
END $$;
SELECT s AS ddl, c AS call, pg_temp.ddl_in_call(s, c) AS result
FROM unnest(ARRAY['ALTER TABLE k_ddl ALTER COLUMN w TYPE varchar(5)', 'DROP TABLE k_ddl']) s,
	 unnest(ARRAY[$$SELECT * FROM query('k_ddl', 'A', exclusive_start_key => '{"pk":"A","sk":"B","v":7}')$$,
				  $$SELECT query_count('k_ddl', 'A', exclusive_start_key => '{"pk":"A","sk":"B","v":7}')$$,
				  $$SELECT * FROM query_count_page('k_ddl', 'A', lim => 5, exclusive_start_key => '{"pk":"A","sk":"B","v":7}')$$]) c
ORDER BY 1, 2;
SELECT sort_key, key FROM query('k_ddl', 'A', exclusive_start_key => '{"pk":"A","sk":"B","v":7}');
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'k_ddl'::regclass AND attname = 'w';

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA dynamo_fidelity CASCADE;
RESET client_min_messages;
