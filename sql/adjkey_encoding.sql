--
-- keys are stored and ordered as UTF-8 whatever the database encoding
--
-- (databases named after this backend, so that runs never collide, with
-- the C locale, which every server has; back to this database at the end)
\set regdb :DBNAME
SELECT 'adjlist_win1252_' || pg_backend_pid() AS db_win1252,
	   'adjlist_sqlascii_' || pg_backend_pid() AS db_sqlascii \gset
CREATE DATABASE :"db_win1252" ENCODING 'WIN1252' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
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

\c :db_sqlascii
SET client_encoding = 'SQL_ASCII';
CREATE EXTENSION adjlist;
-- SQL_ASCII accepts any byte; adjkey still insists on UTF-8
SELECT E'USER#\xff'::adjkey;
SELECT E'USER#\xc3\xa9'::adjkey = make_key('USER', E'\xc3\xa9') AS utf8_ok;

\c :regdb
DROP DATABASE :"db_win1252";
DROP DATABASE :"db_sqlascii";
