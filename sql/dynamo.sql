--
-- What a DynamoDB user expects besides Query: conditional writes
-- (ConditionExpression), batch get (BatchGetItem), counted pages (Select
-- COUNT with Limit and LastEvaluatedKey), and import and export in DynamoDB
-- JSON.  Errors are shown with their SQLSTATE (pg_temp.err).
--
\set SHOW_CONTEXT never
-- a schema of its own: the suites share one database
CREATE SCHEMA dynamo_test;
SET search_path = dynamo_test, public;
CREATE FUNCTION pg_temp.err(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
BEGIN
	EXECUTE sql;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
	RETURN st || ': ' || msg;
END $$;
CREATE FUNCTION pg_temp.drift(idx regclass) RETURNS bigint LANGUAGE sql AS
	$$ SELECT count(*) FROM verify_inverted_index(idx) $$;

CREATE TABLE social (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('social', include => '{data}', counters => 1);

-- ======================================================================
-- 1. Conditional writes: true when the write applied, false when its
--    condition did not hold (DynamoDB raises ConditionalCheckFailed there)
-- ======================================================================

-- put_edge_if_absent is attribute_not_exists: the first put wins, a second
-- one changes nothing
SELECT put_edge_if_absent('social', 'USER#alice', 'FOLLOWS#USER#bob', '{"version": 1}') AS first,
	   put_edge_if_absent('social', 'USER#alice', 'FOLLOWS#USER#bob', '{"version": 9}') AS second;
SELECT put_edge_if_absent('social', 'USER#carol', 'FOLLOWS#USER#bob') AS without_data;
SELECT * FROM social ORDER BY pk, sk;
SELECT * FROM social_inverted ORDER BY sk, pk;
SELECT edge_count('social_inverted', 'USER#bob', 'FOLLOWS', 'in') AS followers;

-- put_edge_if is optimistic locking: replace the item only if its data
-- contains the expected value (here the version read before)
SELECT put_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '{"version": 2, "tag": "x"}',
				   '{"version": 1}') AS v1_to_v2;
SELECT put_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '{"version": 2, "tag": "lost"}',
				   '{"version": 1}') AS stale_v1;
SELECT data FROM social WHERE pk = 'USER#alice';
SELECT data FROM social_inverted WHERE pk = 'USER#alice';
-- containment: every expected member, nested ones too
SELECT put_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '{"version": 3, "m": {"a": 1, "b": 2}}',
				   '{"version": 2, "tag": "x"}') AS two_members;
SELECT put_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '{"version": 4}',
				   '{"m": {"b": 2}}') AS nested;
-- '{}' only asks that the item exists (an item without data has no attributes)
SELECT put_edge_if('social', 'USER#carol', 'FOLLOWS#USER#bob', '{"version": 1}', '{}') AS exists_no_data,
	   put_edge_if('social', 'USER#nobody', 'FOLLOWS#USER#bob', '{"version": 1}', '{}') AS missing;
SELECT put_edge_if('social', 'USER#carol', 'FOLLOWS#USER#bob', NULL, '{"version": 1}') AS to_no_data;
SELECT * FROM social ORDER BY pk, sk;
SELECT count(*) AS items FROM social WHERE pk = 'USER#nobody';

-- delete_edge_if
SELECT put_edge('social', 'USER#dave', 'FOLLOWS#USER#bob', '{"version": 5}');
SELECT delete_edge_if('social', 'USER#dave', 'FOLLOWS#USER#bob', '{"version": 4}') AS wrong_version,
	   delete_edge_if('social', 'USER#dave', 'FOLLOWS#USER#bob', '{"version": 5}') AS right_version,
	   delete_edge_if('social', 'USER#dave', 'FOLLOWS#USER#bob', '{}') AS gone;
SELECT edge_count('social_inverted', 'USER#bob', 'FOLLOWS', 'in') AS followers;
SELECT pg_temp.drift('social_inverted');

-- one transaction: a rolled back conditional write leaves nothing
BEGIN;
SELECT put_edge_if_absent('social', 'USER#erin', 'FOLLOWS#USER#bob');
SELECT put_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '{"version": 99}', '{}');
SELECT delete_edge_if('social', 'USER#carol', 'FOLLOWS#USER#bob', '{}');
ROLLBACK;
SELECT * FROM social ORDER BY pk, sk;
SELECT pg_temp.drift('social_inverted');

