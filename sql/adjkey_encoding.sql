--
-- keys are stored and ordered as UTF-8 whatever the database encoding
--
-- (databases named after this backend, so that runs never collide, with
-- the C locale, which every server has; back to this database at the end)
\set regdb :DBNAME
SELECT 'adjlist_win1252_' || pg_backend_pid() AS db_win1252,
	   'adjlist_latin1_' || pg_backend_pid() AS db_latin1,
	   'adjlist_sqlascii_' || pg_backend_pid() AS db_sqlascii \gset
CREATE DATABASE :"db_win1252" ENCODING 'WIN1252' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE :"db_latin1" ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
CREATE DATABASE :"db_sqlascii" ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;

\c :db_win1252
SET client_encoding = 'UTF8';
CREATE EXTENSION adjlist;
-- in WIN1252 the euro sign is byte 0x80, below 'ÿ' (0xFF); in UTF-8 it is
-- U+20AC, above U+00FF: adjkey orders by UTF-8, text by the local bytes
SELECT '€'::adjkey > 'ÿ'::adjkey AS adjkey_utf8_order,
	   '€'::text COLLATE "C" > 'ÿ'::text COLLATE "C" AS text_local_order;
SELECT 'PRICE#€'::adjkey AS round_trip, adjkey_send('€') AS utf8_bytes,
	   'PRICE#€5'::adjkey ^@ 'PRICE#€' AS begins, key_parts(make_key('PRICE', '€#1'));
SELECT k FROM (VALUES ('ÿ'::adjkey), ('€'), ('z')) v(k) ORDER BY k;
-- the limit counts UTF-8 bytes: 683 euro signs are 683 bytes here, 2049 in UTF-8
SELECT octet_length(repeat('€', 683)) AS local_bytes;
SELECT repeat('€', 683)::adjkey;
-- a prefix range's upper bound is the prefix's successor, here U+20AD and
-- U+017F, which WIN1252 lacks: the plan computes it from the prefix when
-- the scan starts, so EXPLAIN prints while the range stays as tight
CREATE TABLE g (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
INSERT INTO g VALUES ('U', 'P#‰'), ('U', 'P#€'), ('U', 'P#€5'), ('U', 'P#™'),
	('U', 'P#Ž'), ('U', 'P#ž'), ('U', 'P#žx'), ('U', 'P#ƒ'), ('U', 'P#z');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'U' AND sk ^@ 'P#€';
SELECT sk FROM g WHERE pk = 'U' AND sk ^@ 'P#€';
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'U' AND sk LIKE 'P#ž%';
SELECT sk FROM g WHERE pk = 'U' AND sk LIKE 'P#ž%';
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'U' AND begins_with(sk, 'P#ž');
SELECT sk FROM g WHERE pk = 'U' AND begins_with(sk, 'P#ž');
-- a prefix whose successor WIN1252 has keeps the constant bound
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'U' AND sk ^@ 'P#Ž';
SELECT sk FROM g WHERE pk = 'U' AND sk ^@ 'P#Ž';
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'U' AND sk ^@ 'P#z';
RESET enable_seqscan;

\c :db_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION adjlist;
-- 'ÿ' is LATIN1's last character: its successor U+0100 has no LATIN1 form
CREATE TABLE g (pk adjkey, sk adjkey, data jsonb, PRIMARY KEY (pk, sk));
INSERT INTO g VALUES ('USER#a', 'F#þ'), ('USER#a', 'F#ÿ'), ('USER#a', 'F#ÿa'),
	('USER#a', 'F#ÿÿ'), ('USER#a', 'F$'), ('USER#b', 'F#ÿ');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'USER#a' AND sk ^@ 'F#ÿ';
SELECT sk FROM g WHERE pk = 'USER#a' AND sk ^@ 'F#ÿ';
-- a key as the prefix, and LIKE with more after the prefix (rechecked)
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'USER#a' AND sk ^@ 'F#ÿ'::adjkey;
SELECT sk FROM g WHERE pk = 'USER#a' AND sk ^@ 'F#ÿ'::adjkey;
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'USER#a' AND sk LIKE 'F#ÿ%';
SELECT sk FROM g WHERE pk = 'USER#a' AND sk LIKE 'F#ÿ%';
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'USER#a' AND sk LIKE 'F#ÿ_';
SELECT sk FROM g WHERE pk = 'USER#a' AND sk LIKE 'F#ÿ_';
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'USER#a' AND begins_with(sk, 'F#ÿ');
SELECT sk FROM g WHERE pk = 'USER#a' AND begins_with(sk, 'F#ÿ');
EXPLAIN (VERBOSE, COSTS OFF) SELECT sk FROM g WHERE pk = 'USER#a' AND sk ^@ 'F#ÿ';
RESET enable_seqscan;
SELECT * FROM explain_query('g', 'USER#a', 'begins_with', 'F#ÿ');
SELECT sort_key FROM query('g', 'USER#a', 'begins_with', 'F#ÿ');

\c :db_sqlascii
SET client_encoding = 'SQL_ASCII';
CREATE EXTENSION adjlist;
-- SQL_ASCII accepts any byte; adjkey still insists on UTF-8
SELECT E'USER#\xff'::adjkey;
SELECT E'USER#\xc3\xa9'::adjkey = make_key('USER', E'\xc3\xa9') AS utf8_ok;
-- no conversion: the successor of 'ÿ' (U+0100) prints as a constant
CREATE TABLE g (pk adjkey, sk adjkey, PRIMARY KEY (pk, sk));
INSERT INTO g VALUES ('U', E'F#\xc3\xbf'), ('U', E'F#\xc3\xbfa'), ('U', E'F#\xc4\x80');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT sk FROM g WHERE pk = 'U' AND sk ^@ E'F#\xc3\xbf';
SELECT sk FROM g WHERE pk = 'U' AND sk ^@ E'F#\xc3\xbf';
RESET enable_seqscan;

\c :regdb
DROP DATABASE :"db_win1252";
DROP DATABASE :"db_latin1";
DROP DATABASE :"db_sqlascii";
