--
-- ordering by UTF-8 bytes, operators, btree and hash operator classes
--

-- the orderings the README promises, whatever the collation
SELECT 'USER#10'::adjkey < 'USER#9' AS digits,
	   'Z'::adjkey < 'a' AS upper_first,
	   'a b'::adjkey < 'a#b' AS space_before_hash,
	   'z'::adjkey < 'é' AS ascii_before_latin,
	   'é'::adjkey < '中' AS latin_before_cjk,
	   '中'::adjkey < '😀' AS cjk_before_emoji,
	   'USER'::adjkey < 'USER#' AS prefix_first;

-- text under an ICU collation orders differently; adjkey does not care
CREATE TABLE ord (k adjkey);
INSERT INTO ord VALUES ('a'), ('B'), ('USER#9'), ('USER#10'), ('a b'), ('a#b'),
	('é'), ('z'), ('中'), ('😀'), ('Z'), ('USER');
SELECT string_agg(k::text, ' | ' ORDER BY k) AS adjkey_order FROM ord;
SELECT string_agg(k::text, ' | ' ORDER BY k::text COLLATE "en-US-x-icu") AS icu_order FROM ord;
SELECT string_agg(k::text, ' | ' ORDER BY convert_to(k::text, 'UTF8')) AS byte_order FROM ord;
SELECT min(k), max(k) FROM ord;

-- all six operators, against the bytes
SELECT a, b, a = b AS eq, a <> b AS ne, a < b AS lt, a <= b AS le, a > b AS gt,
	   a >= b AS ge, adjkey_cmp(a, b) AS cmp
FROM (VALUES ('USER#a'::adjkey, 'USER#a'::adjkey), ('USER#a', 'USER#b'),
			 ('USER#b', 'USER#a'), ('USER', 'USER#'), ('é', 'z')) v(a, b);
SELECT 'b'::adjkey BETWEEN 'a' AND 'c' AS between_in,
	   'USER#9'::adjkey BETWEEN 'USER#1' AND 'USER#5' AS between_out,
	   'b'::adjkey BETWEEN SYMMETRIC 'c' AND 'a' AS symmetric;
SELECT k FROM ord WHERE k BETWEEN 'USER' AND 'USER#9' ORDER BY k;

-- the operator classes pass the access methods' own validation
SELECT opcname, amname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE opcintype = 'adjkey'::regtype ORDER BY amname;

-- a btree index agrees with the sort, and amcheck finds its order sound,
-- with abbreviated keys used (varied starts) and abandoned (long common
-- prefixes)
CREATE EXTENSION IF NOT EXISTS amcheck;
CREATE TABLE ord_big (k adjkey);
INSERT INTO ord_big
SELECT CASE WHEN g % 2 = 0 THEN md5(g::text) ELSE 'FOLLOWS#USER#' || md5(g::text) END
	   || CASE WHEN g % 7 = 0 THEN '中' WHEN g % 11 = 0 THEN ' x' ELSE '' END
FROM generate_series(1, 20000) g;
CREATE INDEX ord_big_k ON ord_big (k);
SELECT bt_index_check('ord_big_k', true);
CREATE INDEX ord_big_follows ON ord_big (k) WHERE k ^@ 'FOLLOWS#';
SELECT bt_index_check('ord_big_follows', true);
SELECT count(*) AS out_of_byte_order
FROM (SELECT k, lag(k) OVER (ORDER BY k) AS prev FROM ord_big) s
WHERE convert_to(prev::text, 'UTF8') > convert_to(k::text, 'UTF8');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT count(*) AS index_rows, count(DISTINCT k) AS distinct_keys
FROM (SELECT k FROM ord_big ORDER BY k) s;
EXPLAIN (COSTS OFF) SELECT k FROM ord_big WHERE k > 'f' ORDER BY k LIMIT 3;
SELECT k FROM ord_big WHERE k > 'f' ORDER BY k LIMIT 3;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- hashing: hash index, hash join, hash aggregate, hash partitioning
CREATE INDEX ord_hash ON ord USING hash (k);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ord WHERE k = 'USER#9';
SELECT * FROM ord WHERE k = 'USER#9';
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ord a JOIN ord b ON a.k = b.k;
SELECT count(*) FROM ord a JOIN ord b ON a.k = b.k;
RESET enable_mergejoin;
RESET enable_nestloop;
SET enable_hashjoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ord a JOIN ord b ON a.k = b.k;
SELECT count(*) FROM ord a JOIN ord b ON a.k = b.k;
RESET enable_hashjoin;
RESET enable_nestloop;
SELECT adjkey_hash('USER#alice') = adjkey_hash('USER#alice') AS stable,
	   adjkey_hash_extended('USER#alice', 0) = adjkey_hash_extended('USER#alice', 0) AS stable_ext,
	   adjkey_hash_extended('USER#alice', 0) <> adjkey_hash_extended('USER#alice', 1) AS seeded,
	   adjkey_hash('USER#alice') <> adjkey_hash('USER#alicf') AS differs;