-- errors
SELECT pg_temp.err($$SELECT put_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '{}', NULL)$$) AS null_expected;
SELECT pg_temp.err($$SELECT put_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '{}', '[1]')$$) AS array_expected;
SELECT pg_temp.err($$SELECT delete_edge_if('social', 'USER#alice', 'FOLLOWS#USER#bob', '"v"')$$) AS scalar_expected;
SELECT pg_temp.err($$SELECT put_edge_if_absent('social', NULL, 'FOLLOWS#USER#bob')$$) AS null_pk;
SELECT pg_temp.err($$SELECT delete_edge_if('social', 'USER#alice', NULL, '{}')$$) AS null_sk;
SELECT pg_temp.err($$SELECT put_edge_if_absent('social', 'USER#alice', '')$$) AS empty_sk;
CREATE TABLE bare (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('bare');
SELECT put_edge_if_absent('bare', 'USER#a', 'FOLLOWS#USER#b') AS bare_put,
	   put_edge_if_absent('bare', 'USER#a', 'FOLLOWS#USER#b') AS bare_again;
SELECT pg_temp.err($$SELECT put_edge_if_absent('bare', 'USER#a', 'FOLLOWS#USER#c', '{}')$$) AS bare_data;
SELECT pg_temp.err($$SELECT put_edge_if('bare', 'USER#a', 'FOLLOWS#USER#b', NULL, '{}')$$) AS bare_if;
SELECT pg_temp.err($$SELECT delete_edge_if('bare', 'USER#a', 'FOLLOWS#USER#b', '{}')$$) AS bare_delete_if;
CREATE TABLE noindex (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT pg_temp.err($$SELECT put_edge_if_absent('noindex', 'USER#a', 'FOLLOWS#USER#b')$$) AS no_index;

-- put_edge_if replaces the whole item, as put_edge does: the other columns
-- get their defaults; an index keyed by a generated column moves with it
CREATE TABLE orders (pk adjkey, sk adjkey, data jsonb, note text DEFAULT 'default',
	status adjkey GENERATED ALWAYS AS (adjkey('STATUS#' || coalesce(data->>'status', 'none'))) STORED,
	PRIMARY KEY (pk, sk));
SELECT create_inverted_index('orders', partition_key => 'status', sort_key => 'pk', include => '{sk}',
							 index_name => 'orders_by_status', counters => 1);
SELECT put_edge_if_absent('orders', 'ORDER#1', 'META', '{"status": "new", "version": 1}');
UPDATE orders SET note = 'set by hand';
SELECT put_edge_if('orders', 'ORDER#1', 'META', '{"status": "paid", "version": 2}', '{"version": 1}');
SELECT pk, sk, data, note, status FROM orders;
SELECT * FROM orders_by_status;
SELECT edge_count('orders_by_status', 'paid', 'STATUS', 'in') AS paid,
	   edge_count('orders_by_status', 'new', 'STATUS', 'in') AS new;
SELECT pg_temp.drift('orders_by_status');

-- a table without a unique key an upsert can name (as over foreign
-- partitions; here a deferrable one, as the base key must have one): the
-- write API's key lock stands in for it
CREATE TABLE nokey (pk adjkey NOT NULL, sk adjkey NOT NULL, data jsonb, UNIQUE (pk, sk) DEFERRABLE);
SELECT create_inverted_index('nokey', base_key => '{pk,sk}', counters => 1);
SELECT put_edge_if_absent('nokey', 'USER#a', 'FOLLOWS#USER#b', '{"version": 1}') AS first,
	   put_edge_if_absent('nokey', 'USER#a', 'FOLLOWS#USER#b', '{"version": 7}') AS second,
	   put_edge_if('nokey', 'USER#a', 'FOLLOWS#USER#b', '{"version": 2}', '{"version": 1}') AS v2,
	   put_edge_if('nokey', 'USER#a', 'FOLLOWS#USER#b', '{"version": 3}', '{"version": 1}') AS stale;
SELECT * FROM nokey;
SELECT delete_edge_if('nokey', 'USER#a', 'FOLLOWS#USER#b', '{"version": 2}') AS deleted;
SELECT count(*) AS items FROM nokey;
SELECT pg_temp.drift('nokey_inverted');

-- ======================================================================
-- 2. batch_get: up to 100 items by key, in request order, missing ones
--    omitted, read as the caller
-- ======================================================================
SELECT put_edges('social', '[{"pk": "USER#bob", "sk": "PROFILE", "data": {"name": "Bob"}},
							 {"pk": "USER#bob", "sk": "FOLLOWS#USER#alice"},
							 {"pk": "USER#erin", "sk": "PROFILE", "data": {"name": "Erin"}}]');
SELECT * FROM batch_get('social', '[{"pk": "USER#erin", "sk": "PROFILE"},
									{"pk": "USER#nobody", "sk": "PROFILE"},
									{"PK": "USER#alice", "Sk": "FOLLOWS#USER#bob"},
									{"pk": "USER#bob", "sk": "PROFILE"}]');
-- exactly 100 keys, 50 of them present, in request order (reversed here)
SELECT put_edges('social', (SELECT jsonb_agg(jsonb_build_object('pk', 'USER#bob', 'sk', 'K#' || lpad(i::text, 3, '0')))
							FROM generate_series(1, 100, 2) i));
SELECT count(*) AS rows, bool_and(ok) AS in_order FROM (
	SELECT sk < lag(sk) OVER (ORDER BY ord) IS NOT FALSE AS ok
	FROM (SELECT b.*, row_number() OVER () AS ord
		  FROM batch_get('social', (SELECT jsonb_agg(jsonb_build_object('pk', 'USER#bob', 'sk', 'K#' || lpad(i::text, 3, '0'))
									ORDER BY i DESC) FROM generate_series(1, 100) i)) b) o) x;
-- the errors DynamoDB gives as ValidationException
SELECT pg_temp.err($$SELECT * FROM batch_get('social', (SELECT jsonb_agg(jsonb_build_object('pk', 'USER#bob', 'sk', 'K#' || i)) FROM generate_series(1, 101) i))$$) AS too_many;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '[]')$$) AS empty;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '[{"pk": "USER#bob", "sk": "PROFILE"}, {"PK": "USER#bob", "SK": "PROFILE"}]')$$) AS duplicates;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '{"pk": "USER#bob", "sk": "PROFILE"}')$$) AS not_array;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '["USER#bob"]')$$) AS not_object;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '[{"pk": "USER#bob", "sk": "PROFILE", "data": {}}]')$$) AS extra_member;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '[{"pk": "USER#bob"}]')$$) AS no_sk;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '[{"pk": "USER#bob", "Pk": "USER#x", "sk": "PROFILE"}]')$$) AS pk_twice;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '[{"pk": "USER#bob", "sk": 1}]')$$) AS number_sk;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', '[{"pk": "", "sk": "PROFILE"}]')$$) AS empty_key;
SELECT pg_temp.err($$SELECT * FROM batch_get('social', NULL)$$) AS null_keys;
SELECT pg_temp.err($$SELECT * FROM batch_get('social_inverted', '[{"pk": "USER#bob", "sk": "PROFILE"}]')$$) AS an_index;
CREATE TABLE three (a adjkey, b adjkey, c adjkey, PRIMARY KEY (a, b, c));
SELECT pg_temp.err($$SELECT * FROM batch_get('three', '[{"pk": "USER#bob", "sk": "PROFILE"}]')$$) AS three_key_columns;
-- key members are named as the table's key columns, or pk and sk
CREATE TABLE links (src adjkey, dst adjkey, data jsonb, PRIMARY KEY (src, dst));
INSERT INTO links VALUES ('N#1', 'N#2', '{"w": 1}');
SELECT * FROM batch_get('links', '[{"Src": "N#1", "DST": "N#2"}]');
SELECT * FROM batch_get('links', '[{"pk": "N#1", "sk": "N#2"}]');
-- a table without a data column
SELECT * FROM batch_get('bare', '[{"pk": "USER#a", "sk": "FOLLOWS#USER#b"}]');
-- as the caller: privileges and row-level security apply
CREATE ROLE regress_dynamo_reader;
GRANT USAGE ON SCHEMA dynamo_test TO regress_dynamo_reader;
GRANT SELECT ON social TO regress_dynamo_reader;
ALTER TABLE social ENABLE ROW LEVEL SECURITY;
CREATE POLICY only_profiles ON social TO regress_dynamo_reader USING (sk = 'PROFILE');
SET ROLE regress_dynamo_reader;
SELECT * FROM batch_get('social', '[{"pk": "USER#alice", "sk": "FOLLOWS#USER#bob"}, {"pk": "USER#bob", "sk": "PROFILE"}]');
SELECT pg_temp.err($$SELECT * FROM batch_get('links', '[{"pk": "N#1", "sk": "N#2"}]')$$) AS no_privilege;
RESET ROLE;
ALTER TABLE social DISABLE ROW LEVEL SECURITY;
DROP POLICY only_profiles ON social;
REVOKE ALL ON social FROM regress_dynamo_reader;
REVOKE ALL ON SCHEMA dynamo_test FROM regress_dynamo_reader;
DROP ROLE regress_dynamo_reader;

