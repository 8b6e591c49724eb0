--
-- adjkey text and binary input/output, casts, and bad input
--

-- a helper that reports the SQLSTATE and message of a failing statement
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- text I/O is the plain string
SELECT 'USER#alice'::adjkey AS k, 'FOLLOWS#USER#bob'::adjkey, 'Z'::adjkey;
SELECT 'USER#中文#😀'::adjkey, 'a b\c#d'::adjkey, 'x'::adjkey;
SELECT pg_typeof('USER#alice'::adjkey);

-- bad input: empty, too long, invalid encoding
SELECT ''::adjkey;
SELECT pg_temp.err($$SELECT ''::adjkey$$);
SELECT pg_temp.err($$SELECT repeat('a', 2049)::adjkey$$);
SELECT length(repeat('a', 2048)::adjkey::text) AS at_limit;
-- the limit counts UTF-8 bytes, not characters: 683 x 3 bytes = 2049
SELECT pg_temp.err($$SELECT repeat('中', 683)::adjkey$$);
SELECT octet_length(repeat('中', 682)::adjkey::text) AS bytes_ok;
SELECT pg_temp.err($$SELECT 'USER#' || repeat('x', 3000)::text::adjkey$$);

-- nothing half-written: a failing multi-row insert leaves the table empty
CREATE TABLE io_items (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
INSERT INTO io_items VALUES ('USER#a', 'PROFILE'), ('USER#b', '');
SELECT count(*) FROM io_items;
INSERT INTO io_items VALUES ('USER#a', 'PROFILE'), ('USER#b', repeat('b', 2049));
SELECT count(*) FROM io_items;

-- casts: text -> adjkey is an assignment cast, adjkey -> text too
INSERT INTO io_items SELECT 'USER#' || g, 'PROFILE'::text FROM generate_series(1, 3) g;
SELECT pk, sk FROM io_items ORDER BY pk;
SELECT 'USER#alice'::adjkey::text || '!' AS as_text;
SELECT adjkey('INVOICE#1'), text('INVOICE#1'::adjkey);
CREATE TABLE io_text (t text);
INSERT INTO io_text SELECT pk FROM io_items;
SELECT t FROM io_text ORDER BY t;
-- no implicit cast to text, but adjkey compares with text by its bytes
-- (the cross-type operators, sql/adjkey_text.sql)
SELECT 'a'::adjkey < 'b'::text;
SELECT 'a'::adjkey < 'b'::text::adjkey;
-- not collatable: ordering never depends on a collation
SELECT 'a'::adjkey COLLATE "C";

-- binary send: a version byte (1), then the UTF-8 bytes
SELECT adjkey_send('USER#é');

-- binary COPY round trip
CREATE TABLE io_src (pk adjkey, sk adjkey, n int);
INSERT INTO io_src VALUES ('USER#alice', 'FOLLOWS#USER#bob', 1),
	('USER#中', 'LIKES#POST#😀', 2), ('Z', 'a b#c', 3),
	(repeat('k', 2048), 'x', 4);
COPY io_src TO '/tmp/adjlist_regress_io.bin' (FORMAT binary);
CREATE TABLE io_dst (LIKE io_src);
COPY io_dst FROM '/tmp/adjlist_regress_io.bin' (FORMAT binary);
SELECT count(*) AS copied,
	   count(*) FILTER (WHERE s.pk = d.pk AND s.sk = d.sk) AS equal
FROM io_src s JOIN io_dst d USING (n);

-- binary input is checked like text input.  A binary COPY of a bytea
-- column carries exactly the bytes given, so it can forge any payload.
CREATE TABLE io_one (k adjkey);
COPY (SELECT '\x02414243'::bytea) TO '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY io_one FROM '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY (SELECT '\x01'::bytea) TO '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY io_one FROM '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY (SELECT '\x0141ff42'::bytea) TO '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY io_one FROM '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY (SELECT '\x014100'::bytea) TO '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY io_one FROM '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY (SELECT '\x01' || convert_to('USER#é', 'UTF8')) TO '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
COPY io_one FROM '/tmp/adjlist_regress_bad.bin' (FORMAT binary);
SELECT k FROM io_one;

-- text COPY
COPY (SELECT pk, sk, n FROM io_src WHERE n < 4 ORDER BY n) TO STDOUT;

-- NULLs pass through
SELECT NULL::adjkey IS NULL AS is_null;