CREATE TABLE items_hashed (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk))
	PARTITION BY HASH (pk);
CREATE TABLE items_hashed_0 PARTITION OF items_hashed FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE items_hashed_1 PARTITION OF items_hashed FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO items_hashed SELECT 'USER#' || g, 'PROFILE' FROM generate_series(1, 100) g;
SELECT count(*) > 20 AS p0_used FROM items_hashed_0;
SELECT count(*) > 20 AS p1_used FROM items_hashed_1;
EXPLAIN (COSTS OFF) SELECT * FROM items_hashed WHERE pk = 'USER#7';
SELECT * FROM items_hashed WHERE pk = 'USER#7';
-- the partition a key lands in does not change between calls
SELECT tableoid::regclass FROM items_hashed WHERE pk = 'USER#1';
SELECT count(DISTINCT k) FROM ord;

-- Compressed keys: a long key is compressed in a heap tuple past the toast
-- threshold and in an index tuple past a few hundred bytes; the comparison
-- functions detoast it (keys held inline are compared where they are:
-- both ways must order alike, whichever side of a comparison is which).
CREATE TABLE long_keys (k adjkey);
INSERT INTO long_keys
SELECT ('K#' || chr(96 + i) || repeat(chr(97 + (i * 7) % 3), 2030 + i))::adjkey
FROM generate_series(1, 12) i;
INSERT INTO long_keys SELECT ('K#' || chr(96 + i))::adjkey FROM generate_series(1, 12) i;
SELECT count(*) FILTER (WHERE pg_column_compression(k) IS NOT NULL) AS compressed,
	   count(*) AS keys FROM long_keys;
-- every pair, compared as adjkey (detoasted or not) and as bytes
SELECT count(*) AS pairs,
	   count(*) FILTER (WHERE sign(adjkey_cmp(a.k, b.k)) <> sign(CASE WHEN a.k::text::bytea < b.k::text::bytea THEN -1
		   WHEN a.k::text::bytea > b.k::text::bytea THEN 1 ELSE 0 END)) AS wrong_cmp,
	   count(*) FILTER (WHERE (a.k < b.k) <> (a.k::text::bytea < b.k::text::bytea)
		   OR (a.k = b.k) <> (a.k::text = b.k::text)
		   OR (a.k >= b.k) <> (a.k::text::bytea >= b.k::text::bytea)) AS wrong_ops
FROM long_keys a, long_keys b;
-- an index of compressed keys, searched and sorted
CREATE INDEX long_keys_k ON long_keys (k);
SET enable_seqscan = off;
SELECT left(k::text, 4) AS k, length(k::text) AS len
FROM long_keys WHERE k >= 'K#e' AND k < 'K#g' ORDER BY k;
SELECT count(*) AS found FROM long_keys a WHERE EXISTS (SELECT FROM long_keys b WHERE b.k = a.k);
RESET enable_seqscan;
SELECT array_agg(left(k::text, 3) ORDER BY k) = array_agg(left(k::text, 3) ORDER BY k::text::bytea) AS sorted_alike
FROM long_keys;
DROP TABLE long_keys;