-- ======================================================================
-- 3. query_count_page: Select COUNT with Limit, ExclusiveStartKey and
--    ScanIndexForward; the last evaluated key is given when the limit
--    stopped the page (even with nothing after it, as DynamoDB does) and
--    is null when the range ended first
-- ======================================================================
CREATE TABLE pages (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('pages', write_shards => 3);
INSERT INTO pages SELECT 'USER#p', 'ITEM#' || lpad(i::text, 2, '0'), NULL FROM generate_series(1, 10) i;
INSERT INTO pages SELECT 'USER#' || i, 'ITEM#01', NULL FROM generate_series(1, 7) i;
SELECT * FROM query_count_page('pages', 'USER#p');
SELECT * FROM query_count_page('pages', 'USER#p', lim => 4);
SELECT * FROM query_count_page('pages', 'USER#p', lim => 4,
							   exclusive_start_key => '{"pk": "USER#p", "sk": "ITEM#04"}');
SELECT * FROM query_count_page('pages', 'USER#p', lim => 4,
							   exclusive_start_key => '{"pk": "USER#p", "sk": "ITEM#08"}');
-- a limit that ends exactly at the end: a key, then an empty last page
SELECT * FROM query_count_page('pages', 'USER#p', lim => 5, exclusive_start_key => '{"pk": "USER#p", "sk": "ITEM#05"}');
SELECT * FROM query_count_page('pages', 'USER#p', lim => 5, exclusive_start_key => '{"pk": "USER#p", "sk": "ITEM#10"}');
SELECT * FROM query_count_page('pages', 'USER#p', 'between', 'ITEM#03', 'ITEM#07', backward => true, lim => 2);
SELECT * FROM query_count_page('pages', 'USER#p', 'begins_with', 'ITEM#0', lim => 20);
SELECT * FROM query_count_page('pages', 'USER#nobody', lim => 3);
SELECT * FROM query_count_page('pages', NULL);
-- query_count() takes the same paging arguments (the count of one page)
SELECT query_count('pages', 'USER#p', lim => 4) AS first_page,
	   query_count('pages', 'USER#p', lim => 4, exclusive_start_key => '{"pk": "USER#p", "sk": "ITEM#08"}') AS last_page,
	   query_count('pages', 'USER#p', '<', 'ITEM#05', backward => true, lim => 3) AS backward_page,
	   query_count('pages', 'USER#p', exclusive_start_key => '{"pk": "USER#p", "sk": "ITEM#07"}') AS after_07;
-- paging to the end, both ways, under every sort condition: the counts add
-- up to query_count() and every key is the key of the page's last row in query()
CREATE FUNCTION pg_temp.pages_agree(tbl regclass, part adjkey, op text, v1 text, v2 text, back boolean, lim bigint)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	esk jsonb := NULL;
	c bigint;
	lek jsonb;
	total bigint := 0;
	npages int := 0;
	want jsonb;
BEGIN
	LOOP
		SELECT p.count, p.last_evaluated_key INTO c, lek
		FROM query_count_page(tbl, part, op, v1, v2, back, lim, esk) p;
		SELECT q.key INTO want FROM query(tbl, part, op, v1, v2, back, lim, esk) q OFFSET lim - 1;
		IF c <> query_count(tbl, part, op, v1, v2, back, lim, esk) THEN
			RETURN format('page %s: %s items, query_count() with the page''s arguments %s', npages, c,
						  query_count(tbl, part, op, v1, v2, back, lim, esk));
		END IF;
		IF c = lim AND lek IS DISTINCT FROM want THEN
			RETURN format('page %s: key %s, query() says %s', npages, lek, want);
		END IF;
		IF c < lim AND lek IS NOT NULL THEN
			RETURN format('page %s: short page with a key', npages);
		END IF;
		total := total + c;
		npages := npages + 1;
		EXIT WHEN lek IS NULL;
		esk := lek;
	END LOOP;
	IF total <> query_count(tbl, part, op, v1, v2) THEN
		RETURN format('counted %s, query_count %s', total, query_count(tbl, part, op, v1, v2));
	END IF;
	RETURN format('%s items in %s pages', total, npages);
END $$;
SELECT op, v1, back, lim, pg_temp.pages_agree('pages', 'USER#p', op, v1, v2, back, lim) AS result
FROM (VALUES (NULL, NULL, NULL), ('begins_with', 'ITEM#0', NULL), ('>', 'ITEM#03', NULL),
			 ('<=', 'ITEM#07', NULL), ('between', 'ITEM#02', 'ITEM#09'), ('=', 'ITEM#05', NULL)) c(op, v1, v2),
	 (VALUES (false), (true)) b(back), (VALUES (1::bigint), (3), (10)) l(lim)
ORDER BY op NULLS FIRST, v1, back, lim;
-- a write-sharded index: one partition over three stored keys
SELECT * FROM query_count_page('pages_inverted', 'ITEM#01', lim => 3);
SELECT lim, back, pg_temp.pages_agree('pages_inverted', 'ITEM#01', NULL, NULL, NULL, back, lim) AS result
FROM (VALUES (1::bigint), (2), (8)) l(lim), (VALUES (false), (true)) b(back) ORDER BY 1, 2;
-- the start key and the limit are validated as query() validates them
SELECT pg_temp.err($$SELECT * FROM query_count_page('pages', 'USER#p', lim => 0)$$) AS zero_limit;
SELECT pg_temp.err($$SELECT * FROM query_count_page('pages', 'USER#p', exclusive_start_key => '{"pk": "USER#q", "sk": "ITEM#01"}')$$) AS other_partition;
SELECT pg_temp.err($$SELECT * FROM query_count_page('pages', 'USER#p', 'begins_with', 'ITEM#0', exclusive_start_key => '{"pk": "USER#p", "sk": "ITEM#10"}')$$) AS outside_condition;
SELECT pg_temp.err($$SELECT * FROM query_count_page('pages', 'USER#p', exclusive_start_key => '{"pk": "USER#p", "sk": null}')$$) AS null_sk;
SELECT pg_temp.err($$SELECT * FROM query_count_page('pages', 'USER#p', exclusive_start_key => '{"pk": "USER#p"}')$$) AS no_sk;
SELECT pg_temp.err($$SELECT * FROM query_count_page('pages', 'USER#p', 'between', 'Z', 'A')$$) AS bad_between;
SELECT pg_temp.err($$SELECT * FROM query_count_page('pages', 'USER#p', 'like', 'I%')$$) AS bad_op;
SELECT pg_temp.err($$SELECT * FROM query_count_page(NULL, 'USER#p')$$) AS null_table;
-- query_count() is as it was
SELECT query_count('pages', 'USER#p', 'begins_with', 'ITEM#0');

-- ======================================================================
-- 4. DynamoDB JSON: import_dynamodb and export_dynamodb
-- ======================================================================
CREATE TABLE dyn (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dyn', include => '{data}', counters => 1);
-- every type DynamoDB has, blank lines and CRLF line ends
SELECT import_dynamodb('dyn', concat_ws(E'\n',
	'{"Item":{"pk":{"S":"USER#a"},"sk":{"S":"PROFILE"},"name":{"S":"Ann \"A\" Ä"},"age":{"N":"42"},"score":{"N":"-1.50"},"vip":{"BOOL":true},"gone":{"NULL":true}}}',
	'',
	E'{"Item":{"pk":{"S":"USER#a"},"sk":{"S":"FOLLOWS#USER#b"},"since":{"N":"2024"},"m":{"M":{"x":{"L":[{"N":"1"},{"S":"t"},{"NULL":true},{"BOOL":false},{"M":{}},{"L":[]}]}}}}}\r',
	'{"Item":{"sk":{"S":"SETS"},"pk":{"S":"USER#b"},"tags":{"SS":["x","y"]},"nums":{"NS":["1","2.5","1E+3"]},"bin":{"B":"AAEC"},"bins":{"BS":["AA==","AQ=="]}}}',
	'   ',
	'{"Item":{"pk":{"S":"USER#c"},"sk":{"S":"FOLLOWS#USER#b"}}}',
	''));
SELECT * FROM dyn ORDER BY pk, sk;
SELECT * FROM dyn_inverted ORDER BY sk, pk;
SELECT edge_count('dyn_inverted', 'USER#b', 'FOLLOWS', 'in') AS followers;
SELECT pg_temp.drift('dyn_inverted');
SELECT * FROM export_dynamodb('dyn');

-- round trip: export(import(x)) = x, line for line, for a sample in the
-- order export writes (keys first, then the attributes in jsonb's order)
CREATE TABLE sample (n int, line text);
INSERT INTO sample VALUES
	(1, '{"Item":{"pk":{"S":"USER#a"},"sk":{"S":"FOLLOWS#USER#b"},"m":{"M":{"k":{"S":"v"},"n":{"N":"0.000"}}},"since":{"N":"2024"}}}'),
	(2, '{"Item":{"pk":{"S":"USER#a"},"sk":{"S":"PROFILE"},"l":{"L":[{"N":"-7"},{"S":""},{"NULL":true},{"BOOL":false},{"M":{}},{"L":[]}]},"yes":{"BOOL":true},"none":{"NULL":true},"text":{"S":"tab\tquote\"back\\slash ü €"}}}'),
	(3, '{"Item":{"pk":{"S":"USER#b"},"sk":{"S":"KEYS#ONLY"}}}'),
	(4, '{"Item":{"pk":{"S":"USER#b#with#hash"},"sk":{"S":"Z"},"big":{"N":"12345678901234567890123456789012345678"},"tiny":{"N":"0.00000000000000000000000000000000000001"}}}');
CREATE TABLE rt (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('rt', counters => 1);
SELECT import_dynamodb('rt', (SELECT string_agg(line, E'\n' ORDER BY n) FROM sample));
SELECT count(*) AS lines, count(*) FILTER (WHERE e.line = s.line) AS equal
FROM (SELECT line, row_number() OVER () AS n FROM export_dynamodb('rt') line) e
FULL JOIN sample s USING (n);
-- and export -> import -> export again is the identity, lossy types included
CREATE TABLE dyn2 (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
SELECT create_inverted_index('dyn2');
SELECT import_dynamodb('dyn2', (SELECT string_agg(line, E'\n') FROM export_dynamodb('dyn') line));
SELECT (SELECT array_agg(line) FROM export_dynamodb('dyn') line) =
	   (SELECT array_agg(line) FROM export_dynamodb('dyn2') line) AS same_export;
-- what plain JSON cannot tell apart: sets come back as lists, binary as a
-- string, a number in exponent form as its digits
SELECT line FROM export_dynamodb('dyn') line WHERE line LIKE '%SETS%';
-- an item given twice: the last wins; re-importing replaces
SELECT import_dynamodb('dyn2', E'{"Item":{"pk":{"S":"USER#c"},"sk":{"S":"FOLLOWS#USER#b"},"v":{"N":"1"}}}\n'
							   '{"Item":{"pk":{"S":"USER#c"},"sk":{"S":"FOLLOWS#USER#b"},"v":{"N":"2"}}}');
SELECT data FROM dyn2 WHERE pk = 'USER#c';
-- more than one batch of lines, through the write API with its counters
SELECT import_dynamodb('rt', (SELECT string_agg(format('{"Item":{"pk":{"S":"USER#%s"},"sk":{"S":"FOLLOWS#USER#star"},"i":{"N":"%s"}}}', i, i), E'\n')
							  FROM generate_series(1, 2500) i));
SELECT count(*) FROM rt WHERE sk = 'FOLLOWS#USER#star';
SELECT edge_count('rt_inverted', 'USER#star', 'FOLLOWS', 'in') AS stars_followers;
SELECT pg_temp.drift('rt_inverted');
-- a table without an inverted index but with a primary key of two adjkey columns
SELECT import_dynamodb('noindex', '{"Item":{"pk":{"S":"USER#a"},"sk":{"S":"X"},"v":{"N":"1"}}}');
SELECT * FROM export_dynamodb('noindex');
-- key columns named otherwise: the key attributes carry their names
SELECT import_dynamodb('links', '{"Item":{"src":{"S":"N#1"},"dst":{"S":"N#3"},"w":{"N":"3"}}}');
SELECT * FROM export_dynamodb('links');
SELECT * FROM export_dynamodb('bare');

-- malformed lines: 22P02, naming the line; nothing of the call is kept
\set SHOW_CONTEXT errors
SELECT import_dynamodb('dyn', E'{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"}}}\n{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"B"},"x":{"Q":"1"}}}');
SELECT import_dynamodb('dyn', E'\n\n{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"}}');
\set SHOW_CONTEXT never
SELECT count(*) AS nothing_kept FROM dyn WHERE pk = 'USER#z';
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"pk":{"S":"USER#z"},"sk":{"S":"A"}}')$$) AS no_item;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '[1]')$$) AS not_object;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":"plain"}}')$$) AS untyped;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"S":"a","N":"1"}}}')$$) AS two_types;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"N":"12abc"}}}')$$) AS bad_number;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"N":"NaN"}}}')$$) AS nan;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"NS":["1","x"]}}}')$$) AS bad_number_set;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"SS":[1]}}}')$$) AS bad_string_set;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"NULL":false}}}')$$) AS null_false;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"BOOL":"true"}}}')$$) AS bool_string;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"M":[]}}}')$$) AS map_array;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"L":{}}}}')$$) AS list_object;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"N":"1"},"sk":{"S":"A"}}}')$$) AS number_key;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"}}}')$$) AS no_sort_key;
SELECT pg_temp.err($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":""},"sk":{"S":"A"}}}')$$) AS empty_key;
SELECT pg_temp.err(format($$SELECT import_dynamodb('dyn', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"%s"}}}')$$, repeat('x', 1025))) AS sort_key_too_long;
SELECT pg_temp.err($$SELECT import_dynamodb('bare', '{"Item":{"pk":{"S":"USER#z"},"sk":{"S":"A"},"x":{"N":"1"}}}')$$) AS no_data_column;
SELECT pg_temp.err($$SELECT import_dynamodb('three', '{"Item":{"a":{"S":"A"},"b":{"S":"B"}}}')$$) AS three_key_columns;
SELECT pg_temp.err($$SELECT import_dynamodb(NULL, '')$$) AS null_table;
SELECT import_dynamodb('dyn', '') AS nothing;
-- what export cannot write: data that is not an object, or names a key attribute
INSERT INTO dyn2 VALUES ('USER#x', 'ARRAY', '[1, 2]');
SELECT pg_temp.err($$SELECT count(*) FROM export_dynamodb('dyn2')$$) AS array_data;
UPDATE dyn2 SET data = '{"pk": "shadow"}' WHERE pk = 'USER#x';
SELECT pg_temp.err($$SELECT count(*) FROM export_dynamodb('dyn2')$$) AS key_member;
UPDATE dyn2 SET data = 'null' WHERE pk = 'USER#x';
SELECT line FROM export_dynamodb('dyn2') line WHERE line LIKE '%USER#x%';
SELECT pg_temp.err($$SELECT count(*) FROM export_dynamodb('three')$$) AS export_three;
SELECT pg_temp.err($$SELECT count(*) FROM export_dynamodb(NULL)$$) AS export_null;

-- query()'s item is to_jsonb(t) and its key the key columns, whatever the
-- columns' types (adjkey, a domain over it, arrays, quoted names, dropped
-- columns, NULLs), also after the table changes in this session
CREATE DOMAIN dkey AS adjkey;
CREATE TABLE items (pk adjkey, sk adjkey, gone int, "Odd Name" text, n int, d dkey, ks adjkey[],
					data jsonb, PRIMARY KEY (pk, sk));
ALTER TABLE items DROP COLUMN gone;
INSERT INTO items VALUES ('P#1', 'S#1', 'x"y', 1, 'D#1', '{A#1,B#2}', '{"v": [1, "two"]}'),
						 ('P#1', 'S#2', NULL, NULL, NULL, NULL, NULL);
SELECT q.sort_key, q.item = to_jsonb(t) AS item_is_row, q.key = jsonb_build_object('pk', t.pk, 'sk', t.sk) AS key_ok
FROM query('items', 'P#1') q JOIN items t ON t.pk = q.partition_key AND t.sk = q.sort_key ORDER BY 1;
ALTER TABLE items ADD COLUMN extra text DEFAULT 'new';
ALTER TABLE items RENAME COLUMN n TO m;
SELECT q.sort_key, q.item = to_jsonb(t) AS item_is_row, q.item ? 'extra' AND q.item ? 'm' AS sees_changes
FROM query('items', 'P#1') q JOIN items t ON t.pk = q.partition_key AND t.sk = q.sort_key ORDER BY 1;

RESET search_path;
SET client_min_messages = warning;
DROP SCHEMA dynamo_test CASCADE;
RESET client_min_messages;
